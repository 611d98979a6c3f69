// The command's JSON reports (coreset/report.hpp): one function per command, built from the
// same few pieces so that a field means the same in every report.
#include "coreset/report.hpp"

#include <nlohmann/json.hpp>

#include "coreset/version.hpp"

namespace coreset {
namespace {

using Json = nlohmann::ordered_json;

Json header(const char* command) {
  Json report;
  report["tool"] = "coreset";
  report["version"] = version();
  report["command"] = command;
  return report;
}

Json path_or_null(const std::string& path) {
  return path.empty() ? Json(nullptr) : Json(path);
}

// What ran the job. With the version, the options and the seed it pins the output: the same
// runtime gives the same bits (the CPU kernel set can change the last bits of Phi).
Json runtime_json(int threads_requested, Device device = Device::cpu) {
  const BuildInfo info = build_info();
  Json gpu = nullptr;
  if (device == Device::gpu) {
    const auto devices = list_devices();
    gpu = devices.empty() ? Json("unknown") : Json(devices.front().name);
  }
  return {{"backend", to_string(device)},
          {"gpu", gpu},
          {"cpu_kernels", info.cpu_kernels},
          {"threads", threads_requested > 0 ? threads_requested : info.threads},
          {"threads_requested", threads_requested},
          {"compiler", info.compiler},
          {"build_type", info.build_type}};
}

// The solver's options and outcome: the same fields in every report that ran a solve.
void add_solve_fields(Json& report, const SolverSettings& options, const SolveResult& result) {
  report["algorithm"] = to_string(result.algorithm);
  report["step_rule"] = to_string(result.step_rule);
  report["k_requested"] = options.k;
  report["k"] = result.k;
  report["max_iterations"] = options.max_iterations;
  report["tolerance"] = options.tolerance;
  report["batch_fraction"] = options.batch_fraction;
  report["refit"] = options.refit;
  report["support_size"] = result.coreset.size();
  report["iterations"] = result.iterations;
  report["converged"] = result.converged;
  report["stop_reason"] = to_string(result.stop_reason);
  report["objective"] = result.objective;
  report["objective_before_refit"] = result.objective_before_refit;
  report["relative_error"] = result.relative_error;
  report["target_norm"] = result.target_norm;
  if (result.algorithm == BuildAlgorithm::iht) {
    report["lipschitz"] = result.lipschitz;
  }
  report["objective_history"] = result.objective_history;
}

// SparseVI's settings as run: the requested values (0 = the model's default) and the values in
// effect for this model, so a report alone says how its coreset was made.
Json sparsevi_json(const SparseViOptions& options, ModelKind model) {
  const SparseViOptions used = effective_sparsevi_options(options, model);
  return {{"steps", used.steps},
          {"steps_requested", options.steps},
          {"learning_rate", used.learning_rate},
          {"learning_rate_requested", options.learning_rate},
          {"samples", used.samples},
          {"optimizer", to_string(used.optimizer)}};
}

Json quality_json(const Quality& quality) {
  return {{"relative_projection_error", quality.relative_projection_error},
          {"forward_kl", quality.forward_kl},
          {"reverse_kl", quality.reverse_kl},
          {"symmetric_kl", quality.symmetric_kl},
          {"map_distance", quality.map_distance},
          {"posterior_method", quality.posterior_method}};
}

Json coreset_json(const Coreset& coreset) {
  return {{"indices", coreset.indices}, {"weights", coreset.weights}};
}

Json build_input_json(const BuildReportInputs& inputs) {
  const ModelOptions& model = inputs.options.model;
  Json input = {
      {"data", inputs.data_description}, {"rows", inputs.rows},
      {"covariates", inputs.covariates}, {"response", inputs.response_name},
      {"model", to_string(model.kind)},  {"intercept", model.intercept},
      {"prior_sd", model.prior_sd},      {"noise_sd", model.noise_sd},
      {"rbf", model.rbf.enabled},        {"precision", to_string(inputs.options.precision)}};
  input["prior_covariance"] = path_or_null(inputs.prior_covariance_path);
  input["noise_covariance"] = path_or_null(inputs.noise_covariance_path);
  if (model.rbf.enabled) {
    input["rbf_centers_per_scale"] = model.rbf.centers_per_scale;
    input["rbf_scales"] = model.rbf.scales;
    input["rbf_near_constant_basis"] = model.rbf.near_constant_basis;
    input["rbf_near_constant_scale"] = model.rbf.near_constant_scale;
  }
  input["pihat_requested"] = to_string(inputs.options.pihat);
  input["pihat_samples_file"] = path_or_null(inputs.options.user_samples_source);
  input["samples_requested"] = inputs.options.samples;
  return input;
}

}  // namespace

std::string solve_report_json(const SolveReportInputs& inputs, const SolveResult& result) {
  Json report = header("solve");
  report["input"] = {{"phi", path_or_null(inputs.phi_path)},
                     {"loglik", path_or_null(inputs.loglik_path)},
                     {"y", path_or_null(inputs.y_path)},
                     {"rows", inputs.rows},
                     {"cols", inputs.cols},
                     {"precision", to_string(inputs.precision)}};
  add_solve_fields(report, inputs.options, result);
  report["seed"] = inputs.options.seed;
  report["runtime"] = runtime_json(inputs.options.threads, result.device);
  report["seconds"] = result.seconds;
  report["coreset"] = coreset_json(result.coreset);
  return report.dump(2) + "\n";
}

std::string build_report_json(const BuildReportInputs& inputs, const BuildResult& result) {
  Json report = header("build");
  report["input"] = build_input_json(inputs);
  report["parameters"] = result.parameters;
  report["parameter_names"] = result.parameter_names;
  report["pihat"] = to_string(result.pihat);
  report["samples"] = result.samples;
  report["seed"] = inputs.options.seed;
  report["runtime"] = runtime_json(inputs.options.solver.threads, result.solve.device);
  add_solve_fields(report, inputs.options.solver, result.solve);
  if (result.solve.algorithm == BuildAlgorithm::sparsevi) {
    report["sparsevi"] = sparsevi_json(inputs.options.solver.sparsevi, inputs.options.model.kind);
  }
  report["quality"] = quality_json(result.quality);
  const StageSeconds& s = result.seconds;
  report["seconds"] = {{"pihat", s.pihat},
                       {"sampling", s.sampling},
                       {"projection", s.projection},
                       {"solve", s.solve},
                       {"evaluation", s.evaluation},
                       {"total", s.pihat + s.sampling + s.projection + s.solve + s.evaluation}};
  report["full_posterior_mean"] = result.full_posterior_mean;
  report["coreset_posterior_mean"] = result.coreset_posterior_mean;
  report["coreset"] = coreset_json(result.solve.coreset);
  return report.dump(2) + "\n";
}

std::string evaluate_report_json(const BuildReportInputs& inputs, const std::string& coreset_source,
                                 const Coreset& coreset, const Quality& quality) {
  Json report = header("evaluate");
  report["input"] = build_input_json(inputs);
  report["coreset_file"] = coreset_source;
  report["support_size"] = coreset.size();
  report["pihat"] = to_string(inputs.options.pihat);
  report["samples"] = inputs.options.samples;
  report["seed"] = inputs.options.seed;
  report["runtime"] = runtime_json(inputs.options.solver.threads);
  report["quality"] = quality_json(quality);
  return report.dump(2) + "\n";
}

}  // namespace coreset
