// coreset._core: libcoreset's public API for Python. Each function takes arrays that
// coreset/_arrays.py has already put in a layout the engine reads (or copied once), a dict of the
// keyword arguments, and an optional progress callback; it runs the engine with the GIL released
// and returns (indices, weights, report JSON). coreset/_api.py is the documented surface.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/report.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"
#include "coreset/version.hpp"
#include "device_arrays.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace py = pybind11;

namespace coreset::python {
namespace {

BuildReportInputs build_inputs(const Dataset& data, const py::dict& keywords,
                               const BuildOptions& options) {
  BuildReportInputs inputs;
  inputs.data_description = keyword_text(keywords, "data_description");
  inputs.rows = data.rows();
  inputs.covariates = data.dims();
  inputs.response_name = data.response_name;
  inputs.prior_covariance_path = options.model.prior_covariance.rows() > 0 ? "array" : "";
  inputs.noise_covariance_path = options.model.noise_covariance.rows() > 0 ? "array" : "";
  inputs.options = options;
  inputs.options.solver.progress = nullptr;
  return inputs;
}

Dataset named_dataset(const py::array& x, const py::object& y, const py::dict& keywords) {
  Dataset data = dataset_from(x, y);
  if (keywords.contains("covariate_names") && !keywords["covariate_names"].is_none()) {
    data.covariate_names = keywords["covariate_names"].cast<std::vector<std::string>>();
  }
  data.response_name = keyword_text(keywords, "response_name");
  data.source = keyword_text(keywords, "data_description");
  // As for a .npy dataset: errors then name the 0-based row and column (the response is
  // column D, after X's columns 0 .. D - 1).
  if (!y.is_none()) {
    data.response_column = data.dims() + 1;
  }
  return data;
}

py::tuple build(const py::array& x, const py::object& y, const py::dict& keywords,
                const py::object& callback) {
  const Dataset data = named_dataset(x, y, keywords);
  BuildOptions options = build_options(keywords);
  PythonProgress progress(callback);
  options.solver.progress = &progress;
  const BuildResult result =
      run_without_gil(progress, [&] { return build_coreset(data, options); });
  return coreset_tuple(result.solve.coreset,
                       build_report_json(build_inputs(data, keywords, options), result));
}

// One prepared problem solved at every budget of `ks`, warm-started where the algorithm allows
// (coreset::sweep): ([(k, indices, weights), ...], report JSON).
py::tuple sweep(const py::array& x, const py::object& y, const py::dict& keywords,
                const std::vector<index_t>& ks, const py::object& callback) {
  const Dataset data = named_dataset(x, y, keywords);
  BuildOptions options = build_options(keywords);
  PythonProgress progress(callback);
  options.solver.progress = &progress;
  std::optional<PreparedProblem> problem;
  const SweepResult result = run_without_gil(progress, [&] {
    // `data` outlives the problem: its covariates are read in place.
    problem.emplace(data, options, PreparedProblem::CovariatesInPlace{});
    return coreset::sweep(*problem, options.solver, ks);
  });
  py::list budgets;
  for (const BudgetRun& budget : result.budgets) {
    const py::tuple arrays = coreset_tuple(budget.run.solve.coreset, "");
    budgets.append(py::make_tuple(budget.k, arrays[0], arrays[1]));
  }
  return py::make_tuple(budgets,
                        sweep_report_json(build_inputs(data, keywords, options), *problem, result));
}

// The smallest budget whose coreset reaches the target (coreset::choose_k), as build reports
// it plus the search; coreset.errors.TargetNotReachedError when no budget reaches it.
py::tuple build_auto(const py::array& x, const py::object& y, const py::dict& keywords,
                     const std::string& metric, double value, const py::object& callback) {
  const Dataset data = named_dataset(x, y, keywords);
  BuildOptions options = build_options(keywords);
  options.solver.k = 1;  // each budget of the search sets its own
  const KTarget target{
      metric == "relative_error" ? TargetMetric::relative_error : TargetMetric::symmetric_kl,
      value};
  PythonProgress progress(callback);
  options.solver.progress = &progress;
  std::optional<PreparedProblem> problem;
  const ChooseKResult search = run_without_gil(progress, [&] {
    // `data` outlives the problem: its covariates are read in place.
    problem.emplace(data, options, PreparedProblem::CovariatesInPlace{});
    return choose_k(*problem, options.solver, target);
  });
  const BudgetRun& best = search.result();
  if (!search.reached) {
    const std::string message =
        "no budget k <= " + std::to_string(problem->rows()) + " reaches " +
        to_string(target.metric) + " <= " + py::str(py::float_(value)).cast<std::string>() +
        "; the best reached was " +
        py::str(py::float_(metric_value(best.run.quality, target.metric))).cast<std::string>() +
        " at k = " + std::to_string(best.k);
    raise_error("TargetNotReachedError", message);
  }
  const BuildResult result = to_build_result(*problem, best.run);
  BuildReportInputs inputs = build_inputs(data, keywords, options);
  inputs.options.solver.k = result.solve.k;  // the report's k_requested: the chosen one
  return coreset_tuple(result.solve.coreset, build_report_json(inputs, result, search, target));
}

py::tuple evaluate(const py::array& x, const py::object& y, const py::dict& keywords,
                   const std::vector<index_t>& indices, const std::vector<double>& weights,
                   const py::object& callback) {
  const Dataset data = named_dataset(x, y, keywords);
  BuildOptions options = build_options(keywords);
  PythonProgress progress(callback);
  options.solver.progress = &progress;
  const Coreset coreset{indices, weights};
  const Quality quality =
      run_without_gil(progress, [&] { return evaluate_coreset(data, options, coreset); });
  return coreset_tuple(coreset,
                       evaluate_report_json(build_inputs(data, keywords, options),
                                            "indices and weights given", coreset, quality));
}

template <class T>
py::tuple solve_typed(MatrixView<T> phi, const py::object& y, const py::dict& keywords,
                      const py::object& callback, SolveReportInputs inputs) {
  const T* target = target_values<T>(y, phi.rows);
  SolverOptions options = solver_options(keywords);
  PythonProgress progress(callback);
  options.progress = &progress;
  const SolveResult result =
      run_without_gil(progress, [&] { return coreset::solve(phi, target, options); });
  inputs.rows = phi.rows;
  inputs.cols = phi.cols;
  inputs.precision = std::is_same_v<T, float> ? Precision::float32 : Precision::float64;
  inputs.options = options;
  inputs.options.progress = nullptr;
  return coreset_tuple(result.coreset, solve_report_json(inputs, result));
}

// Phi (S x n) read in place: a column-major float32 or float64 array.
py::tuple solve_phi(const py::array& phi, const py::object& y, const py::dict& keywords,
                    const py::object& callback) {
  if (is_float32(phi)) {
    return solve_typed(column_major_view<float>(phi, "phi"), y, keywords, callback,
                       solve_inputs(keywords));
  }
  return solve_typed(column_major_view<double>(phi, "phi"), y, keywords, callback,
                     solve_inputs(keywords));
}

template <class T>
py::tuple solve_loglik_typed(const py::array& loglik, const py::object& y, const py::dict& keywords,
                             const py::object& callback) {
  const StridedArray<T> in = strided<T>(loglik, "loglik");
  // Ctrl-C and the callback reach the projection too (a block of datapoints at a time).
  PythonProgress progress(callback);
  const Matrix<T> phi = run_without_gil(progress, [&] {
    return projection_from_loglik(in.data, in.rows, in.cols, in.row_stride, in.col_stride,
                                  &progress);
  });
  return solve_typed(phi.view(), y, keywords, callback, solve_inputs(keywords));
}

// Log-likelihoods as an n x S array of any strides (datapoint i, draw s): centred and scaled
// into Phi in one pass (projection_from_loglik), then solved.
py::tuple solve_loglik(const py::array& loglik, const py::object& y, const py::dict& keywords,
                       const py::object& callback) {
  return is_float32(loglik) ? solve_loglik_typed<float>(loglik, y, keywords, callback)
                            : solve_loglik_typed<double>(loglik, y, keywords, callback);
}

// L_n(theta) of every row at each column of `parameters` (d x P): n x P.
py::array_t<double> log_likelihoods(const py::array& x, const py::object& y,
                                    const py::dict& keywords, const py::array& parameters) {
  const Dataset data = named_dataset(x, y, keywords);
  const BuildOptions options = build_options(keywords);
  const Matrix<double> theta = copy_matrix(parameters, "theta");
  Matrix<double> values;
  {
    py::gil_scoped_release release;
    values = coreset::log_likelihoods(data, options.model, theta, options.seed);
  }
  py::array_t<double, py::array::f_style> out({values.rows(), values.cols()});
  std::copy(values.data(), values.data() + values.rows() * values.cols(), out.mutable_data());
  return out;
}

// The built-in example's data (coreset build without --data): X (rows x 2) and y in {-1, 1}.
py::tuple synthetic_logistic(index_t rows, std::uint64_t seed) {
  const Dataset data = synthetic_logistic_dataset(rows, seed);
  py::array_t<double, py::array::f_style> x({data.rows(), data.dims()});
  std::copy(data.covariates.data(), data.covariates.data() + data.rows() * data.dims(),
            x.mutable_data());
  py::array_t<double> y(static_cast<py::ssize_t>(data.response.size()));
  std::copy(data.response.begin(), data.response.end(), y.mutable_data());
  return py::make_tuple(std::move(x), std::move(y));
}

py::dict info() {
  const BuildInfo build = build_info();
  py::dict result;
  result["version"] = build.version;
  result["compiler"] = build.compiler;
  result["build_type"] = build.build_type;
  result["openmp"] = build.openmp;
  result["threads"] = build.threads;
  result["memory_limit_bytes"] =
      build.memory_limit_bytes > 0 ? py::object(py::int_(build.memory_limit_bytes)) : py::none();
  result["cpu_limit"] =
      build.cpu_limit > 0.0 ? py::object(py::float_(build.cpu_limit)) : py::none();
  result["local_ranks"] = build.local_ranks;
  result["cpu_kernels"] = build.cpu_kernels;
  result["cuda"] = build.cuda;
  result["cuda_runtime_version"] = build.cuda_runtime_version;
  std::string why_none;
  py::list devices;
  for (const DeviceInfo& device : list_devices(&why_none)) {
    py::dict entry;
    entry["ordinal"] = device.ordinal;
    entry["name"] = device.name;
    entry["total_memory_bytes"] = device.total_memory_bytes;
    entry["compute_capability"] =
        std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor);
    devices.append(entry);
  }
  result["gpus"] = devices;
  result["gpu_unavailable_reason"] = devices.empty() ? py::object(py::str(why_none)) : py::none();
  result["pybind11"] = std::to_string(PYBIND11_VERSION_MAJOR) + "." +
                       std::to_string(PYBIND11_VERSION_MINOR) + "." +
                       std::to_string(PYBIND11_VERSION_PATCH);
  return result;
}

std::pair<bool, std::string> gpu_status() {
  std::string why_not;
  const bool usable = gpu_usable(&why_not);
  return {usable, why_not};
}

}  // namespace
}  // namespace coreset::python

PYBIND11_MODULE(_core, module) {
  namespace cp = coreset::python;
  module.doc() = "libcoreset's engine; use the functions of the coreset package.";
  cp::register_error_translation();
  module.attr("__version__") = coreset::version();
  module.def("build", &cp::build, py::arg("x"), py::arg("y"), py::arg("keywords"),
             py::arg("progress"));
  module.def("sweep", &cp::sweep, py::arg("x"), py::arg("y"), py::arg("keywords"), py::arg("ks"),
             py::arg("progress"));
  module.def("build_auto", &cp::build_auto, py::arg("x"), py::arg("y"), py::arg("keywords"),
             py::arg("metric"), py::arg("value"), py::arg("progress"));
  module.def("evaluate", &cp::evaluate, py::arg("x"), py::arg("y"), py::arg("keywords"),
             py::arg("indices"), py::arg("weights"), py::arg("progress"));
  module.def("solve_phi", &cp::solve_phi, py::arg("phi"), py::arg("y"), py::arg("keywords"),
             py::arg("progress"));
  module.def("solve_loglik", &cp::solve_loglik, py::arg("loglik"), py::arg("y"),
             py::arg("keywords"), py::arg("progress"));
  module.def("log_likelihoods", &cp::log_likelihoods, py::arg("x"), py::arg("y"),
             py::arg("keywords"), py::arg("parameters"));
  module.def("synthetic_logistic", &cp::synthetic_logistic, py::arg("rows"), py::arg("seed"));
  module.def("info", &cp::info);
  cp::register_device_arrays(module);
  module.def("gpu_status", &cp::gpu_status);
}
