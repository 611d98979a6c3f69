// Options given on the command line that the run does not use: --noise-sd on a logistic model,
// --max-iter with giga, --rbf-scales without --rbf. The run goes on (a script that loops over
// algorithms or models with one set of options is legitimate use), and each such option gets a
// notice on stderr, so that nobody believes an option took effect when it did not.
//
// Options that cannot be combined at all are errors where they are checked (the dataset reader:
// a delimiter for .npy; the model: RBF features on a logistic model; build: --target-kl without
// -k auto), not here.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/model_options.hpp"

namespace coreset::cli {

struct UnusedOption {
  std::string option;  // as given on the command line, e.g. "--noise-sd"
  std::string reason;  // why the run does not use it, e.g. "the logistic model has no noise"
};

/// The model and dataset options given on `command` that `args` leave unused, in the help's
/// order. `args.model` must name a model (parse_model).
std::vector<UnusedOption> unused_model_options(const CLI::App& command, const ModelArguments& args);

/// The solver options given on `command` that `algorithm` (a name parse_build_algorithm takes)
/// does not use with `batch_fraction`, in the help's order. Options `command` does not have are
/// skipped. `seed_is_the_solvers`: --seed seeds the solver alone (solve; build's seeds the
/// sampling too).
std::vector<UnusedOption> unused_solver_options(const CLI::App& command,
                                                const std::string& algorithm, double batch_fraction,
                                                bool seed_is_the_solvers);

/// `option` with `reason` when it was given on `command`; nothing otherwise.
std::vector<UnusedOption> unused_if_given(const CLI::App& command, const char* option,
                                          const std::string& reason);

/// One line on stderr for each, "coreset: notice: --noise-sd has no effect: ...", unless --quiet.
void print_unused_options(const std::vector<UnusedOption>& unused);

}  // namespace coreset::cli
