// The solver options `build` and `sweep` share (everything but -k, whose meaning differs: one
// budget or auto for build, a list for sweep).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "coreset/build.hpp"

namespace coreset::cli {

struct SolverArguments {
  std::string algorithm = "a-iht-2";
  std::string step_rule = "exact";
  int max_iterations = 300;
  double tolerance = 1e-5;
  double batch_fraction = 0.0;
  int sync_every = 0;  // 0 = the device's default
  bool refit = false;
  SparseViOptions sparsevi;  // --sparsevi-*: 0 steps or rate = the model's default
  std::string sparsevi_optimizer = "adam";
};

/// Registers --algorithm, --sparsevi-*, --step-rule, --max-iter, --tol, --batch-fraction,
/// --sync-every and --refit on `command`.
void add_solver_arguments(CLI::App* command, SolverArguments& args);

/// A budget k on the command line: an integer >= 1; InvalidArgument naming `option` otherwise.
index_t parse_budget(const std::string& text, const char* option);

/// The arguments into `solver` (names parsed: InvalidArgument for an unknown one); solver.k
/// is left as it is.
void apply_solver_arguments(const SolverArguments& args, BuildSolverOptions& solver);

}  // namespace coreset::cli
