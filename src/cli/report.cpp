#include "cli/report.hpp"

#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

#include "cli/report_parts.hpp"
#include "coreset/version.hpp"

namespace coreset::cli {
namespace report_parts {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char buffer[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

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
Json runtime_json(int threads_requested, Device device) {
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

void add_solver_settings(Json& report, const SolverSettings& options) {
  report["max_iterations"] = options.max_iterations;
  report["tolerance"] = options.tolerance;
  report["batch_fraction"] = options.batch_fraction;
  report["refit"] = options.refit;
}

// The solver's options and outcome: the same fields in every report that ran a solve.
void add_solve_fields(Json& report, const SolverSettings& options, const SolveResult& result) {
  report["algorithm"] = to_string(result.algorithm);
  report["step_rule"] = to_string(result.step_rule);
  report["k_requested"] = options.k;
  report["k"] = result.k;
  add_solver_settings(report, options);
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

Json build_input_json(const BuildInputs& inputs) {
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

std::string total_weight(const Coreset& coreset) {
  return format("%.6g", std::accumulate(coreset.weights.begin(), coreset.weights.end(), 0.0));
}

std::string coreset_listing(const Coreset& coreset) {
  std::string text = "index,weight\n";
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    text += format("%lld,%.17g\n", static_cast<long long>(coreset.indices[p]), coreset.weights[p]);
  }
  return text;
}

std::string quality_lines(const Quality& quality) {
  std::string text;
  text +=
      format("  projection:     ||y - Phi w|| / ||y|| = %.6g\n", quality.relative_projection_error);
  text += format("  posterior (%s): KL(full || coreset) = %.6g, KL(coreset || full) = %.6g,\n",
                 quality.posterior_method.c_str(), quality.forward_kl, quality.reverse_kl);
  text += format("                  symmetrised %.6g; MAP distance %.6g\n", quality.symmetric_kl,
                 quality.map_distance);
  return text;
}

// "a-iht-2 (step rule exact)"; the baselines have no step rule.
std::string solver_label(const SolveResult& result) {
  return is_iht_family(result.algorithm)
             ? to_string(result.algorithm) + " (step rule " + to_string(result.step_rule) + ")"
             : to_string(result.algorithm);
}

std::string stop_line(const SolveResult& result) {
  const bool sampler = result.algorithm == BuildAlgorithm::importance_sampling ||
                       result.algorithm == BuildAlgorithm::uniform;
  if (result.stop_reason == StopReason::budget && sampler) {
    return format("  stopped:        budget (one pass of k = %lld draws)\n",
                  static_cast<long long>(result.k));
  }
  const bool step_limit =
      result.stop_reason == StopReason::max_iterations && !is_iht_family(result.algorithm);
  const char* outcome = result.stop_reason == StopReason::budget ? "all k steps taken"
                        : step_limit       ? "the step limit 1000 + 100 n, for k far above n"
                        : result.converged ? "converged"
                                           : "NOT converged: raise --max-iter";
  return format("  stopped:        %s after %d iterations (%s)\n",
                to_string(result.stop_reason).c_str(), result.iterations, outcome);
}

// With --refit: f at the algorithm's weights and after the NNLS refit on their support.
std::string refit_line(const SolverSettings& options, const SolveResult& result) {
  if (!options.refit) {
    return "";
  }
  return format("  refit:          NNLS on the support: f = %.6g before, %.6g after\n",
                result.objective_before_refit, result.objective);
}

// When the coreset has fewer points than the budget, why (README, "Fewer than k points").
std::string fewer_points_line(const SolverSettings& options, const SolveResult& result) {
  if (result.coreset.size() >= result.k) {
    return "";
  }
  const char* why = "a point chosen again is reweighted, not added";
  if (is_iht_family(result.algorithm)) {
    why =
        "no other point lowers f (copies of a chosen datapoint and datapoints whose "
        "log-likelihood does not vary are never chosen)";
  } else if (result.algorithm == BuildAlgorithm::importance_sampling ||
             result.algorithm == BuildAlgorithm::uniform) {
    why = "repeated draws of a point merge into one weight";
  }
  return format("  note:           %lld points, fewer than k = %lld: %s%s\n",
                static_cast<long long>(result.coreset.size()), static_cast<long long>(result.k),
                why, options.refit ? "; the refit drops points whose best weight is 0" : "");
}

}  // namespace report_parts

using namespace report_parts;

std::string render_solve_report(const SolveInputs& inputs, const SolveResult& result) {
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

std::string render_coreset_listing(const Coreset& coreset) {
  return coreset_listing(coreset);
}

std::string render_solve_summary(const SolveInputs& inputs, const SolveResult& result,
                                 bool list_coreset) {
  std::string text;
  text +=
      format("coreset solve: %s, k = %lld, Phi %lld x %lld (%s)\n", solver_label(result).c_str(),
             static_cast<long long>(result.k), static_cast<long long>(inputs.rows),
             static_cast<long long>(inputs.cols), to_string(inputs.precision).c_str());
  text += stop_line(result);
  text += format("  objective:      ||y - Phi w||^2 = %.6g\n", result.objective);
  text += refit_line(inputs.options, result);
  text += format("  relative error: ||y - Phi w|| / ||y|| = %.6g\n", result.relative_error);
  text += format("  coreset:        %lld of %lld datapoints, total weight %s\n",
                 static_cast<long long>(result.coreset.size()), static_cast<long long>(inputs.cols),
                 total_weight(result.coreset).c_str());
  text += fewer_points_line(inputs.options, result);
  text += format("  time:           %.3f s\n", result.seconds);
  return list_coreset ? text + coreset_listing(result.coreset) : text;
}

std::string render_build_report(const BuildInputs& inputs, const BuildResult& result,
                                const ChooseKResult* search, const KTarget* target) {
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
  if (search != nullptr && target != nullptr) {
    report["choose_k"] = choose_k_json(*search, *target);
  }
  return report.dump(2) + "\n";
}

std::string render_build_summary(const BuildInputs& inputs, const BuildResult& result,
                                 bool list_coreset) {
  const SolveResult& solve = result.solve;
  const StageSeconds& s = result.seconds;
  std::string text;
  text += format("coreset build: %s model on %s (%lld rows, %lld parameters)\n",
                 to_string(inputs.options.model.kind).c_str(), inputs.data_description.c_str(),
                 static_cast<long long>(inputs.rows), static_cast<long long>(result.parameters));
  text += format("  pi-hat:         %s, S = %lld samples (seed %llu)\n",
                 to_string(result.pihat).c_str(), static_cast<long long>(result.samples),
                 static_cast<unsigned long long>(inputs.options.seed));
  text += format("  solver:         %s, k = %lld\n", solver_label(solve).c_str(),
                 static_cast<long long>(solve.k));
  text += stop_line(solve);
  text += refit_line(inputs.options.solver, solve);
  text += format("  coreset:        %lld of %lld rows, total weight %s\n",
                 static_cast<long long>(solve.coreset.size()), static_cast<long long>(inputs.rows),
                 total_weight(solve.coreset).c_str());
  text += fewer_points_line(inputs.options.solver, solve);
  text += quality_lines(result.quality);
  text += format(
      "  time:           %.3f s (pi-hat %.3f, sampling %.3f, projection %.3f, solve %.3f, "
      "evaluation %.3f)\n",
      s.pihat + s.sampling + s.projection + s.solve + s.evaluation, s.pihat, s.sampling,
      s.projection, s.solve, s.evaluation);
  return list_coreset ? text + coreset_listing(solve.coreset) : text;
}

std::string render_evaluate_report(const BuildInputs& inputs, const std::string& coreset_path,
                                   const Coreset& coreset, const Quality& quality) {
  Json report = header("evaluate");
  report["input"] = build_input_json(inputs);
  report["coreset_file"] = coreset_path;
  report["support_size"] = coreset.size();
  report["pihat"] = to_string(inputs.options.pihat);
  report["samples"] = inputs.options.samples;
  report["seed"] = inputs.options.seed;
  report["runtime"] = runtime_json(inputs.options.solver.threads);
  report["quality"] = quality_json(quality);
  return report.dump(2) + "\n";
}

std::string render_evaluate_summary(const BuildInputs& inputs, const std::string& coreset_path,
                                    const Coreset& coreset, const Quality& quality) {
  std::string text;
  text += format("coreset evaluate: %s (%lld rows, total weight %s) for the %s model on %s\n",
                 coreset_path.c_str(), static_cast<long long>(coreset.size()),
                 total_weight(coreset).c_str(), to_string(inputs.options.model.kind).c_str(),
                 inputs.data_description.c_str());
  return text + quality_lines(quality);
}

}  // namespace coreset::cli
