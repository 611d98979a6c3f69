// GIGA, Greedy Iterative Geodesic Ascent (spec 2.8: [GIGA] Algorithm 1 with the corrected update
// of eq. 25/26 and the optimal scaling of line 13), written once against a backend.
//
// In this library's terms L_n = Phi_n (column n), L = y, sigma_n = ||Phi_n||,
// ell_n = Phi_n / sigma_n and ell = y / ||y||. The iterate is held as sparse weights v on the
// columns of Phi with ell(w_t) = Phi v (v = w_t / sigma in the paper's notation), and that
// S-vector is recomputed from v after every step, over supp(v) only: the paper's option A, so
// ||ell(w_t)|| = 1 and ell(w_t) = sum_n w_tn ell_n hold to rounding however long it runs.
//
// Cost per step: one dense pass c = Phi^T ell(w_t), one fused O(n) score-and-argmax, one
// product over supp(v) (<= t columns), and O(S) vector work. With a_n = <ell_n, ell(w_t)> =
// c_n / sigma_n and e_n = <Phi_n, ell> (one dense pass before the first step), the direction
// d_t = ell - zeta1 ell(w_t) gives <ell_n, d_t> = e_n / sigma_n - zeta1 a_n, and because d_t is
// orthogonal to ell(w_t), <d_t, d_tn> = <ell_n, d_t> / (||d_t|| sqrt(1 - a_n^2)) (spec 2.8,
// "Selection score"). At t = 0, ell(w_0) = 0: d_0 = ell, the scores are <ell_n, ell> and
// gamma_0 = 1 (the initialisation of [GIGA] eq. 13), with no pass for c.
//
// Edges:
//  - zero columns (sigma_n = 0) are never scored, nor are columns (anti)parallel to ell(w_t)
//    (1 - a_n^2 within rounding of 0), whose d_tn is undefined. Ties go to the lower index, so of
//    duplicate columns only the lowest is ever chosen.
//  - It stops early, keeping the weights it has (StopReason::stationary), on the precision
//    conditions of the spec: ||d_t|| within rounding of 0 (ell(w_t) = ell: the fit is exact up to
//    scale), no column can be scored, or the step's numerator zeta0 - zeta1 zeta2 <= 0 or the
//    other term zeta1 - zeta0 zeta2 < 0 (no geodesic step raises <ell(w), ell>).
//  - At most greedy_step_limit(n) = 1000 + 100 n steps whatever k is (common.hpp): beyond it
//    the steps only polish the weights, and k = 1e9 would take hours (StopReason::max_iterations).
//  - y = 0, Phi = 0, or no column correlating positively with y: w = 0 (the optimum), 0 steps.
//  - Final scaling: w = alpha* v, alpha* = ||y|| max(0, <ell(w), ell>) (eq. 10).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "coreset/solver.hpp"
#include "solvers/argmax.hpp"
#include "solvers/baselines/common.hpp"
#include "solvers/budget_snapshots.hpp"
#include "support/host_device.hpp"

namespace coreset::solvers {

/// <d_t, d_tn> from e_n = <Phi_n, ell>, c_n = <Phi_n, ell(w_t)> and sigma_n = ||Phi_n||;
/// -infinity for the columns that cannot be chosen.
struct GigaScore {
  double zeta1;     ///< <ell, ell(w_t)>
  double d_norm;    ///< ||ell - zeta1 ell(w_t)|| > 0
  double parallel;  ///< 1 - a_n^2 at or below this counts as ell_n = +-ell(w_t)

  CORESET_HOST_DEVICE double operator()(double e, double c, double sigma) const {
    if (!(sigma > 0.0)) {
      return -std::numeric_limits<double>::infinity();
    }
    const double a = c / sigma;
    const double orthogonal = 1.0 - a * a;
    if (!(orthogonal > parallel)) {
      return -std::numeric_limits<double>::infinity();
    }
    return (e / sigma - zeta1 * a) / (d_norm * std::sqrt(orthogonal));
  }
};

/// Runs GIGA for k = options.k steps or until a precision condition stops it (see above).
/// `observe`, when set, sees every step.
template <class Backend>
SolveResult run_giga(Backend& be, const typename Backend::SampleVector& y,
                     const SolverOptions& options, const StepObserver& observe = {},
                     BudgetSnapshots* snapshots = nullptr) {
  SolveResult result = start_baseline_result(options);
  result.target_norm = target_norm(be, y);
  typename Backend::SparseDatapointVector v;  // ell(w_t) = Phi v
  typename Backend::SparseDatapointVector w;  // the answer: alpha* v
  if (result.target_norm > 0.0) {
    // Rounding thresholds: ||d_t|| and 1 - a_n^2 carry errors of a few units of roundoff.
    const double stop_below = 128 * Backend::epsilon();
    const double parallel = 1024 * Backend::epsilon();
    auto sigma = be.make_datapoint_vector();
    column_norms(be, sigma);
    auto ell = be.make_sample_vector();
    be.axpby(1.0 / result.target_norm, y, 0.0, y, ell);
    auto e = be.make_datapoint_vector();  // <Phi_n, ell>
    be.phi_t_times(ell, e);
    auto c = be.make_datapoint_vector();  // <Phi_n, ell(w_t)>: 0 for ell(w_0) = 0
    auto ell_w = be.make_sample_vector();
    auto d = be.make_sample_vector();
    auto residual = be.make_sample_vector();
    typename Backend::SparseDatapointVector next;
    double zeta1 = 0.0;  // <ell, ell(w_t)>
    result.stop_reason = StopReason::budget;
    // At most greedy_step_limit(n) steps whatever k is: k >> n would otherwise polish the
    // weights for up to 1e9 steps, one history entry each (common.hpp).
    const GreedySteps steps = greedy_steps(options.k, be.cols());
    for (index_t t = 0; t < steps.steps; ++t) {
      support::throw_if_stopped(options.progress, options.communicator.get());
      be.axpby(1.0, ell, -zeta1, ell_w, d);
      const double d_norm = std::sqrt(be.read(be.dot(d, d)));
      if (!(d_norm > stop_below)) {
        result.stop_reason = StopReason::stationary;
        break;
      }
      if (t > 0) {
        be.phi_t_times(ell_w, c);
      }
      const ArgMax best = be.argmax(GigaScore{zeta1, d_norm, parallel}, e, c, sigma);
      if (best.index < 0) {
        result.stop_reason = StopReason::stationary;
        break;
      }
      const auto at = be.read_all(be.value_at(e, best.index), be.value_at(c, best.index),
                                  be.value_at(sigma, best.index));
      const double zeta0 = at[0] / at[2];  // <ell, ell_n>
      const double zeta2 = at[1] / at[2];  // <ell_n, ell(w_t)>
      const double towards = zeta0 - zeta1 * zeta2;
      const double away = zeta1 - zeta0 * zeta2;
      if (!(towards > 0.0) || !(away >= 0.0)) {
        result.stop_reason = StopReason::stationary;
        break;
      }
      const double gamma = towards / (towards + away);  // in (0, 1]: Lemma 3.4
      be.convex_step(v, gamma, best.index, 1.0 / at[2], next);
      be.phi_times(next, ell_w);
      const double norm = std::sqrt(be.read(be.dot(ell_w, ell_w)));
      if (!(norm > 0.0)) {  // (1 - gamma) ell(w_t) + gamma ell_n = 0: excluded above; a guard
        result.stop_reason = StopReason::stationary;
        break;
      }
      be.scale(1.0 / norm, next, v);
      be.axpby(1.0 / norm, ell_w, 0.0, ell_w, ell_w);
      zeta1 = be.read(be.dot(ell, ell_w));
      // f after the optimal scaling: ||y - alpha* ell(w_{t+1})||^2 (= ||y||^2 J_{t+1}).
      be.axpby(1.0, y, -result.target_norm * std::max(0.0, zeta1), ell_w, residual);
      result.objective_history.push_back(be.read(be.dot(residual, residual)));
      result.iterations = static_cast<int>(t + 1);
      support::advanced(options.progress, result.iterations);
      if (observe) {
        observe(GreedyStep{result.iterations, best.index, best.score, gamma, be.to_coreset(v)});
      }
      take_due_snapshots(
          snapshots, result, [&](index_t budget) { return greedy_steps(budget, be.cols()); },
          [&](SolveResult& snapshot) {
            typename Backend::SparseDatapointVector scaled;
            be.scale(result.target_norm * std::max(0.0, zeta1), v, scaled);
            finish_baseline(be, y, scaled, snapshot);
          });
    }
    if (steps.limited && result.stop_reason == StopReason::budget) {
      result.stop_reason = StopReason::max_iterations;  // the step limit, not k, ended it
    }
    be.scale(result.target_norm * std::max(0.0, zeta1), v, w);
  }
  finish_baseline(be, y, w, result);
  finish_snapshots(snapshots, result);
  return result;
}

}  // namespace coreset::solvers
