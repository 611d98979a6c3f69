// The IHT family's stopping rule, the one place it lives: the host loop of solvers/iht_driver.hpp
// applies it after reading an iteration's numbers, and a tracked loop (SolverSettings::sync_every)
// applies it where the iterations run, on the device for the GPU, through track_iteration().
#pragma once

#include <cmath>
#include <vector>

#include "coreset/solver.hpp"
#include "support/host_device.hpp"

namespace coreset::solvers {

/// The two ways an iteration with a full gradient ends the solve.
struct StopTest {
  bool stationary = false;    ///< started from z = w and returned w: a fixed point
  bool small_change = false;  ///< ||w_{t+1} - w_t|| <= tolerance ||w_{t+1}||, from t = 2 on
  CORESET_HOST_DEVICE bool stops() const { return stationary || small_change; }
};

/// A tolerance below zero: no test stops the solve, only the cap. The library's callers
/// validate tolerance >= 0 (pipeline/solve.cpp); benchmarks use this to time a steady loop on a
/// problem that would reach a fixed point early (from there every iteration returns the same w).
constexpr double kRunToTheCap = -1.0;

/// Iteration t's test from ||w_{t+1} - w_t|| (`change`), ||w_{t+1}|| (`size`) and whether z_t
/// equalled w_t. The first step always moves by all of w_1, so it never counts as small.
CORESET_HOST_DEVICE inline StopTest stop_test(int t, double change, double size, bool z_equals_w,
                                              double tolerance) {
  StopTest test;
  if (tolerance < 0.0) {
    return test;  // kRunToTheCap
  }
  test.stationary = change == 0.0 && z_equals_w;
  test.small_change = t >= 2 && change <= tolerance * size;
  return test;
}

/// Whether z_{t+1} = w_{t+1} + tau (w_{t+1} - w_t) equals w_{t+1}: when w did not move (always
/// for iht, which has no momentum).
CORESET_HOST_DEVICE inline bool next_z_equals_w(double change, bool iht) {
  return change == 0.0 || iht;
}

/// A tracked loop's state, where its iterations run (device memory on the GPU). Plain data.
struct LoopState {
  int iterations = 0;    ///< t of the last iteration tracked
  int stopped_at = 0;    ///< the iteration that ended the solve; 0 while it runs
  int reason = 0;        ///< why, once stopped: a StopReason, or kOverflowed
  int z_equals_w = 1;    ///< for the next iteration's stationarity test
  int just_stopped = 0;  ///< 1 right after the iteration that stopped (its w is to be kept)
  double objective = 0;  ///< f(w) at the iteration that stopped
};

/// LoopState::reason when f overflowed (the host then throws as its own loop would).
constexpr int kOverflowed = -1;

/// Tracks one iteration of a loop whose host looks only now and then: f(w_{t+1}),
/// ||w_{t+1} - w_t||^2 and ||w_{t+1}||^2 as the host loop reads them. Records f in
/// history[(t - 1) mod capacity] (the host collects it at every look, which comes at least every
/// `capacity` iterations) and applies the host loop's rule (iterations with a full gradient,
/// a-iht and a-iht-2), the cap included. After the stop, further iterations change nothing.
CORESET_HOST_DEVICE inline void track_iteration(LoopState& state, double objective,
                                                double change_squared, double size_squared,
                                                double tolerance, int max_iterations,
                                                double* history, int capacity) {
  state.just_stopped = 0;
  if (state.stopped_at != 0) {
    return;
  }
  const int t = ++state.iterations;
  history[(t - 1) % capacity] = objective;
  int reason = -2;  // none
  if (!std::isfinite(objective)) {
    reason = kOverflowed;
  } else {
    const double change = std::sqrt(change_squared);
    const StopTest test =
        stop_test(t, change, std::sqrt(size_squared), state.z_equals_w != 0, tolerance);
    state.z_equals_w = next_z_equals_w(change, false) ? 1 : 0;
    if (test.stops()) {
      reason = static_cast<int>(test.stationary ? StopReason::stationary : StopReason::tolerance);
    } else if (t >= max_iterations) {
      reason = static_cast<int>(StopReason::max_iterations);
    }
  }
  if (reason != -2) {
    state.stopped_at = t;
    state.reason = reason;
    state.just_stopped = 1;
    state.objective = objective;
  }
}

/// What one look of the host brings back from a tracked loop, in one synchronisation: the state
/// and the ring of f values (f after iteration t at (t - 1) mod its size), as they were then.
struct LoopLook {
  LoopState state;
  std::vector<double> history;
};

/// f after iterations from+1 ... to out of a tracker's history of `capacity` entries (iteration
/// t at (t - 1) mod capacity; to - from <= capacity).
inline std::vector<double> tracked_history(const std::vector<double>& history, int from, int to) {
  std::vector<double> out;
  const auto capacity = static_cast<int>(history.size());
  for (int t = from + 1; t <= to; ++t) {
    out.push_back(history[static_cast<std::size_t>((t - 1) % capacity)]);
  }
  return out;
}

}  // namespace coreset::solvers
