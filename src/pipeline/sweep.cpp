// coreset::sweep and coreset::choose_k (coreset/sweep.hpp): many budgets on one PreparedProblem,
// written against its public members only; the warm starts are SolverSettings::initial_weights
// and the greedy snapshots PreparedProblem::solve_and_evaluate_budgets.
#include "coreset/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "support/enum_check.hpp"
#include "support/wall_clock.hpp"

namespace coreset {
namespace {

using Clock = support::WallClock;
using support::seconds_since;

bool takes_warm_start(BuildAlgorithm algorithm) {
  return is_iht_family(algorithm);
}

// One budget solved and scored, started from `warm` (IHT family; null: cold, or the caller's
// own solver.initial_weights).
BudgetRun solve_budget(const PreparedProblem& problem, const BuildSolverOptions& solver, index_t k,
                       const BudgetRun* warm) {
  BuildSolverOptions options = solver;
  options.k = k;
  BudgetRun budget;
  budget.k = k;
  if (warm != nullptr && takes_warm_start(solver.algorithm)) {
    options.initial_weights = warm->run.solve.coreset;
    budget.warm_start_from = warm->k;
  }
  budget.run = problem.solve_and_evaluate(options);
  budget.seconds = budget.run.solve_seconds + budget.run.evaluation_seconds;
  return budget;
}

}  // namespace

SweepResult sweep(const PreparedProblem& problem, const BuildSolverOptions& solver,
                  std::vector<index_t> ks) {
  if (ks.empty()) {
    throw InvalidArgument("a sweep needs at least one budget k");
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  if (ks.front() < 1) {
    throw InvalidArgument("k must be at least 1 (got " + std::to_string(ks.front()) + ")");
  }
  const auto start = Clock::now();
  SweepResult result;
  if (takes_warm_start(solver.algorithm)) {
    for (const index_t k : ks) {
      const BudgetRun* warm = result.budgets.empty() ? nullptr : &result.budgets.back();
      result.budgets.push_back(solve_budget(problem, solver, k, warm));
    }
  } else {
    // Greedy: one run, snapshotted (solve_seconds are then times since the run's start, so
    // each budget's share is the difference); is and uniform: one solve per k.
    const bool cumulative = solver.algorithm == BuildAlgorithm::giga ||
                            solver.algorithm == BuildAlgorithm::frank_wolfe ||
                            solver.algorithm == BuildAlgorithm::sparsevi;
    std::vector<CoresetRun> runs = problem.solve_and_evaluate_budgets(solver, ks);
    double previous = 0.0;
    for (std::size_t p = 0; p < ks.size(); ++p) {
      BudgetRun budget;
      budget.k = ks[p];
      const double solve = runs[p].solve_seconds;
      budget.seconds = (cumulative ? solve - previous : solve) + runs[p].evaluation_seconds;
      previous = solve;
      budget.run = std::move(runs[p]);
      result.budgets.push_back(std::move(budget));
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

std::string to_string(TargetMetric metric) {
  switch (metric) {
    case TargetMetric::symmetric_kl:
      return "symmetric_kl";
    case TargetMetric::relative_error:
      return "relative_error";
  }
  return "unknown";
}

double metric_value(const Quality& quality, TargetMetric metric) {
  return metric == TargetMetric::symmetric_kl ? quality.symmetric_kl
                                              : quality.relative_projection_error;
}

ChooseKResult choose_k(const PreparedProblem& problem, const BuildSolverOptions& solver,
                       const KTarget& target) {
  support::check_enum_value(target.metric, "the target's metric");
  if (!(target.value > 0.0) || !std::isfinite(target.value)) {
    throw InvalidArgument("the target " + to_string(target.metric) +
                          " must be a finite number > 0 (got " + std::to_string(target.value) +
                          ")");
  }
  const auto start = Clock::now();
  const index_t n = problem.rows();
  ChooseKResult result;
  const auto reaches = [&](const BudgetRun& budget) {
    return metric_value(budget.run.quality, target.metric) <= target.value;
  };
  // The largest budget known to fail (the warm start of every later solve) and the smallest
  // known to reach, as indices into result.tried.
  std::optional<std::size_t> failed;
  std::optional<std::size_t> reached;
  const auto attempt = [&](index_t k) {
    const BudgetRun* warm = failed ? &result.tried[*failed] : nullptr;
    result.tried.push_back(solve_budget(problem, solver, k, warm));
    (reaches(result.tried.back()) ? reached : failed) = result.tried.size() - 1;
  };
  // Growing: 1, 2, 4, ..., n until one reaches the target.
  for (index_t k = 1; !reached; k = std::min(2 * k, n)) {
    attempt(k);
    if (!reached && k == n) {
      break;
    }
  }
  if (reached) {
    // Bisecting (failed, reached) until adjacent; a failed budget always lies below a reached
    // one, since the growth stopped at the first budget that reached.
    while (failed && result.tried[*reached].k - result.tried[*failed].k > 1) {
      const index_t low = result.tried[*failed].k;
      attempt(low + (result.tried[*reached].k - low) / 2);
    }
    result.reached = true;
    result.chosen = *reached;
  } else {
    for (std::size_t p = 1; p < result.tried.size(); ++p) {
      if (metric_value(result.tried[p].run.quality, target.metric) <
          metric_value(result.tried[result.chosen].run.quality, target.metric)) {
        result.chosen = p;
      }
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace coreset
