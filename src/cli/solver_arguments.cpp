#include "cli/solver_arguments.hpp"

#include "cli/option_checks.hpp"

#include <cerrno>
#include <cstdlib>

#include "coreset/error.hpp"

namespace coreset::cli {

index_t parse_budget(const std::string& text, const char* option) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || value < 1) {
    throw InvalidArgument(std::string(option) + ": '" + text +
                          "' is not a budget (an integer >= 1)");
  }
  return static_cast<index_t>(value);
}

void add_solver_arguments(CLI::App* command, SolverArguments& args) {
  command
      ->add_option("--algorithm", args.algorithm,
                   "iht, a-iht, a-iht-2 (sparse regression) or giga, fw, is, uniform, sparsevi "
                   "(baselines)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-steps", args.sparsevi.steps,
                   "sparsevi: gradient steps per selection T; 0 = the papers' 100 (gaussian, "
                   "linear) or 500 (logistic, poisson)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-learning-rate", args.sparsevi.learning_rate,
                   "sparsevi: gamma_t = RATE / t; 0 = the papers' 1 (gaussian, linear) or 0.5 "
                   "(logistic, poisson)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-samples", args.sparsevi.samples,
                   "sparsevi: fresh draws from the coreset posterior per selection and per step")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-optimizer", args.sparsevi_optimizer,
                   "sparsevi: adam (the authors' code) or sgd (plain SGD as printed)")
      ->capture_default_str();
  command->add_option("--step-rule", args.step_rule, "exact, reference (authors' code) or paper")
      ->capture_default_str();
  command->add_option("--max-iter", args.max_iterations, "iteration cap (iht, a-iht, a-iht-2)")
      ->capture_default_str()
      ->check(max_iterations_range());
  command->add_option("--tol", args.tolerance, "relative-change tolerance (iht, a-iht, a-iht-2)")
      ->capture_default_str()
      ->check(non_negative());
  command
      ->add_option("--batch-fraction", args.batch_fraction,
                   "batch A-IHT (a-iht, a-iht-2): gradients on this random fraction of the rows, "
                   "redrawn per iteration (the papers: 0.2); 0 = the full gradient")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  command
      ->add_option("--sync-every", args.sync_every,
                   "a-iht, a-iht-2: iterations per host look at the solve; on a GPU they run as a "
                   "replayed CUDA graph with the stopping rule on the device; same result for "
                   "any value; 1 = every iteration, 0 = 16 on a GPU, 1 on the CPU")
      ->capture_default_str()
      ->check(sync_every_range());
  command->add_flag("--refit", args.refit,
                    "after any algorithm: refit the weights by non-negative least squares on the "
                    "chosen support (f can only fall; f before and after are reported)");
}

void apply_solver_arguments(const SolverArguments& args, BuildSolverOptions& solver) {
  solver.algorithm = parse_build_algorithm(args.algorithm);
  solver.step_rule = parse_step_rule(args.step_rule);
  solver.max_iterations = args.max_iterations;
  solver.tolerance = args.tolerance;
  solver.batch_fraction = args.batch_fraction;
  solver.sync_every = args.sync_every;
  solver.refit = args.refit;
  solver.sparsevi = args.sparsevi;
  solver.sparsevi.optimizer = parse_sparsevi_optimizer(args.sparsevi_optimizer);
}

}  // namespace coreset::cli
