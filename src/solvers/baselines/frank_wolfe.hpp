// Hilbert Frank-Wolfe (spec 2.10: [HIL] Algorithm 2) with the exact line search, written once
// against a backend.
//
// In this library's terms L_n = Phi_n, L = y, sigma_n = ||Phi_n||, sigma = sum_n sigma_n. FW
// minimises ||y - Phi w||^2 over the polytope {w >= 0, sum_n sigma_n w_n = sigma}, whose
// vertices are (sigma / sigma_n) 1_n; with y = Phi 1 it contains w = 1. Step 1 puts all the
// weight on the vertex f = argmax_n <y, Phi_n> / sigma_n; every later step picks the vertex
// f = argmax_n <y - Phi w, Phi_n> / sigma_n (one dense pass, one fused score-and-argmax) and
// moves to w + gamma (vertex - w) with the exact line search on the segment,
// gamma = clamp(<q, r> / ||q||^2, 0, 1), q = Phi (vertex - w), r = y - Phi w ([HIL] line 6;
// Lemma 4.3 puts it in [0, 1] when y = Phi 1, the clamp keeps other targets on the polytope).
// Phi w is recomputed from the sparse w after every step (<= t columns).
//
// Edges:
//  - zero columns are never scored (they are not vertices); ties go to the lower index, so of
//    duplicate columns only the lowest is ever chosen.
//  - a step with gamma = 0 (the Frank-Wolfe gap is <= 0: w is optimal on the polytope, or
//    ||q|| = 0) would repeat forever: it stops there (StopReason::stationary), keeping w. So
//    does a step that does not lower f (rounding level: the exact line search cannot raise f);
//    that step is undone. Without this, k far above n (k may be 1e9) would make rounding-noise
//    steps to the end, one history entry each.
//  - at most greedy_step_limit(n) = 1000 + 100 n steps whatever k is (common.hpp): for a target
//    other than Phi 1 the optimum is not exact and the steps would go on lowering f by ever less
//    for all k (up to 1e9) steps (StopReason::max_iterations).
//  - y = 0, Phi = 0, or no column correlating positively with y: w = 0, which is then optimal and
//    lies outside the polytope (0 steps, stationary).
//  - the same vertex can be chosen again (it is reweighted), so k steps give at most k points.
#pragma once

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "coreset/solver.hpp"
#include "solvers/argmax.hpp"
#include "solvers/baselines/common.hpp"
#include "solvers/budget_snapshots.hpp"
#include "support/host_device.hpp"

namespace coreset::solvers {

/// <r, Phi_n> / sigma_n from c_n = <r, Phi_n>; -infinity for zero columns.
struct FrankWolfeScore {
  CORESET_HOST_DEVICE double operator()(double c, double sigma) const {
    return sigma > 0.0 ? c / sigma : -std::numeric_limits<double>::infinity();
  }
};

/// Runs Frank-Wolfe for k = options.k steps (the first is the initial vertex), or until a step
/// cannot move. `observe`, when set, sees every step.
template <class Backend>
SolveResult run_frank_wolfe(Backend& be, const typename Backend::SampleVector& y,
                            const SolverOptions& options, const StepObserver& observe = {},
                            BudgetSnapshots* snapshots = nullptr) {
  SolveResult result = start_baseline_result(options);
  result.target_norm = target_norm(be, y);
  typename Backend::SparseDatapointVector w;
  if (result.target_norm > 0.0) {
    auto sigma = be.make_datapoint_vector();
    const double total = column_norms(be, sigma);
    auto c = be.make_datapoint_vector();
    auto phi_w = be.make_sample_vector();
    auto residual = be.make_sample_vector();
    auto q = be.make_sample_vector();
    typename Backend::SparseDatapointVector corner;
    typename Backend::SparseDatapointVector next;
    be.copy(y, residual);  // r = y - Phi w_0, w_0 = 0
    result.stop_reason = StopReason::budget;
    // At most greedy_step_limit(n) steps whatever k is: k >> n would otherwise polish the
    // weights for up to 1e9 steps, one history entry each (common.hpp).
    const GreedySteps steps = greedy_steps(options.k, be.cols());
    for (index_t t = 0; t < steps.steps; ++t) {
      support::throw_if_stopped(options.progress, options.communicator.get());
      be.phi_t_times(residual, c);
      const ArgMax best = be.argmax(FrankWolfeScore{}, c, sigma);
      // At t = 0: no column with <y, Phi_n> > 0 means f(w) >= ||y||^2 for every w >= 0.
      if (best.index < 0 || (t == 0 && !(best.score > 0.0))) {
        result.stop_reason = StopReason::stationary;
        break;
      }
      const double vertex = total / be.read(be.value_at(sigma, best.index));
      double gamma = 1.0;  // the first step jumps to the vertex ([HIL] line 3)
      if (t > 0) {
        be.from_host({best.index}, {vertex}, corner);
        be.phi_times(corner, q);
        be.subtract(q, phi_w, q);  // q = Phi (vertex 1_f - w)
        gamma =
            std::clamp(be.read(be.line_search(be.dot(q, residual), be.dot(q, q), 1.0)), 0.0, 1.0);
        if (!(gamma > 0.0)) {
          result.stop_reason = StopReason::stationary;
          break;
        }
      }
      be.convex_step(w, gamma, best.index, vertex, next);
      std::swap(w, next);
      be.phi_times(w, phi_w);
      be.subtract(y, phi_w, residual);
      const double f = be.read(be.dot(residual, residual));
      if (t > 0 && !(f < result.objective_history.back())) {
        // The exact line search lowers f unless w and its residual are at rounding level: a
        // step that does not is noise, and so would every later one be. Undo it and stop.
        std::swap(w, next);
        result.stop_reason = StopReason::stationary;
        break;
      }
      result.objective_history.push_back(f);
      result.iterations = static_cast<int>(t + 1);
      support::advanced(options.progress, result.iterations);
      if (observe) {
        observe(GreedyStep{result.iterations, best.index, best.score, gamma, be.to_coreset(w)});
      }
      take_due_snapshots(
          snapshots, result, [&](index_t budget) { return greedy_steps(budget, be.cols()); },
          [&](SolveResult& snapshot) { finish_baseline(be, y, w, snapshot); });
    }
    if (steps.limited && result.stop_reason == StopReason::budget) {
      result.stop_reason = StopReason::max_iterations;  // the step limit, not k, ended it
    }
  }
  finish_baseline(be, y, w, result);
  finish_snapshots(snapshots, result);
  return result;
}

}  // namespace coreset::solvers
