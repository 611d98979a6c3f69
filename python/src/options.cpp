#include "options.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "arrays.hpp"
#include "coreset/error.hpp"

namespace py = pybind11;

namespace coreset::python {
namespace {

// keywords[key] as T, or `fallback` when absent or None. A number that T cannot hold (k=2**63,
// seed=-1) is an InvalidArgument naming the keyword (InvalidArgumentError, a ValueError); a value
// of another type, a TypeError naming it.
template <class T>
T get(const py::dict& keywords, const char* key, T fallback) {
  if (!keywords.contains(key) || keywords[key].is_none()) {
    return fallback;
  }
  const py::object value = keywords[key];
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    const std::string shown = py::repr(value);
    if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
      throw InvalidArgument(std::string(key) + ": " + shown + " is out of range");
    }
    throw py::type_error(std::string(key) + ": cannot use " + shown + " here");
  }
}

// A matrix keyword (a 2-D float64 array after coreset/_arrays.py), or 0 x 0 when absent.
Matrix<double> get_matrix(const py::dict& keywords, const char* key) {
  if (!keywords.contains(key) || keywords[key].is_none()) {
    return {};
  }
  return copy_matrix(keywords[key].cast<py::array>(), key);
}

// Prefixes the library's InvalidArgument with the keyword the value came from.
template <class Parse>
auto parse(const py::dict& keywords, const char* key, const char* fallback, Parse parse_value) {
  const std::string value = get<std::string>(keywords, key, fallback);
  try {
    return parse_value(value);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(std::string(key) + ": " + error.what());
  }
}

void fill_settings(const py::dict& keywords, SolverSettings& settings) {
  settings.device = parse(keywords, "device", "cpu", parse_device);
  settings.k = get<index_t>(keywords, "k", settings.k);
  settings.max_iterations = get<int>(keywords, "max_iter", settings.max_iterations);
  settings.tolerance = get<double>(keywords, "tol", settings.tolerance);
  settings.step_rule = parse(keywords, "step_rule", "exact", parse_step_rule);
  settings.threads = get<int>(keywords, "threads", settings.threads);
  settings.batch_fraction = get<double>(keywords, "batch_fraction", settings.batch_fraction);
  settings.sync_every = get<int>(keywords, "sync_every", settings.sync_every);
  settings.refit = get<bool>(keywords, "refit", settings.refit);
}

}  // namespace

BuildOptions build_options(const py::dict& keywords) {
  BuildOptions options;
  ModelOptions& model = options.model;
  model.kind = parse(keywords, "model", "", parse_model);
  model.intercept = get<bool>(keywords, "intercept", model.intercept);
  model.prior_sd = get<double>(keywords, "prior_sd", model.prior_sd);
  model.prior_covariance = get_matrix(keywords, "prior_covariance");
  model.noise_sd = get<double>(keywords, "noise_sd", model.noise_sd);
  model.noise_covariance = get_matrix(keywords, "noise_covariance");
  model.rbf.enabled = get<bool>(keywords, "rbf", model.rbf.enabled);
  model.rbf.centers_per_scale = get<index_t>(keywords, "rbf_centers", model.rbf.centers_per_scale);
  model.rbf.scales = get<std::vector<double>>(keywords, "rbf_scales", model.rbf.scales);
  model.rbf.near_constant_scale =
      get<double>(keywords, "rbf_constant_scale", model.rbf.near_constant_scale);

  fill_settings(keywords, options.solver);
  options.solver.algorithm = parse(keywords, "algorithm", "a-iht-2", parse_build_algorithm);
  SparseViOptions& sparsevi = options.solver.sparsevi;
  sparsevi.steps = get<int>(keywords, "sparsevi_steps", sparsevi.steps);
  sparsevi.learning_rate = get<double>(keywords, "sparsevi_learning_rate", sparsevi.learning_rate);
  sparsevi.samples = get<index_t>(keywords, "sparsevi_samples", sparsevi.samples);
  sparsevi.optimizer = parse(keywords, "sparsevi_optimizer", "adam", parse_sparsevi_optimizer);

  options.samples = get<index_t>(keywords, "samples", options.samples);
  options.pihat = parse(keywords, "pihat", "auto", parse_pihat);
  options.user_samples = get_matrix(keywords, "pihat_samples");
  if (options.user_samples.rows() > 0) {
    options.user_samples_source = "pihat_samples";
  }
  if ((options.pihat == Pihat::samples) != (options.user_samples.rows() > 0)) {
    throw InvalidArgument(options.pihat == Pihat::samples
                              ? "pihat=\"samples\" needs pihat_samples (an S x d array)"
                              : "pihat_samples is only read with pihat=\"samples\"");
  }
  options.seed = get<std::uint64_t>(keywords, "seed", options.seed);
  options.precision = parse(keywords, "precision", "double", parse_precision);
  return options;
}

SolverOptions solver_options(const py::dict& keywords) {
  SolverOptions options;
  fill_settings(keywords, options);
  options.algorithm = parse(keywords, "algorithm", "a-iht-2", parse_algorithm);
  options.seed = get<std::uint64_t>(keywords, "seed", options.seed);
  return options;
}

std::string keyword_text(const py::dict& keywords, const char* key) {
  return keywords.contains(key) && !keywords[key].is_none() ? keywords[key].cast<std::string>()
                                                            : std::string();
}

SolveReportInputs solve_inputs(const py::dict& keywords) {
  SolveReportInputs inputs;
  inputs.phi_path = keyword_text(keywords, "phi_description");
  inputs.loglik_path = keyword_text(keywords, "loglik_description");
  inputs.y_path = keyword_text(keywords, "y_description");
  return inputs;
}

}  // namespace coreset::python
