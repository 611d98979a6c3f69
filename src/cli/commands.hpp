// The subcommands of `coreset`. Each registers its options on the parser and runs after
// parsing; errors propagate as coreset exceptions, which main() maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace coreset::cli {

/// Adds `solve` to `app`; the returned action runs it once the command line is parsed.
std::function<int()> add_solve_command(CLI::App& app);
/// Adds `build` to `app`.
std::function<int()> add_build_command(CLI::App& app);
/// Adds `evaluate` to `app`.
std::function<int()> add_evaluate_command(CLI::App& app);
/// Adds `sweep` to `app`.
std::function<int()> add_sweep_command(CLI::App& app);
/// Adds `experiment` to `app`.
std::function<int()> add_experiment_command(CLI::App& app);
/// Adds `info` to `app`.
std::function<int()> add_info_command(CLI::App& app);

}  // namespace coreset::cli
