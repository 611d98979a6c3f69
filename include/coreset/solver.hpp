// The sparse non-negative regression at the heart of coreset construction:
//
//     minimise f(w) = ||y - Phi w||^2   subject to  ||w||_0 <= k,  w >= 0,
//
// with Phi S x n (column i = datapoint i's centred, scaled log-likelihood projection) and
// y = Phi 1 by default. Algorithms and their conventions: ../../README.md, "Algorithms".
//
// What k means depends on the algorithm:
//   iht, a-iht, a-iht-2  the sparsity constraint ||w||_0 <= k; k >= n makes the problem NNLS and
//                        the budget actually used is min(k, n).
//   giga, fw             the number of greedy steps (spec 2.8, 2.10): each step adds at most one
//                        point, so the coreset has at most min(k, n) points. Both may pick a point
//                        again (it is then reweighted), so fewer than k distinct points is normal;
//                        they also stop early, with fewer steps, when no step can improve the fit
//                        (StopReason::stationary).
//   is, uniform          the number of draws with replacement (spec 2.9, 2.11); repeats merge, so
//                        the coreset has at most min(k, n) points and usually fewer. Both
//                        estimate Phi 1 without looking at y (y only enters the objective).
// For the four baselines k may exceed n, is at most 1e9, and max_iterations, tolerance and
// step_rule are ignored; k itself is the iteration or draw count. giga, fw and is never choose
// a zero column; uniform ignores Phi.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset {

enum class Algorithm {
  iht,    ///< vanilla IHT (Algorithm 1 of the A-IHT papers) with the safe step 1/L
  aiht,   ///< accelerated IHT (Algorithm 2): subspace expansion, line search, momentum
  aiht2,  ///< accelerated IHT II (Algorithm 3): Algorithm 2 plus a de-bias step; the default
  giga,   ///< Greedy Iterative Geodesic Ascent (GIGA Algorithm 1), optimally scaled at the end
  frank_wolfe,          ///< Hilbert Frank-Wolfe with the exact line search ([HIL] Algorithm 2)
  importance_sampling,  ///< Hilbert importance sampling, p_n proportional to ||Phi_n||
  uniform,              ///< uniform subsampling with replacement, weights N * count / k
};

/// True for iht, a-iht and a-iht-2, the algorithms that iterate to a tolerance; false for the
/// four baselines, whose k counts steps or draws.
constexpr bool is_iht_family(Algorithm algorithm) {
  return algorithm == Algorithm::iht || algorithm == Algorithm::aiht ||
         algorithm == Algorithm::aiht2;
}

/// The papers disagree with their authors' code on the step lengths (spec 7, A1 and A2).
enum class StepRule {
  exact,      ///< both the gradient step and the momentum are the true line-search minimisers
  reference,  ///< the authors' code: half the exact gradient step, the exact momentum
  paper,      ///< the formulas as printed: the exact gradient step, half the exact momentum
};

enum class StopReason {
  tolerance,       ///< ||w_t - w_{t-1}|| <= tol * ||w_t||
  stationary,      ///< no step can change w (giga, fw: no step improves the fit)
  max_iterations,  ///< the iteration cap was reached first
  /// giga, fw: all k steps were taken; is, uniform: the k draws were made. Their normal end,
  /// reported as converged.
  budget,
};

struct SolverOptions {
  Algorithm algorithm = Algorithm::aiht2;
  /// >= 1: the sparsity budget of the IHT family (k >= n makes the problem plain NNLS), the
  /// step count of giga and fw, the draw count of is and uniform (<= 1e9 for these four).
  index_t k = 0;
  int max_iterations = 300;  ///< 1 ... 1e9; the IHT family only
  double tolerance = 1e-5;   ///< relative change that counts as converged, >= 0; IHT family only
  StepRule step_rule = StepRule::exact;  ///< a-iht and a-iht-2 only; iht has a fixed step
  /// Seeds the power iteration of `iht` and the draws of `is` and `uniform` (portable: the same
  /// seed gives the same coreset everywhere). giga, fw, a-iht and a-iht-2 are deterministic.
  std::uint64_t seed = 0;
  int threads = 0;  ///< CPU threads for the dense passes; 0 = every core
};

/// A weighted subset of the datapoints: ascending indices, strictly positive weights.
struct Coreset {
  std::vector<index_t> indices;
  std::vector<double> weights;

  index_t size() const noexcept { return static_cast<index_t>(indices.size()); }
};

struct SolveResult {
  Coreset coreset;
  Algorithm algorithm = Algorithm::aiht2;
  StepRule step_rule = StepRule::exact;
  index_t k = 0;  ///< the budget actually used: min(k, n) for the IHT family, k for the baselines
  /// IHT family: iterations run. giga, fw: steps taken (<= k; 0 when y = 0 or no column
  /// correlates positively with y). is, uniform: 1 (one sampling pass; 0 when Phi = 0 for is).
  int iterations = 0;
  bool converged = false;  ///< true unless the iteration cap stopped the solver
  StopReason stop_reason = StopReason::max_iterations;
  double objective = 0.0;       ///< f(w) = ||y - Phi w||^2
  double relative_error = 0.0;  ///< ||y - Phi w|| / ||y|| (0 when y = 0)
  double target_norm = 0.0;     ///< ||y||
  double seconds = 0.0;         ///< wall time of the solve, validation included
  /// f(w_t) after every iteration t = 1..iterations (giga: after the optimal scaling of w_t).
  std::vector<double> objective_history;
  /// `iht` only: the L whose inverse was the final step: 2 x the power-iteration estimate of
  /// lambda_max(Phi^T Phi), doubled for every step that had to be retaken because f rose.
  double lipschitz = 0.0;
};

/// Solves the sparse non-negative regression on the CPU.
///
/// `phi` is S x n column-major; `y` points to S values, or is null for y = Phi 1. Every entry of
/// Phi and y must be finite. Throws InvalidArgument for bad options or non-finite data (the
/// message names the first bad entry). Thread-safe for distinct arguments; uses
/// `options.threads` threads for the dense passes.
SolveResult solve(MatrixView<double> phi, const double* y, const SolverOptions& options);
/// The same in single precision: Phi, y and the iterates are float, scalars accumulate in double.
SolveResult solve(MatrixView<float> phi, const float* y, const SolverOptions& options);

/// f(w) = ||y - Phi w||^2 for any coreset, in double precision (y null: y = Phi 1).
double objective(MatrixView<double> phi, const double* y, const Coreset& coreset);
double objective(MatrixView<float> phi, const float* y, const Coreset& coreset);

/// Names used on the command line and in reports ("iht", "a-iht", "a-iht-2", "giga", "fw",
/// "is", "uniform"; "exact", ...).
std::string to_string(Algorithm algorithm);
std::string to_string(StepRule rule);
std::string to_string(StopReason reason);
/// Inverse of to_string; throws InvalidArgument listing the accepted names.
Algorithm parse_algorithm(const std::string& name);
StepRule parse_step_rule(const std::string& name);
/// Every algorithm parse_algorithm accepts, in the order of its name table.
std::vector<Algorithm> all_algorithms();

}  // namespace coreset
