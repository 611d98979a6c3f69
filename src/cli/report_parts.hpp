// The pieces the reports of every command are made of (report.cpp), shared with the reports of
// `sweep` and `build -k auto` (sweep_report.cpp), so a field means the same in each.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cli/report.hpp"
#include "coreset/build.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli::report_parts {

using Json = nlohmann::ordered_json;

/// printf into a string (at most 511 characters).
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
/// {"tool", "version", "command"}.
Json header(const char* command);
/// What ran the job: backend, GPU, CPU kernels, threads, compiler, build type.
Json runtime_json(int threads_requested, Device device = Device::cpu);
/// max_iterations, tolerance, batch_fraction and refit, as every report with a solver has them.
void add_solver_settings(Json& report, const SolverSettings& options);
/// The solver's options and outcome, as every report that ran a solve has them.
void add_solve_fields(Json& report, const SolverSettings& options, const SolveResult& result);
/// SparseVI's settings as requested and as in effect for the model.
Json sparsevi_json(const SparseViOptions& options, ModelKind model);
Json quality_json(const Quality& quality);
Json coreset_json(const Coreset& coreset);
/// The data, model and pi-hat options of a build-like command.
Json build_input_json(const BuildInputs& inputs);
/// The summary's projection and posterior lines.
std::string quality_lines(const Quality& quality);
/// "a-iht-2 (step rule exact)"; the baselines have no step rule.
std::string solver_label(const SolveResult& result);
/// build -k auto's search: the target, the budgets tried in order, the one chosen
/// (sweep_report.cpp).
Json choose_k_json(const ChooseKResult& search, const KTarget& target);

}  // namespace coreset::cli::report_parts
