#include "cli/unused_options.hpp"

#include <cstdio>

#include "cli/terminal.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"

namespace coreset::cli {
namespace {

bool given(const CLI::App& command, const char* option) {
  const CLI::Option* found = command.get_option_no_throw(option);
  return found != nullptr && found->count() > 0;
}

// Appends `option` with `reason` when it was given.
void note_if_given(std::vector<UnusedOption>& unused, const CLI::App& command, const char* option,
                   const std::string& reason) {
  if (given(command, option)) {
    unused.push_back({option, reason});
  }
}

}  // namespace

std::vector<UnusedOption> unused_model_options(const CLI::App& command,
                                               const ModelArguments& args) {
  std::vector<UnusedOption> unused;
  const ModelKind kind = parse_model(args.model);
  const std::string model = "the " + to_string(kind) + " model";
  if (args.data_path.empty()) {
    for (const char* option : {"--format", "--response", "--delimiter", "--features"}) {
      note_if_given(unused, command, option, "no --data: the built-in dataset is read");
    }
  } else if (kind == ModelKind::gaussian) {
    note_if_given(unused, command, "--response", model + " has no response");
  }
  if (kind == ModelKind::gaussian) {
    note_if_given(unused, command, "--no-intercept", model + " has no intercept");
  } else if (kind == ModelKind::linear && args.rbf) {
    note_if_given(unused, command, "--no-intercept",
                  "the RBF features have no intercept (their near-constant basis plays its role)");
  }
  if (!args.prior_covariance_path.empty()) {
    note_if_given(unused, command, "--prior-sd", "--prior-covariance overrides it");
  }
  if (kind != ModelKind::gaussian && kind != ModelKind::linear) {
    note_if_given(unused, command, "--noise-sd", model + " has no observation noise");
  } else if (!args.noise_covariance_path.empty()) {
    note_if_given(unused, command, "--noise-sd", "--noise-covariance overrides it");
  }
  if (!args.rbf) {
    for (const char* option : {"--rbf-centers", "--rbf-scales", "--rbf-constant-scale"}) {
      note_if_given(unused, command, option, "no --rbf");
    }
  }
  if (!args.pihat.empty() && args.pihat.front().rfind("samples", 0) == 0) {
    note_if_given(unused, command, "--samples",
                  "the draws of --pihat samples FILE are the samples");
  }
  return unused;
}

std::vector<UnusedOption> unused_solver_options(const CLI::App& command,
                                                const std::string& algorithm, double batch_fraction,
                                                bool seed_is_the_solvers) {
  std::vector<UnusedOption> unused;
  const BuildAlgorithm chosen = parse_build_algorithm(algorithm);
  const std::string by = "--algorithm " + to_string(chosen) + " does not use it";
  if (chosen != BuildAlgorithm::sparsevi) {
    for (const char* option : {"--sparsevi-steps", "--sparsevi-learning-rate", "--sparsevi-samples",
                               "--sparsevi-optimizer"}) {
      note_if_given(unused, command, option, by);
    }
  }
  const bool accelerated = chosen == BuildAlgorithm::aiht || chosen == BuildAlgorithm::aiht2;
  if (!accelerated) {
    note_if_given(unused, command, "--step-rule", by);  // iht's step is fixed
  }
  if (!is_iht_family(chosen)) {
    for (const char* option : {"--max-iter", "--tol", "--batch-fraction"}) {
      note_if_given(unused, command, option, by);  // iht refuses a batch fraction itself
    }
  }
  const bool batches = accelerated && batch_fraction > 0.0 && batch_fraction < 1.0;
  if (!accelerated) {
    note_if_given(unused, command, "--sync-every", by);
  } else if (batches) {
    note_if_given(unused, command, "--sync-every", "batch solves look at every iteration");
  }
  // The solver's draws: iht's power iteration, is's and uniform's samples, the batches.
  const bool draws = chosen == BuildAlgorithm::iht ||
                     chosen == BuildAlgorithm::importance_sampling ||
                     chosen == BuildAlgorithm::uniform || batches;
  if (seed_is_the_solvers && !draws) {
    note_if_given(unused, command, "--seed", by + " (it draws nothing)");
  }
  return unused;
}

std::vector<UnusedOption> unused_if_given(const CLI::App& command, const char* option,
                                          const std::string& reason) {
  std::vector<UnusedOption> unused;
  note_if_given(unused, command, option, reason);
  return unused;
}

void print_unused_options(const std::vector<UnusedOption>& unused) {
  if (quiet()) {  // --quiet: errors only
    return;
  }
  for (const UnusedOption& option : unused) {
    std::fprintf(stderr, "coreset: notice: %s has no effect: %s\n", option.option.c_str(),
                 option.reason.c_str());
  }
}

}  // namespace coreset::cli
