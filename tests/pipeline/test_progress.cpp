// SolverOptions::progress (coreset/progress.hpp): the stages are announced in order with their
// sizes, progress is reported, a stop request ends every long loop with Cancelled, and an
// observer never changes a result.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/progress.hpp"
#include "helpers/random_problem.hpp"

namespace coreset {
namespace {

// Records the stages; asks to stop once `stop_after` units of `stop_stage` are done.
class Recorder : public ProgressObserver {
 public:
  explicit Recorder(Stage stop_stage = Stage::evaluation, std::int64_t stop_after = -1)
      : stop_stage_(stop_stage), stop_after_(stop_after) {}

  void stage_started(Stage stage, std::int64_t total) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    stages.emplace_back(stage, total);
    current_ = stage;
  }
  void advanced(std::int64_t done) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++advances;
    if (stop_after_ >= 0 && current_ == stop_stage_ && done >= stop_after_) {
      stop_ = true;
    }
  }
  bool stop_requested() noexcept override {
    ++polls;
    return stop_.load();
  }

  std::vector<std::pair<Stage, std::int64_t>> stages;
  int advances = 0;
  std::atomic<int> polls{0};

 private:
  std::mutex mutex_;
  Stage current_ = Stage::laplace;
  Stage stop_stage_;
  std::int64_t stop_after_;
  std::atomic<bool> stop_{false};
};

BuildOptions logistic_options() {
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.samples = 100;
  options.solver.k = 10;
  options.solver.threads = 2;
  return options;
}

TEST(Progress, BuildAnnouncesEveryStageInOrderAndKeepsTheResult) {
  const Dataset data = synthetic_logistic_dataset(2000, 1);
  BuildOptions options = logistic_options();
  const BuildResult plain = build_coreset(data, options);
  Recorder recorder;
  options.solver.progress = &recorder;
  const BuildResult watched = build_coreset(data, options);
  EXPECT_EQ(watched.solve.coreset.indices, plain.solve.coreset.indices);
  EXPECT_EQ(watched.solve.coreset.weights, plain.solve.coreset.weights);
  EXPECT_EQ(watched.quality.forward_kl, plain.quality.forward_kl);

  std::vector<Stage> order;
  for (const auto& [stage, total] : recorder.stages) {
    order.push_back(stage);
    if (stage == Stage::projection) {
      EXPECT_EQ(total, 2000);
    }
    if (stage == Stage::solve) {
      EXPECT_EQ(total, options.solver.max_iterations);
    }
  }
  EXPECT_EQ(order, (std::vector<Stage>{Stage::laplace, Stage::sampling, Stage::projection,
                                       Stage::solve, Stage::evaluation}));
  EXPECT_GT(recorder.advances, watched.solve.iterations);
  EXPECT_GT(recorder.polls.load(), watched.solve.iterations);
}

void expect_cancelled_in(Stage stage, std::int64_t after) {
  SCOPED_TRACE(to_string(stage));
  const Dataset data = synthetic_logistic_dataset(5000, 2);
  BuildOptions options = logistic_options();
  options.solver.tolerance = 0.0;  // the solve would run all 300 iterations
  Recorder recorder(stage, after);
  options.solver.progress = &recorder;
  EXPECT_THROW(build_coreset(data, options), Cancelled);
  ASSERT_FALSE(recorder.stages.empty());
  EXPECT_EQ(recorder.stages.back().first, stage);  // stopped there, not later
}

TEST(Progress, AStopRequestEndsEachLongStage) {
  expect_cancelled_in(Stage::laplace, 1);
  expect_cancelled_in(Stage::projection, 1);
  expect_cancelled_in(Stage::solve, 5);
}

TEST(Progress, AStopRequestEndsEverySolver) {
  const auto problem = test::planted_problem(100, 400, 5, 9);
  for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2,
                                    Algorithm::giga, Algorithm::frank_wolfe}) {
    SCOPED_TRACE(to_string(algorithm));
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = 50;
    options.tolerance = 0.0;
    options.max_iterations = 100000;
    Recorder recorder(Stage::solve, 3);
    options.progress = &recorder;
    EXPECT_THROW(solve(problem.phi.view(), nullptr, options), Cancelled);
    ASSERT_EQ(recorder.stages.size(), 1u);
    EXPECT_EQ(recorder.stages[0].first, Stage::solve);
  }
}

TEST(Progress, AStopRequestEndsSparseVi) {
  const Dataset data = synthetic_logistic_dataset(300, 4);
  BuildOptions options = logistic_options();
  options.solver.algorithm = BuildAlgorithm::sparsevi;
  options.solver.sparsevi.steps = 50;
  Recorder recorder(Stage::solve, 1);
  options.solver.progress = &recorder;
  EXPECT_THROW(build_coreset(data, options), Cancelled);
  EXPECT_EQ(recorder.stages.back().first, Stage::solve);
}

// Phi from the caller's own log-likelihoods (Python's solve_loglik, `coreset solve --loglik`):
// announced as the projection in datapoints, reported to the end, stopped within a block, and
// the same Phi watched or not, in every layout the blocks cut.
TEST(Progress, LogLikelihoodsToPhiReportsAndStops) {
  const index_t n = 40000, s = 7;  // more than two blocks of datapoints, the last one partial
  std::vector<double> draw_major(static_cast<std::size_t>(n * s));
  for (std::size_t e = 0; e < draw_major.size(); ++e) {
    draw_major[e] = std::sin(0.001 * static_cast<double>(e));
  }
  const Matrix<double> plain = projection_from_loglik(draw_major.data(), n, s, 1, n);
  Recorder recorder;
  const Matrix<double> watched = projection_from_loglik(draw_major.data(), n, s, 1, n, &recorder);
  EXPECT_EQ(std::vector<double>(watched.data(), watched.data() + n * s),
            std::vector<double>(plain.data(), plain.data() + n * s));
  ASSERT_EQ(recorder.stages.size(), 1u);
  EXPECT_EQ(recorder.stages[0], std::make_pair(Stage::projection, std::int64_t{n}));
  EXPECT_GE(recorder.advances, 3);
  EXPECT_GE(recorder.polls.load(), 3);

  // A datapoint-major copy of the same numbers: the same Phi.
  std::vector<double> datapoint_major(draw_major.size());
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < s; ++j) {
      datapoint_major[static_cast<std::size_t>(i * s + j)] =
          draw_major[static_cast<std::size_t>(j * n + i)];
    }
  }
  const Matrix<double> other = projection_from_loglik(datapoint_major.data(), n, s, s, 1);
  EXPECT_EQ(std::vector<double>(other.data(), other.data() + n * s),
            std::vector<double>(plain.data(), plain.data() + n * s));

  Recorder stopper(Stage::projection, 1);
  EXPECT_THROW(projection_from_loglik(draw_major.data(), n, s, 1, n, &stopper), Cancelled);
  EXPECT_LT(stopper.advances, 3);  // stopped after its first block, not at the end
}

}  // namespace
}  // namespace coreset
