// The IHT family (IHT, A-IHT, A-IHT II; spec 2.2-2.5) written once against a backend's
// primitives, so the CPU backend and later device backends run the same algorithm.
//
// The backend primitives it calls, their semantics and costs: solvers/backend.hpp.
//
// Per iteration the driver keeps Phi w and Phi z as S-vectors, so every residual costs O(S) and
// every product other than the dense pass touches at most 3k columns.
//
// Duplicate datapoints: a column equal to an earlier one is never selected (its gradient entry
// is set to 0 after every pass). Two copies in a k-sparse w are never needed (their weights can
// be merged on one copy with the same Phi w), but copies tie in every selection, and top-k would
// spend the budget on them; this way the first copy carries the weight of all its copies. Found
// once per solve, at the cost of one pass over Phi.
//
// Batch A-IHT (spec 2.6, SolverOptions::batch_fraction): the dense pass becomes a pass over a
// batch of m columns drawn on the host (support/random.hpp, seeded from the seed and the iteration
// number, so every backend and thread count sees the same batches); the gradient is 0 off the
// batch and everything downstream (expansion, line search, projection) uses it as it is. A step
// that meets the stopping test is confirmed by one full-gradient iteration (see solver.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "solvers/backend.hpp"
#include "solvers/fused_scalars.hpp"
#include "solvers/line_search.hpp"
#include "solvers/power_iteration.hpp"
#include "solvers/relative_error.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/stopping_rule.hpp"
#include "solvers/target_norm.hpp"
#include "support/overflow.hpp"
#include "support/progress.hpp"
#include "support/random.hpp"

namespace coreset::solvers {

template <class Backend>
class IhtDriver {
 public:
  using SampleVector = typename Backend::SampleVector;
  using DatapointVector = typename Backend::DatapointVector;
  using SparseDatapointVector = typename Backend::SparseDatapointVector;
  using Scalar = typename Backend::Scalar;

  /// Host-loop iterations before a tracked loop takes over: by then every vector of the
  /// iteration has the size it keeps (z reaches 2k entries after the second, the union 3k in the
  /// third), so a recorded iteration allocates nothing. The tracked loop then replays iterations
  /// in recorded pairs.
  static constexpr int kIterationsBeforeTracking = 4;

  IhtDriver(Backend& backend, const SampleVector& y, const SolverOptions& options)
      : be_(backend),
        y_(y),
        options_(options),
        k_(std::min<index_t>(options.k, backend.cols())),
        phi_w_(backend.make_sample_vector()),
        phi_w_next_(backend.make_sample_vector()),
        phi_z_(backend.make_sample_vector()),
        phi_step_(backend.make_sample_vector()),
        residual_(backend.make_sample_vector()),
        gradient_(backend.make_datapoint_vector()),
        batch_size_(batch_size(options, backend.cols())) {}

  /// The columns per batch gradient, or n when every gradient is full (batch_fraction 0 or 1,
  /// iht, or too few columns for a proper subset).
  static index_t batch_size(const SolverOptions& options, index_t n) {
    if (!(options.batch_fraction > 0.0) || options.algorithm == Algorithm::iht) {
      return n;
    }
    const auto m =
        static_cast<index_t>(std::floor(options.batch_fraction * static_cast<double>(n)));
    return std::clamp<index_t>(m, 1, n);
  }

  /// Runs to convergence or the cap; returns w and the trace. Timing is the caller's.
  SolveResult run() {
    SolveResult result;
    result.algorithm = to_build_algorithm(options_.algorithm);
    result.step_rule = options_.step_rule;
    result.k = k_;
    double objective = target_squared_norm(be_, y_);  // f(0) = ||y||^2
    result.target_norm = std::sqrt(objective);
    if (!options_.initial_weights.indices.empty()) {
      // A warm start (SolverSettings::initial_weights, validated by the caller): w_0 = z_0 is
      // the given coreset, and f(w_0) is the objective the first step is measured against.
      be_.from_host(options_.initial_weights.indices, options_.initial_weights.weights, w_);
      be_.copy(w_, z_);
      be_.phi_times(w_, phi_w_);
      be_.copy(phi_w_, phi_z_);
      be_.subtract(y_, phi_w_, residual_);
      objective = be_.read(be_.dot(residual_, residual_));
      support::throw_if_overflowed(objective);
    }

    const bool iht = options_.algorithm == Algorithm::iht;
    if (iht) {
      // mu = 1/L with L = 2 lambda_max(Phi^T Phi); in terms of Phi^T r = -grad f / 2 the step
      // along Phi^T r is 2 mu = 1 / lambda_max.
      const double lambda = estimate_lambda_max(be_, options_.seed);
      iht_step_ = lambda > 0.0 ? 1.0 / lambda : 0.0;
      if (!std::isfinite(iht_step_)) {  // lambda subnormal: Phi's squares lost their digits
        support::throw_underflowed("lambda_max(Phi^T Phi)");
      }
    }

    duplicates_ = be_.duplicate_columns();
    bool z_equals_w = true;  // z_0 = w_0 (0, or the warm start)
    // A tracked loop takes over once the sizes of the iteration's vectors have settled.
    const int interval = sync_interval();
    const int last_on_host = interval > 1
                                 ? std::min(options_.max_iterations, kIterationsBeforeTracking)
                                 : options_.max_iterations;
    const bool stopped = iterate_on_host(result, objective, z_equals_w, 1, last_on_host);
    if (!stopped && last_on_host < options_.max_iterations) {
      if constexpr (tracks_loops<Backend>) {
        if (run_tracked(result, z_equals_w, interval)) {
          return result;
        }
        // The recording failed (the device refused a graph): the host loop carries on.
        iterate_on_host(result, objective, z_equals_w, result.iterations + 1,
                        options_.max_iterations);
      }
    }
    if (!result.converged) {
      result.stop_reason = StopReason::max_iterations;
    }
    if (iht) {
      result.lipschitz = iht_step_ > 0.0 ? 2.0 / iht_step_ : 0.0;
    }
    finish(result, objective, w_);
    return result;
  }

 private:
  // Rounding may raise f by a few ulps even when the step is safe; only more counts as overshoot.
  static constexpr double kDescentSlack = 1e-12;

  // Iterations first ... last of the host loop, reading every iteration's numbers; true when the
  // stopping rule ended the solve. `objective` and `z_equals_w` carry over between calls.
  bool iterate_on_host(SolveResult& result, double& objective, bool& z_equals_w, int first,
                       int last) {
    const bool iht = options_.algorithm == Algorithm::iht;
    for (int t = first; t <= last; ++t) {
      support::throw_if_stopped(options_.progress, options_.communicator.get());
      // Batch mode: a full gradient only to confirm a stop (see full_gradient_next_).
      const bool full_gradient = batch_size_ == be_.cols() || full_gradient_next_;
      take_gradient_at_z(t, full_gradient);
      step_from_gradient();
      // The only values the host needs per iteration, read together.
      std::array<double, 3> host = read_progress();
      // The power-iteration estimate is an upper bound only once its vector is dominant; if the
      // step overshot (f rose), halve it and retake it from the same gradient. This makes IHT's
      // descent unconditional (spec T9) at the cost of one read per rejected step.
      for (int retry = 0; iht && host[0] > objective * (1 + kDescentSlack) && retry < 40; ++retry) {
        iht_step_ *= 0.5;
        step_from_gradient();
        host = read_progress();
      }
      objective = host[0];
      support::throw_if_overflowed(objective);
      const double change = std::sqrt(host[1]);
      result.objective_history.push_back(objective);
      result.iterations = t;
      ++result.host_looks;
      support::advanced(options_.progress, t);
      advance_iterates();
      if (iht) {
        be_.copy(w_, z_);  // IHT has no momentum: its next gradient is taken at w itself
        be_.copy(phi_w_, phi_z_);
      }
      const StopTest test =
          stop_test(t, change, std::sqrt(host[2]), z_equals_w, options_.tolerance);
      z_equals_w = next_z_equals_w(change, iht);
      // A batch gradient's verdict is only a reason to look with the full one next time.
      full_gradient_next_ = !full_gradient && test.stops();
      if (full_gradient && test.stops()) {
        result.stop_reason = test.stationary ? StopReason::stationary : StopReason::tolerance;
        result.converged = true;
        return true;
      }
    }
    return false;
  }

  // The tracked loop's default interval on a backend that records work (a GPU's CUDA graph).
  static constexpr int kDefaultSyncInterval = 16;

  // Iterations per host look (SolverSettings::sync_every): 1 for the host loop. iht (its retries
  // read f), batches (drawn on the host) and backends that cannot track a loop use 1.
  int sync_interval() const {
    if constexpr (!tracks_loops<Backend>) {
      return 1;
    } else {
      if (options_.algorithm == Algorithm::iht || batch_size_ != be_.cols()) {
        return 1;
      }
      if (options_.sync_every > 0) {
        return options_.sync_every;
      }
      return Backend::records_work ? kDefaultSyncInterval : 1;
    }
  }

  // Iterations t0 + 1, ... (t0 = result.iterations), `interval` per host look: two iterations are
  // recorded once (the iterates swap roles each iteration, so a pair returns them to their
  // places) and replayed, the stopping rule applied where they run (track_iteration), the
  // iterate it stops at kept there. Every backend primitive is called as in the host loop, so the
  // iterates, the stop and the history are the host loop's, bit for bit; up to interval - 1
  // iterations past the stop are computed and dropped.
  // False, with every iterate where it was, when the backend could not record the iterations.
  bool run_tracked(SolveResult& result, bool z_equals_w, int interval) {
    const int pairs_per_look = (interval + 1) / 2;
    const int per_look = 2 * pairs_per_look;
    auto tracker = be_.make_loop_tracker(result.iterations, z_equals_w, options_.max_iterations,
                                         options_.tolerance, k_, per_look);
    int swaps = 0;
    auto iteration = [&] {
      take_gradient_at_z(0, true);
      step_from_gradient();
      const std::array<Scalar, 3> progress = progress_scalars();
      be_.track(tracker, progress[0], progress[1], progress[2], w_next_);
      advance_iterates();
      ++swaps;
    };
    typename Backend::Recording pair;
    try {
      pair = be_.record([&] {
        iteration();
        iteration();
      });
    } catch (const DeviceError&) {
      if (swaps % 2 != 0) {  // the recording stopped between the two iterations
        advance_iterates();
      }
      return false;
    }
    LoopState state;
    state.iterations = result.iterations;
    do {
      support::throw_if_stopped(options_.progress, options_.communicator.get());
      // No pair past the cap, where the rule stops anyway.
      const int left = options_.max_iterations - state.iterations;
      be_.replay(pair, std::min(pairs_per_look, (left + 1) / 2));
      const LoopLook look = be_.read(tracker);  // the one synchronisation per look
      state = look.state;
      ++result.host_looks;
      const int reached = state.stopped_at != 0 ? state.stopped_at : state.iterations;
      const std::vector<double> history = tracked_history(look.history, result.iterations, reached);
      result.objective_history.insert(result.objective_history.end(), history.begin(),
                                      history.end());
      result.iterations = reached;
      support::advanced(options_.progress, reached);
    } while (state.stopped_at == 0);
    if (state.reason == kOverflowed) {
      support::throw_if_overflowed(state.objective);
    }
    result.stop_reason = static_cast<StopReason>(state.reason);
    result.converged = result.stop_reason != StopReason::max_iterations;
    finish(result, state.objective, be_.stopped_iterate(tracker));
    return true;
  }

  // The solve's end: f(w), the relative error and the coreset of w.
  void finish(SolveResult& result, double objective, const SparseDatapointVector& w) {
    result.objective = objective;
    result.relative_error = relative_error(objective, result.target_norm);
    result.coreset = be_.to_coreset(w);
    if (result.coreset.indices.empty() && result.target_norm > 0.0 && !improved_on_empty(result)) {
      check_empty_is_optimal();
    }
  }

  // Whether some iterate had f clearly below the empty coreset's ||y||^2. A solve whose steps
  // left the range never moves from 0, and every f it records is ||y||^2 up to the order of its
  // sum (a relative 1e-9 covers any order of a double sum); one that did move and
  // came back to 0 (A-IHT II's projection can pick a column whose de-bias step then clips to 0,
  // and the papers return the last iterate) ended there by the algorithm's own rule, which the
  // report says (its objective history shows the better iterate).
  static bool improved_on_empty(const SolveResult& result) {
    const double empty = result.target_norm * result.target_norm;  // ||y||^2 to ~1e-16
    return std::any_of(result.objective_history.begin(), result.objective_history.end(),
                       [&](double f) { return f < empty * (1.0 - 1e-9); });
  }

  // w = 0 is the answer only when no column correlates positively with y (Phi^T y <= 0): from
  // w = z = 0 any positive entry is selected and taken with a positive step. A solve that never
  // left 0 while one exists had steps that overflowed or underflowed to 0: the line search's
  // ratio ||g_S||^2 / ||Phi g_S||^2 spans |Phi|^-2 and its parts |Phi|^4 and |Phi|^6, so a Phi
  // scaled far from 1 (a 20 x 50 problem at 1e55 or 1e-60 in double, 1e12 or 1e-17 in float)
  // stops at once, reported as converged. Said instead of returned. One more pass over Phi, only
  // after an empty result.
  void check_empty_is_optimal() {
    be_.phi_t_times(y_, gradient_);
    if (!duplicates_.empty()) {
      be_.zero_entries(duplicates_, gradient_);
    }
    SparseDatapointVector none;
    SparseDatapointVector positive;
    be_.select_top_k(gradient_, 1, SelectionRule::largest_positive, none, positive);
    const Coreset column = be_.to_coreset(positive);
    if (!column.indices.empty()) {
      throw NumericalError(
          "the solve stopped at an empty coreset, though column " +
          std::to_string(column.indices.front()) +
          " of Phi correlates positively with y: its steps overflowed or underflowed to 0, as "
          "they do when Phi's entries are far from 1 (the line search works with their 4th and "
          "6th powers). Scale Phi and y by one power of 2 (the coreset is the same, bit for "
          "bit, wherever the arithmetic stays in range)" +
          std::string(Backend::epsilon() > 1e-10 ? ", or solve in double" : ""));
    }
  }

  // w_{t+1} becomes w_t (and Phi w with it): the iterates swap roles after every iteration.
  void advance_iterates() {
    std::swap(w_, w_next_);
    std::swap(phi_w_, phi_w_next_);
  }

  // The numbers the stopping rule reads after an iteration, the same for both loops:
  // f(w_{t+1}), ||w_{t+1} - w_t||^2 and ||w_{t+1}||^2.
  std::array<Scalar, 3> progress_scalars() {
    return solvers::progress_scalars(be_, residual_, w_next_, w_);
  }

  // progress_scalars() on the host, in one synchronisation.
  std::array<double, 3> read_progress() {
    const std::array<Scalar, 3> progress = progress_scalars();
    return be_.read_all(progress[0], progress[1], progress[2]);
  }

  // The dense pass: gradient_ = Phi^T (y - Phi z) = -grad f(z) / 2; in batch mode, unless `full`,
  // only on iteration t's batch of columns (0 elsewhere).
  void take_gradient_at_z(int t, bool full) {
    be_.subtract(y_, phi_z_, residual_);
    if (full) {
      be_.phi_t_times(residual_, gradient_);
    } else {
      support::sample_without_replacement(
          static_cast<std::uint64_t>(be_.cols()), static_cast<std::uint64_t>(batch_size_),
          support::derive_seed(options_.seed, static_cast<std::uint64_t>(t)), batch_);
      be_.phi_t_times_on_subset(residual_, batch_, gradient_);
    }
    if (!duplicates_.empty()) {
      be_.zero_entries(duplicates_, gradient_);  // never selected: see the header
    }
  }

  // From the gradient at z_t to w_{t+1} in w_next_, with Phi w_{t+1} in phi_w_next_, the
  // residual y - Phi w_{t+1} in residual_, and (accelerated variants) z_{t+1} and Phi z_{t+1}.
  void step_from_gradient() {
    const Algorithm algorithm = options_.algorithm;
    const StepRule rule = options_.step_rule;
    // x = Pi_{C_k and R+}(z + step * gradient) takes the k largest positive entries; outside
    // supp(z) they are the largest positive gradient entries (step >= 0 keeps their order), so
    // their selection (candidates_) needs the gradient alone, not the step.
    Scalar step;
    if (algorithm == Algorithm::iht) {
      step = be_.constant(iht_step_);
      be_.select_top_k(gradient_, k_, SelectionRule::largest_positive, z_, candidates_);
    } else {
      // Active subspace expansion: S = supp(z) united with the k largest |gradient| entries
      // outside supp(z); the exact line search along the gradient restricted to S. Both
      // selections over the gradient at once.
      select_top_k_both_rules(be_, gradient_, k_, z_, expansion_, candidates_);
      be_.restrict_to_union(gradient_, z_, expansion_, gradient_on_s_);
      be_.phi_times(gradient_on_s_, phi_step_);
      step = gradient_line_search(be_, gradient_on_s_, phi_step_, gradient_step_factor(rule));
    }
    be_.gather(gradient_, z_, gradient_on_z_);
    SparseDatapointVector& x = algorithm == Algorithm::aiht2 ? x_ : w_next_;
    be_.projected_step(z_, gradient_on_z_, candidates_, step, k_, x);

    if (algorithm == Algorithm::aiht2) {
      // De-bias: an exact line search along the gradient at x restricted to supp(x), then
      // clipping to w >= 0 (spec 2.4, lines 8-10). Touches k columns.
      phi_times_and_residual(be_, x_, y_, phi_w_next_, residual_);
      be_.phi_t_times_on(x_, residual_, gradient_on_x_);
      be_.phi_times(gradient_on_x_, phi_step_);
      const Scalar debias_step =
          gradient_line_search(be_, gradient_on_x_, phi_step_, gradient_step_factor(rule));
      be_.clamped_step(x_, debias_step, gradient_on_x_, w_next_);
    }
    phi_times_and_residual(be_, w_next_, y_, phi_w_next_, residual_);
    if (algorithm == Algorithm::iht) {
      return;
    }

    // Momentum: tau = argmin f(w_{t+1} + tau d), d = w_{t+1} - w_t, then z = w_{t+1} + tau d.
    // Phi d and Phi z are products over their own supports (<= 2k columns), never differences
    // of products: near convergence Phi w_{t+1} - Phi w_t is rounding noise, and a tau computed
    // from it explodes.
    be_.subtract(w_next_, w_, move_);
    be_.phi_times(move_, phi_step_);
    const Scalar tau = momentum_line_search(be_, residual_, phi_step_, momentum_factor(rule));
    be_.extrapolate(w_next_, w_, tau, z_);
    be_.phi_times(z_, phi_z_);
  }

  Backend& be_;
  const SampleVector& y_;
  SolverOptions options_;
  index_t k_;
  double iht_step_ = 0.0;

  SparseDatapointVector w_, w_next_, z_, x_, move_;
  SparseDatapointVector expansion_, candidates_, gradient_on_s_, gradient_on_z_, gradient_on_x_;
  SampleVector phi_w_, phi_w_next_, phi_z_, phi_step_, residual_;
  DatapointVector gradient_;
  index_t batch_size_;               // n: no batches
  bool full_gradient_next_ = false;  // batch mode: a batch step met the stopping test
  std::vector<index_t> batch_;       // this iteration's columns, ascending
  std::vector<index_t> duplicates_;  // columns equal to an earlier column, ascending
};

}  // namespace coreset::solvers
