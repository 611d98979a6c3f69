// Choosing k (issue 19): one prepared problem solved at many budgets, each started from the
// budget below it where the algorithm allows, and the smallest budget whose coreset reaches a
// quality target. Both reuse a PreparedProblem's pi-hat, samples and Phi, computed once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/export.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// One budget of a sweep or of a search for k.
struct CORESET_API BudgetRun {
  index_t k = 0;
  CoresetRun run;  ///< the coreset at k and its quality
  /// The budget whose coreset was this solve's starting iterate (SolverSettings::
  /// initial_weights; IHT family only), or 0: a cold start.
  index_t warm_start_from = 0;
  /// What this budget added to the job's wall time: its solve (for a continued greedy run, the
  /// time since the previous snapshot) plus its evaluation. Over a sweep they add up to
  /// SweepResult::seconds, to timing rounding.
  double seconds = 0.0;
};

/// How a sweep relates its budgets, by algorithm:
///   iht, a-iht, a-iht-2  ascending; each solve starts from the previous budget's coreset (a
///                        k-sparse point is feasible at any larger budget), so it needs fewer
///                        iterations. The result at k then depends on the budgets below it and
///                        may differ from a cold build at k (tests: in the median over seeds it
///                        is at least as good).
///   giga, fw, sparsevi   one greedy run to the largest k, recorded at every k: each is bit for
///                        bit a run to that k alone (PreparedProblem::solve_and_evaluate_budgets).
///   is, uniform          independent draws at each k with the job's seed, as build draws them:
///                        nothing carries over between budgets, and none is needed.
struct CORESET_API SweepResult {
  std::vector<BudgetRun> budgets;  ///< ascending k, duplicates dropped
  double seconds = 0.0;            ///< the solves and evaluations; the preparation is apart
};

/// `solver` with each k of `ks` (solver.k is ignored; solver.initial_weights, if any, starts the
/// smallest budget). InvalidArgument for an empty list or a k < 1, InputError for k > n, and
/// otherwise what PreparedProblem::solve_and_evaluate throws.
CORESET_API SweepResult sweep(const PreparedProblem& problem, const BuildSolverOptions& solver,
                              std::vector<index_t> ks);

/// What a quality target bounds.
enum class TargetMetric {
  /// KL(pi || pi_w) + KL(pi_w || pi), Quality::symmetric_kl. The sum bounds both directions at
  /// once, so a target on it holds whichever direction a reader cares about (the A-IHT papers
  /// plot the forward KL, SparseVI minimises the reverse one).
  symmetric_kl,
  relative_error,  ///< ||y - Phi w|| / ||y||, Quality::relative_projection_error
};
CORESET_API std::string to_string(TargetMetric metric);  ///< "symmetric_kl", "relative_error"
/// The value of `metric` in `quality`.
CORESET_API double metric_value(const Quality& quality, TargetMetric metric);

struct CORESET_API KTarget {
  TargetMetric metric = TargetMetric::symmetric_kl;
  double value = 0.0;  ///< reached when the metric is <= value; finite and > 0
};

/// The search of choose_k and what it found.
struct CORESET_API ChooseKResult {
  /// Whether some budget tried reached the target. When not, even k = n (every datapoint a
  /// candidate) did not, with this algorithm and solver settings.
  bool reached = false;
  std::vector<BudgetRun> tried;  ///< every budget solved, in the order tried
  /// Into `tried`: reached, the smallest budget tried that reaches the target; else the budget
  /// with the lowest value of the metric (the first of equals).
  std::size_t chosen = 0;
  double seconds = 0.0;  ///< the search's solves and evaluations

  const BudgetRun& result() const { return tried.at(chosen); }
};

/// The smallest k whose coreset reaches `target`: budgets 1, 2, 4, ... (doubling, the last one
/// n) until one reaches it, then bisection between the last budget that did not and the first
/// that did, until they are adjacent. The IHT family warm-starts every solve from the coreset
/// of the largest budget below it that failed (the bisection's lower end); giga, fw and sparsevi
/// solve each budget as a run to it alone (bit for bit what continuing one run gives); is and
/// uniform draw afresh. What "smallest" guarantees: with reached = true, the chosen k reaches the
/// target and k - 1 was tried and does not (unless k = 1), and every budget tried below k failed.
/// Quality need not be monotone in k, so a budget below k - 1 that was never tried might reach
/// it; and the coreset at each budget is this search's (warm-started), which may differ from a
/// cold build at that k. InvalidArgument for a target that is not finite and > 0.
CORESET_API ChooseKResult choose_k(const PreparedProblem& problem, const BuildSolverOptions& solver,
                                   const KTarget& target);

}  // namespace coreset
