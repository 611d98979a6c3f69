// What the four baseline constructions (spec 2.8-2.11: giga.hpp, frank_wolfe.hpp,
// importance_sampling.hpp, uniform.hpp) share. Like solvers/iht_driver.hpp they are written once
// against a backend's primitives (solvers/backend.hpp), so a device backend reuses them. Beyond
// the IHT family's they use the column norms, the fused score-and-argmax, convex_step and the
// host transfers of the samplers: the samplers draw on the host from the portable generator of
// support/random.hpp, so every backend makes the same draws.
//
// Phi w is kept as an S-vector; every product other than a dense pass touches the support only.
#pragma once

#include <cmath>
#include <functional>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "solvers/relative_error.hpp"
#include "solvers/target_norm.hpp"
#include "support/overflow.hpp"
#include "support/progress.hpp"

namespace coreset::solvers {

/// One step of GIGA or Frank-Wolfe, reported to an optional observer (tests, diagnostics).
struct GreedyStep {
  int iteration = 0;    ///< t = 1, 2, ...: the step that produced `weights`
  index_t chosen = -1;  ///< the point picked: GIGA's n_t, Frank-Wolfe's vertex f_t
  /// GIGA: <d_t, d_{t n_t}>, the cosine of the chosen geodesic; Frank-Wolfe:
  /// <y - Phi w_t, Phi_f> / ||Phi_f||.
  double score = 0.0;
  double step = 0.0;  ///< gamma_t, in [0, 1]
  /// After the step. GIGA: v_{t+1} = w_{t+1} / sigma, the weights on Phi's columns with
  /// ell(w_{t+1}) = Phi v_{t+1} of norm 1 (before the final scaling). Frank-Wolfe: w_{t+1}.
  Coreset weights;
};

using StepObserver = std::function<void(const GreedyStep&)>;

/// The most steps GIGA and Frank-Wolfe take on n columns, whatever k asks for: 1000 + 100 n.
/// Their k counts steps and may be up to 1e9, but the coreset can never hold more than n points,
/// and once every point that helps is in it, later steps only polish the weights. When y = Phi 1
/// the precision stops end that (the fit becomes exact to rounding, in a few hundred steps per
/// handful of points); for any other target the optimum is not exact and the polishing goes on
/// at O(1 / t) (Frank-Wolfe) with steps that each lower f a little, for all k steps, one history
/// entry each: k = 1e9 would take hours and gigabytes for a result no better than that of a
/// few thousand steps. So the loop ends at this limit (StopReason::max_iterations), which
/// also bounds the history. It lies far above any k that can pick new points (k <= n) and above
/// the steps the precision stops need in the tests, so budgets up to n are never cut.
inline index_t greedy_step_limit(index_t n) {
  constexpr index_t kBase = 1000;
  constexpr index_t kPerColumn = 100;
  constexpr index_t kNoLimit = index_t{1} << 62;
  return n >= (kNoLimit - kBase) / kPerColumn ? kNoLimit : kBase + kPerColumn * n;
}

/// The number of steps to take for options.k on n columns (greedy_step_limit), and whether the
/// limit cut it.
struct GreedySteps {
  index_t steps;
  bool limited;
};
inline GreedySteps greedy_steps(index_t k, index_t n) {
  const index_t limit = greedy_step_limit(n);
  return {k < limit ? k : limit, k > limit};
}

/// The result before any step: the options recorded, the empty coreset, `stationary`.
inline SolveResult start_baseline_result(const SolverOptions& options) {
  SolveResult result;
  result.algorithm = to_build_algorithm(options.algorithm);
  result.step_rule = options.step_rule;
  result.k = options.k;
  result.converged = true;  // every baseline ends by construction, never at an iteration cap
  result.stop_reason = StopReason::stationary;
  return result;
}

/// sigma_n = ||Phi_n|| into `sigma`; returns their sum sigma (throws when it overflowed).
template <class Backend>
double column_norms(Backend& be, typename Backend::DatapointVector& sigma) {
  be.column_norms(sigma);
  const double total = be.read(be.sum(sigma));
  if (!std::isfinite(total)) {
    throw InvalidArgument(
        "the column norms of Phi overflowed: its entries are too large for this precision; "
        "rescale them");
  }
  return total;
}

/// The objective, relative error and coreset of the final weights w (on the columns of Phi).
template <class Backend>
void finish_baseline(Backend& be, const typename Backend::SampleVector& y,
                     const typename Backend::SparseDatapointVector& w, SolveResult& result) {
  auto phi_w = be.make_sample_vector();
  auto residual = be.make_sample_vector();
  be.phi_times(w, phi_w);
  be.subtract(y, phi_w, residual);
  result.objective = be.read(be.dot(residual, residual));
  support::throw_if_overflowed(result.objective);
  result.relative_error = relative_error(result.objective, result.target_norm);
  result.coreset = be.to_coreset(w);
}

}  // namespace coreset::solvers
