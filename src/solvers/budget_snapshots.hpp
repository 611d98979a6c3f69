// One greedy run, many budgets. GIGA and Frank-Wolfe are deterministic and their state after t
// steps never depends on k (k only says when to stop), so a run to the largest budget passes,
// at step min(k, greedy_step_limit(n)) of every smaller k, through exactly the state a run to k
// alone ends in. Snapshotting there gives, for each budget, that run's result bit for bit
// (coreset, objective, trace, stop reason) at the cost of one run: what coreset::sweep and the
// build path's solve_and_evaluate_budgets use instead of solving each k from scratch.
#pragma once

#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include "coreset/solver.hpp"

namespace coreset::solvers {

struct BudgetSnapshots {
  /// Ascending, distinct, each >= 1; the run's own k (SolverOptions::k) is the last.
  std::vector<index_t> budgets;
  /// Filled by the run, one per budget, in budget order; refit applied when asked (refit.hpp).
  /// seconds: the wall time from `start` to the snapshot, its refit included.
  std::vector<SolveResult> results;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

/// After a greedy run's step `so_far.iterations` (the number of steps it takes for a budget is
/// `steps_for(budget)`): records every budget that a run to it alone would end at this step,
/// as `so_far` completed by `finish(result)` (the final weights, objective and coreset).
/// StopReason::budget, or max_iterations when the step limit cut that budget short.
template <class StepsFor, class Finish>
void take_due_snapshots(BudgetSnapshots* snapshots, const SolveResult& so_far, StepsFor&& steps_for,
                        Finish&& finish) {
  if (snapshots == nullptr) {
    return;
  }
  while (snapshots->results.size() < snapshots->budgets.size()) {
    const index_t budget = snapshots->budgets[snapshots->results.size()];
    const auto steps = steps_for(budget);
    if (steps.steps != static_cast<index_t>(so_far.iterations)) {
      return;
    }
    SolveResult result = so_far;
    result.k = budget;
    result.stop_reason = steps.limited ? StopReason::max_iterations : StopReason::budget;
    finish(result);
    result.seconds = snapshots->elapsed();
    snapshots->results.push_back(std::move(result));
  }
}

/// After the run has ended (all steps taken, or an early stop): every budget not yet recorded
/// ends where the run ended, as a run to it alone would (its state is the same up to there).
inline void finish_snapshots(BudgetSnapshots* snapshots, const SolveResult& final_result) {
  if (snapshots == nullptr) {
    return;
  }
  while (snapshots->results.size() < snapshots->budgets.size()) {
    SolveResult result = final_result;
    result.k = snapshots->budgets[snapshots->results.size()];
    result.seconds = snapshots->elapsed();
    snapshots->results.push_back(std::move(result));
  }
}

}  // namespace coreset::solvers
