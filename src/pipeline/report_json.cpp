// The command's JSON reports (coreset/report.hpp): one function per command, built from the
// same few pieces so that a field means the same in every report.
#include "coreset/report.hpp"

#include <nlohmann/json.hpp>

#include "coreset/distributed.hpp"
#include "coreset/version.hpp"
#include "models/model.hpp"
#include "support/json_text.hpp"

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
// The ranks of a distributed solve or build and the columns (datapoints) each held
// (datapoint_range's split of n); null for one process.
// `devices`: where each rank ran (SolveResult::rank_devices); none: every rank on the CPU.
Json distributed_json(const Communicator* comm, index_t n,
                      const std::vector<std::string>& devices = {}) {
  if (comm == nullptr) {
    return nullptr;
  }
  Json columns = Json::array();
  Json device = Json::array();
  for (int r = 0; r < comm->size(); ++r) {
    columns.push_back(datapoint_range(n, r, comm->size()).count);
    device.push_back(devices.empty() ? std::string("cpu")
                                     : devices.at(static_cast<std::size_t>(r)));
  }
  return {{"ranks", comm->size()},
          {"communicator", comm->description()},
          {"device_per_rank", device},
          {"columns_per_rank", columns}};
}

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

// The solver's settings, as every report with a solver has them.
void add_solver_settings(Json& report, const SolverSettings& options) {
  report["max_iterations"] = options.max_iterations;
  report["tolerance"] = options.tolerance;
  report["batch_fraction"] = options.batch_fraction;
  report["sync_every"] = options.sync_every;
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
  report["host_looks"] = result.host_looks;
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
    // The centres the basis has (fewer than asked for on a dataset of fewer rows), and the ask.
    input["rbf_centers_per_scale"] = models::rbf_centres_per_scale(model.rbf, inputs.rows);
    input["rbf_centers_per_scale_requested"] = model.rbf.centers_per_scale;
    input["rbf_scales"] = model.rbf.scales;
    input["rbf_near_constant_basis"] = model.rbf.near_constant_basis;
    input["rbf_near_constant_scale"] = model.rbf.near_constant_scale;
  }
  input["pihat_requested"] = to_string(inputs.options.pihat);
  input["pihat_samples_file"] = path_or_null(inputs.options.user_samples_source);
  input["samples_requested"] = inputs.options.samples;
  return input;
}

// One budget of a sweep or of build -k auto's search.
Json budget_json(const BudgetRun& budget) {
  const SolveResult& solve = budget.run.solve;
  return {{"k", budget.k},
          {"support", solve.coreset.size()},
          {"warm_start_from",
           budget.warm_start_from == 0 ? Json(nullptr) : Json(budget.warm_start_from)},
          {"iterations", solve.iterations},
          {"converged", solve.converged},
          {"stop_reason", to_string(solve.stop_reason)},
          {"objective", solve.objective},
          {"quality", quality_json(budget.run.quality)},
          {"seconds", budget.seconds}};
}

// build -k auto's search: the target, the budgets tried in order, the one chosen.
Json choose_k_json(const ChooseKResult& search, const KTarget& target) {
  Json tried = Json::array();
  for (const BudgetRun& budget : search.tried) {
    Json entry = budget_json(budget);
    entry["value"] = metric_value(budget.run.quality, target.metric);
    entry["reached"] = metric_value(budget.run.quality, target.metric) <= target.value;
    tried.push_back(entry);
  }
  return {{"metric", to_string(target.metric)},
          {"target", target.value},
          {"reached", search.reached},
          {"k", search.result().k},
          {"search", "doubling 1, 2, 4, ... then bisection; IHT family warm-started"},
          {"tried", tried},
          {"seconds", search.seconds}};
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
  report["distributed"] =
      distributed_json(inputs.options.communicator.get(), inputs.cols, result.rank_devices);
  report["seconds"] = result.seconds;
  report["coreset"] = coreset_json(result.coreset);
  return support::json_text(report);
}

namespace {

// The build report as an object, so that build -k auto can add its search before it is written.
Json build_report(const BuildReportInputs& inputs, const BuildResult& result) {
  Json report = header("build");
  report["input"] = build_input_json(inputs);
  report["parameters"] = result.parameters;
  report["parameter_names"] = result.parameter_names;
  report["pihat"] = to_string(result.pihat);
  report["samples"] = result.samples;
  report["seed"] = inputs.options.seed;
  report["runtime"] = runtime_json(inputs.options.solver.threads, result.solve.device);
  report["distributed"] = distributed_json(inputs.options.solver.communicator.get(), inputs.rows,
                                           result.solve.rank_devices);
  add_solve_fields(report, inputs.options.solver, result.solve);
  if (result.solve.algorithm == BuildAlgorithm::sparsevi) {
    report["sparsevi"] = sparsevi_json(inputs.options.solver.sparsevi, inputs.options.model.kind);
  }
  report["quality"] = quality_json(result.quality);
  const StageSeconds& s = result.seconds;
  report["seconds"] = {{"setup", s.setup},       {"pihat", s.pihat},
                       {"sampling", s.sampling}, {"projection", s.projection},
                       {"solve", s.solve},       {"evaluation", s.evaluation},
                       {"total", s.total()}};
  report["full_posterior_mean"] = result.full_posterior_mean;
  report["coreset_posterior_mean"] = result.coreset_posterior_mean;
  report["coreset"] = coreset_json(result.solve.coreset);
  return report;
}

}  // namespace

std::string build_report_json(const BuildReportInputs& inputs, const BuildResult& result) {
  return support::json_text(build_report(inputs, result));
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
  return support::json_text(report);
}

std::string build_report_json(const BuildReportInputs& inputs, const BuildResult& result,
                              const ChooseKResult& search, const KTarget& target) {
  Json report = build_report(inputs, result);
  report["choose_k"] = choose_k_json(search, target);
  return support::json_text(report);
}

std::string sweep_report_json(const BuildReportInputs& inputs, const PreparedProblem& problem,
                              const SweepResult& sweep) {
  Json report = header("sweep");
  report["input"] = build_input_json(inputs);
  report["parameters"] = problem.parameters();
  report["parameter_names"] = problem.parameter_names();
  report["pihat"] = to_string(problem.pihat());
  report["samples"] = problem.samples();
  report["seed"] = inputs.options.seed;
  const Device device =
      sweep.budgets.empty() ? Device::cpu : sweep.budgets.front().run.solve.device;
  report["runtime"] = runtime_json(inputs.options.solver.threads, device);
  const BuildSolverOptions& solver = inputs.options.solver;
  report["algorithm"] = to_string(solver.algorithm);
  report["step_rule"] = to_string(solver.step_rule);
  add_solver_settings(report, solver);
  if (solver.algorithm == BuildAlgorithm::sparsevi) {
    report["sparsevi"] = sparsevi_json(solver.sparsevi, inputs.options.model.kind);
  }
  report["warm_starts"] = is_iht_family(solver.algorithm)
                              ? "each k starts from the previous k's coreset"
                          : solver.algorithm == BuildAlgorithm::importance_sampling ||
                                  solver.algorithm == BuildAlgorithm::uniform
                              ? "none: independent draws per k"
                              : "one greedy run to the largest k, recorded at each k";
  const StageSeconds& s = problem.seconds();
  report["seconds"] = {{"setup", s.setup},
                       {"pihat", s.pihat},
                       {"sampling", s.sampling},
                       {"projection", s.projection},
                       {"full_posterior", s.evaluation},
                       {"sweep", sweep.seconds},
                       {"total", s.total() + sweep.seconds}};
  report["full_posterior_mean"] = problem.full_posterior_mean();
  Json budgets = Json::array();
  for (const BudgetRun& budget : sweep.budgets) {
    Json entry = budget_json(budget);
    entry["coreset_posterior_mean"] = budget.run.coreset_posterior_mean;
    budgets.push_back(entry);
  }
  report["budgets"] = budgets;
  return support::json_text(report);
}

}  // namespace coreset
