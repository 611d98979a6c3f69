// The IHT driver's tracked loop (SolverSettings::sync_every, solvers/iht_driver.hpp:
// run_tracked): iterations run m at a time with the stopping rule applied where they run. On a
// GPU the recorded pair of iterations is a CUDA graph; the CPU backend records by keeping the
// body, so the driver's logic (the hand-over after the host-loop iterations, the pairs, the stop
// inside a pair, the kept iterate, the history collected per look) runs here, and must give the
// host loop's result bit for bit. The rule itself (solvers/stopping_rule.hpp) is tested alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/progress.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/run_algorithm.hpp"
#include "solvers/stopping_rule.hpp"

namespace coreset {
namespace {

using solvers::LoopState;

// Counts the progress reports: one per iteration in the host loop, one per look in the tracked
// loop. Optionally asks to stop after a number of reports.
class CountingObserver : public ProgressObserver {
 public:
  explicit CountingObserver(int stop_after = -1) : stop_after_(stop_after) {}
  void advanced(std::int64_t done) override {
    ++reports;
    last = done;
  }
  bool stop_requested() noexcept override { return stop_after_ >= 0 && reports >= stop_after_; }
  int reports = 0;
  std::int64_t last = 0;

 private:
  int stop_after_;
};

template <class T>
SolveResult run(const Matrix<double>& phi64, const SolverOptions& options) {
  Matrix<T> phi(phi64.rows(), phi64.cols());
  for (index_t j = 0; j < phi64.cols(); ++j) {
    for (index_t i = 0; i < phi64.rows(); ++i) {
      phi(i, j) = static_cast<T>(phi64(i, j));
    }
  }
  cpu::CpuBackend<T> backend(phi.view(), 1);
  auto y = backend.make_sample_vector();
  backend.column_sums(y);
  return solvers::run_algorithm(backend, y, options);
}

struct Scenario {
  std::string name;
  index_t k;
  int max_iterations;
  double tolerance;
  bool warm_start;
};

template <class T>
void every_interval_gives_the_host_loop(Algorithm algorithm, StepRule rule) {
  const Matrix<double> phi = test::shared_direction_matrix<double>(40, 120, 7, 0.5);
  const std::vector<Scenario> scenarios = {
      {"converges", 6, 300, 1e-5, false},
      {"hits the cap inside a pair", 6, 11, 0.0, false},
      {"hits the cap at a pair's end", 6, 12, 0.0, false},
      {"cap before the hand-over", 6, 3, 0.0, false},
      {"k of all columns", 500, 300, 1e-7, false},
      {"warm start", 6, 300, 1e-5, true},
  };
  for (const Scenario& scenario : scenarios) {
    SolverOptions options = test::solver_options(algorithm, scenario.k);
    options.step_rule = rule;
    options.threads = 1;
    options.max_iterations = scenario.max_iterations;
    options.tolerance = scenario.tolerance;
    if (scenario.warm_start) {
      options.initial_weights.indices = {3, 40, 77};
      options.initial_weights.weights = {1.5, 0.25, 2.0};
    }
    options.sync_every = 1;
    CountingObserver host_reports;
    options.progress = &host_reports;
    const SolveResult expected = run<T>(phi, options);
    // Every scenario but the short cap runs past the four host-loop iterations (10 to 138 here).
    if (scenario.max_iterations > 4) {
      ASSERT_GT(expected.iterations, 4);
    }
    for (const int interval : {2, 3, 5, 16, 1000}) {
      SCOPED_TRACE(scenario.name + ", sync_every " + std::to_string(interval));
      options.sync_every = interval;
      CountingObserver reports;
      options.progress = &reports;
      const SolveResult got = run<T>(phi, options);
      test::expect_same_solve(got, expected);
      EXPECT_EQ(reports.last, expected.iterations);
      EXPECT_EQ(got.host_looks, reports.reports);
      EXPECT_EQ(expected.host_looks, expected.iterations);
      if (expected.iterations > 4) {
        // The tracked loop took over after four iterations: fewer looks than iterations.
        const int per_look = 2 * ((interval + 1) / 2);
        const int looks = (expected.iterations - 4 + per_look - 1) / per_look;
        EXPECT_EQ(reports.reports, 4 + looks);
      } else {
        EXPECT_EQ(reports.reports, host_reports.reports);
      }
    }
  }
}

class TrackedLoop : public ::testing::TestWithParam<test::SolverCase> {};

TEST_P(TrackedLoop, EveryIntervalGivesTheHostLoopBitForBit) {
  if (GetParam().algorithm == Algorithm::iht) {
    GTEST_SKIP() << "iht always reads every iteration (its retries need f on the host)";
  }
  {
    SCOPED_TRACE("double");
    every_interval_gives_the_host_loop<double>(GetParam().algorithm, GetParam().rule);
  }
  {
    SCOPED_TRACE("float");
    every_interval_gives_the_host_loop<float>(GetParam().algorithm, GetParam().rule);
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, TrackedLoop, test::every_solver_case(), test::solver_case_name);

// iht and batches ignore the interval: every iteration is reported, and the result is the same.
TEST(TrackedLoopNotTaken, IhtAndBatchesKeepTheHostLoop) {
  const Matrix<double> phi = test::shared_direction_matrix<double>(40, 120, 7, 0.5);
  for (const double batch : {0.0, 0.5}) {
    const Algorithm algorithm = batch > 0.0 ? Algorithm::aiht2 : Algorithm::iht;
    SolverOptions options = test::solver_options(algorithm, 6);
    options.threads = 1;
    options.batch_fraction = batch;
    options.seed = 3;
    const SolveResult expected = run<double>(phi, options);
    options.sync_every = 8;
    CountingObserver reports;
    options.progress = &reports;
    const SolveResult got = run<double>(phi, options);
    test::expect_same_solve(got, expected);
    EXPECT_EQ(reports.reports, expected.iterations) << to_string(algorithm);
  }
}

// A stop request is honoured at the next look: Cancelled, nothing returned.
TEST(TrackedLoopStop, AStopRequestEndsTheSolveAtTheNextLook) {
  const Matrix<double> phi = test::shared_direction_matrix<double>(40, 120, 7, 0.5);
  SolverOptions options = test::solver_options(Algorithm::aiht2, 6);
  options.threads = 1;
  options.tolerance = 0.0;
  options.max_iterations = 200;
  options.sync_every = 4;
  CountingObserver reports(6);  // four host iterations, then two looks
  options.progress = &reports;
  EXPECT_THROW(run<double>(phi, options), Cancelled);
  EXPECT_EQ(reports.reports, 6);
  EXPECT_EQ(reports.last, 4 + 2 * 4);
}

// A backend whose device refuses to record (as a GPU might refuse a graph): the driver goes on
// with the host loop from where it was, and the solve is the host loop's.
class RefusingRecorder : public cpu::CpuBackend<double> {
 public:
  using CpuBackend::CpuBackend;
  template <class Body>
  Recording record(Body) const {
    ++refusals;
    throw DeviceError("recording refused (test)");
  }
  mutable int refusals = 0;
};

TEST(TrackedLoopFallback, ARefusedRecordingLeavesTheHostLoopToFinish) {
  const Matrix<double> phi = test::shared_direction_matrix<double>(40, 120, 7, 0.5);
  SolverOptions options = test::solver_options(Algorithm::aiht2, 6);
  options.threads = 1;
  options.sync_every = 1;
  const SolveResult expected = run<double>(phi, options);
  ASSERT_GT(expected.iterations, 4);
  options.sync_every = 8;
  RefusingRecorder backend(phi.view(), 1);
  auto y = backend.make_sample_vector();
  backend.column_sums(y);
  const SolveResult got = solvers::run_algorithm(backend, y, options);
  EXPECT_EQ(backend.refusals, 1);
  test::expect_same_solve(got, expected);
  EXPECT_EQ(got.host_looks, expected.iterations);
}

// ---- the rule alone ----

TEST(TrackIteration, AppliesTheHostRuleAndRecordsTheHistoryInARing) {
  std::vector<double> history(4, -1.0);
  LoopState state;
  state.iterations = 4;
  state.z_equals_w = 0;
  const int cap = 100;
  // Iteration 5: a large move; 6: a small one relative to the size, which stops.
  solvers::track_iteration(state, 9.0, 4.0, 1.0, 1e-3, cap, history.data(), 4);
  EXPECT_EQ(state.iterations, 5);
  EXPECT_EQ(state.stopped_at, 0);
  EXPECT_EQ(state.just_stopped, 0);
  EXPECT_EQ(history[0], 9.0);  // t = 5 at (5 - 1) mod 4
  solvers::track_iteration(state, 8.0, 1e-8, 1.0, 1e-3, cap, history.data(), 4);
  EXPECT_EQ(state.stopped_at, 6);
  EXPECT_EQ(state.just_stopped, 1);
  EXPECT_EQ(state.reason, static_cast<int>(StopReason::tolerance));
  EXPECT_EQ(state.objective, 8.0);
  EXPECT_EQ(history[1], 8.0);
  // Past the stop: nothing changes but the flag, which falls.
  solvers::track_iteration(state, 1.0, 0.0, 1.0, 1e-3, cap, history.data(), 4);
  EXPECT_EQ(state.iterations, 6);
  EXPECT_EQ(state.stopped_at, 6);
  EXPECT_EQ(state.just_stopped, 0);
  EXPECT_EQ(state.objective, 8.0);
  EXPECT_EQ(history[2], -1.0);
  EXPECT_EQ(solvers::tracked_history(history, 4, 6), (std::vector<double>{9.0, 8.0}));
}

TEST(TrackIteration, StationaryOnlyFromZEqualToW) {
  std::vector<double> history(8);
  LoopState moved;
  moved.iterations = 4;
  moved.z_equals_w = 0;
  // No change, but z differed from w: not stationary; the tolerance test (0 <= 0) stops it.
  solvers::track_iteration(moved, 1.0, 0.0, 1.0, 0.0, 100, history.data(), 8);
  EXPECT_EQ(moved.stopped_at, 5);
  EXPECT_EQ(moved.reason, static_cast<int>(StopReason::tolerance));
  EXPECT_EQ(moved.z_equals_w, 1);  // w did not move, so the next z equals it
  LoopState fixed;
  fixed.iterations = 4;
  fixed.z_equals_w = 1;
  solvers::track_iteration(fixed, 1.0, 0.0, 1.0, 0.0, 100, history.data(), 8);
  EXPECT_EQ(fixed.reason, static_cast<int>(StopReason::stationary));
}

TEST(TrackIteration, StopsAtTheCapAndOnOverflow) {
  std::vector<double> history(8);
  LoopState capped;
  capped.iterations = 6;
  solvers::track_iteration(capped, 2.0, 1.0, 1.0, 1e-9, 7, history.data(), 8);
  EXPECT_EQ(capped.stopped_at, 7);
  EXPECT_EQ(capped.reason, static_cast<int>(StopReason::max_iterations));
  LoopState overflowed;
  overflowed.iterations = 6;
  solvers::track_iteration(overflowed, std::numeric_limits<double>::infinity(), 1.0, 1.0, 1e-9, 100,
                           history.data(), 8);
  EXPECT_EQ(overflowed.stopped_at, 7);
  EXPECT_EQ(overflowed.reason, solvers::kOverflowed);
}

// The host loop's test and the tracked one are one function: the first step never counts as
// small, and a step of exactly tolerance x size does.
TEST(StopTest, FirstStepNeverSmallAndTheBoundIsInclusive) {
  EXPECT_FALSE(solvers::stop_test(1, 0.5, 1.0, false, 1.0).small_change);
  EXPECT_TRUE(solvers::stop_test(2, 0.5, 1.0, false, 0.5).small_change);
  EXPECT_FALSE(solvers::stop_test(2, 0.5, 1.0, false, 0.25).stops());
  EXPECT_TRUE(solvers::stop_test(1, 0.0, 1.0, true, 0.0).stationary);
}

// kRunToTheCap (benchmarks): neither a fixed point nor a zero change stops the solve; both loops
// run every iteration up to the cap, on a problem that reaches a fixed point well before it.
TEST(StopTest, RunToTheCapStopsOnlyAtTheCap) {
  EXPECT_FALSE(solvers::stop_test(7, 0.0, 1.0, true, solvers::kRunToTheCap).stops());
  EXPECT_FALSE(solvers::stop_test(7, 0.0, 0.0, false, solvers::kRunToTheCap).stops());
  const Matrix<double> phi = test::shared_direction_matrix<double>(40, 120, 7, 0.5);
  SolverOptions options = test::solver_options(Algorithm::aiht2, 6);
  options.threads = 1;
  options.tolerance = 0.0;
  options.max_iterations = 2000;
  const SolveResult converged = run<double>(phi, options);
  ASSERT_LT(converged.iterations, 300);  // a fixed point (or a zero change), long before the cap
  options.tolerance = solvers::kRunToTheCap;
  options.max_iterations = converged.iterations + 40;
  for (const int interval : {1, 16}) {
    SCOPED_TRACE("sync_every " + std::to_string(interval));
    options.sync_every = interval;
    const SolveResult capped = run<double>(phi, options);
    EXPECT_EQ(capped.iterations, options.max_iterations);
    EXPECT_EQ(capped.stop_reason, StopReason::max_iterations);
    EXPECT_EQ(capped.objective_history.size(), static_cast<std::size_t>(options.max_iterations));
    // Past the fixed point nothing moves: the same coreset as the converged solve.
    EXPECT_EQ(capped.coreset.indices, converged.coreset.indices);
  }
}

}  // namespace
}  // namespace coreset
