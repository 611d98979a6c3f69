// The execution context (pipeline/execution_context.hpp): a job resolves its device and thread
// count once, and every stage takes them from there. What runs without a GPU: `automatic` falls
// back to the CPU with the reason, `gpu` is a DeviceError, the thread count is fixed at
// resolution, and a PreparedProblem's solves and evaluations resolve nothing again.
#include <gtest/gtest.h>
#include <omp.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/random_problem.hpp"
#include "pipeline/execution_context.hpp"
#include "support/threads.hpp"

namespace coreset {
namespace {

using pipeline::ExecutionContext;

BuildOptions small_options(index_t k) {
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.solver.k = k;
  options.samples = 100;
  options.seed = 3;
  return options;
}

// Restores the OpenMP default team size a test changes.
class OmpThreadsScope {
 public:
  OmpThreadsScope() : saved_(omp_get_max_threads()) {}
  ~OmpThreadsScope() { omp_set_num_threads(saved_); }
  OmpThreadsScope(const OmpThreadsScope&) = delete;
  OmpThreadsScope& operator=(const OmpThreadsScope&) = delete;

 private:
  int saved_;
};

TEST(ExecutionContext, AutomaticWithoutAGpuResolvesToTheCpuAndKeepsTheReason) {
  std::string why;
  if (gpu_usable(&why)) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  const ExecutionContext context(Device::automatic, 0, Precision::float64, nullptr);
  EXPECT_EQ(context.device(), Device::cpu);
  EXPECT_FALSE(context.on_gpu());
  EXPECT_FALSE(context.why_not_gpu().empty());
  EXPECT_EQ(context.why_not_gpu(), why);
  EXPECT_THROW(context.gpu_session(), std::logic_error);
}

TEST(ExecutionContext, TheCpuIsTakenAsAskedWithNoReason) {
  const ExecutionContext context(Device::cpu, 1, Precision::float32, nullptr);
  EXPECT_EQ(context.device(), Device::cpu);
  EXPECT_TRUE(context.why_not_gpu().empty());
  EXPECT_EQ(context.precision(), Precision::float32);
}

TEST(ExecutionContext, GpuWithoutAGpuIsADeviceErrorThatSaysWhy) {
  std::string why;
  if (gpu_usable(&why)) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  try {
    const ExecutionContext context(Device::gpu, 0, Precision::float64, nullptr);
    FAIL() << "a context on a missing GPU was made";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find(why), std::string::npos) << error.what();
  }
}

TEST(ExecutionContext, ThreadsResolveOnceZeroToEveryCoreAndNToN) {
  const OmpThreadsScope restore;
  omp_set_num_threads(3);
  // OpenMP's 3, or fewer under a CPU quota (support/cgroup_limits.hpp): a CI container's.
  const int every = support::threads_within_limit(3, support::process_cpu_limit(), false);
  EXPECT_GE(pipeline::resolve_threads(0), 1);
  EXPECT_LE(pipeline::resolve_threads(0), 3);
  EXPECT_EQ(pipeline::resolve_threads(5), 5);
  const ExecutionContext every_core(Device::cpu, 0, Precision::float64, nullptr);
  const ExecutionContext two(Device::cpu, 2, Precision::float64, nullptr);
  if (!support::omp_num_threads_in_environment()) {
    EXPECT_EQ(every_core.threads(), every);
  }
  const int resolved = every_core.threads();
  EXPECT_EQ(two.threads(), 2);
  // Resolved at construction: a later change of the OpenMP default does not reach the job.
  omp_set_num_threads(1);
  EXPECT_EQ(every_core.threads(), resolved);
  SolverOptions same;  // threads 0, as the job asked: nothing is resolved again
  EXPECT_EQ(every_core.for_solve(same).threads(), resolved);
}

// What OpenMP's default team is when each stage begins: the team of every pass that names none.
class DefaultTeamAtEachStage final : public ProgressObserver {
 public:
  void stage_started(Stage stage, std::int64_t) override {
    teams.emplace_back(stage, omp_get_max_threads());
  }
  std::vector<std::pair<Stage, int>> teams;

  /// Every stage seen (there must be some) began under a default team of `threads`; clears them.
  void expect_every_stage_under(int threads, const std::string& which) {
    ASSERT_FALSE(teams.empty()) << which;
    for (const auto& [stage, team] : teams) {
      EXPECT_EQ(team, threads) << to_string(stage) << " (" << which << ")";
    }
    teams.clear();
  }
};

TEST(ExecutionContext, AJobsUnnamedTeamsAreItsThreadsAndTheCallersSettingIsKept) {
  const OmpThreadsScope restore;
  omp_set_num_threads(3);
  const Dataset data = synthetic_logistic_dataset(300, 4);
  BuildOptions options = small_options(5);
  DefaultTeamAtEachStage observer;
  options.solver.progress = &observer;
  for (const int threads : {1, 2}) {
    options.solver.threads = threads;
    build_coreset(data, options);
    observer.expect_every_stage_under(threads, "a build on " + std::to_string(threads));
    EXPECT_EQ(omp_get_max_threads(), 3) << "the job did not put the caller's setting back";
  }
}

// A prepared problem's solve takes its own threads: its stages run under them, not under the
// preparation's.
TEST(ExecutionContext, ASolvesUnnamedTeamsAreTheSolvesThreads) {
  const OmpThreadsScope restore;
  omp_set_num_threads(3);
  const Dataset data = synthetic_logistic_dataset(300, 5);
  BuildOptions options = small_options(5);
  DefaultTeamAtEachStage observer;
  options.solver.progress = &observer;
  options.solver.threads = 1;
  const PreparedProblem problem(data, options);
  observer.expect_every_stage_under(1, "preparation");
  BuildSolverOptions solver = options.solver;
  solver.threads = 2;
  problem.solve_and_evaluate(solver);
  observer.expect_every_stage_under(2, "the solve's");
  EXPECT_EQ(omp_get_max_threads(), 3);
}

TEST(ScopedDefaultTeam, SetsTheTeamAndPutsItBackAlsoWhenUnwinding) {
  const OmpThreadsScope restore;
  omp_set_num_threads(3);
  {
    const support::ScopedDefaultTeam team(1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    {
      // 0: the default, which is never more than the team already set.
      const support::ScopedDefaultTeam default_team(0);
      EXPECT_EQ(omp_get_max_threads(), 1);
    }
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_THROW(
      {
        const support::ScopedDefaultTeam team(2);
        throw std::runtime_error("unwinding");
      },
      std::runtime_error);
  EXPECT_EQ(omp_get_max_threads(), 3);
}

TEST(ExecutionContext, ASolveKeepsTheJobsResolutionWithItsOwnThreadsAndProgress) {
  const ExecutionContext job(Device::cpu, 4, Precision::float64, nullptr);
  SolverOptions solver;
  solver.threads = 1;
  ProgressObserver observer;
  solver.progress = &observer;
  const std::uint64_t before = ExecutionContext::resolutions();
  const ExecutionContext solve = job.for_solve(solver);
  EXPECT_EQ(ExecutionContext::resolutions(), before);
  EXPECT_EQ(solve.resolution(), job.resolution());
  EXPECT_EQ(solve.device(), job.device());
  EXPECT_EQ(solve.threads(), 1);
  EXPECT_EQ(solve.progress(), &observer);
  EXPECT_EQ(job.threads(), 4);
}

TEST(ExecutionContext, APreparedProblemResolvesOnceForAllItsSolvesAndEvaluations) {
  const Dataset data = synthetic_logistic_dataset(300, 1);
  const BuildOptions options = small_options(5);
  const std::uint64_t before = ExecutionContext::resolutions();
  const PreparedProblem problem(data, options);
  EXPECT_EQ(ExecutionContext::resolutions(), before + 1);
  BuildSolverOptions solver = options.solver;
  for (const BuildAlgorithm algorithm :
       {BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::sparsevi}) {
    solver.algorithm = algorithm;
    solver.threads = 1;
    solver.sparsevi.steps = 5;
    const CoresetRun run = problem.solve_and_evaluate(solver);
    EXPECT_EQ(run.solve.device, Device::cpu);
    problem.evaluate(run.solve.coreset);
  }
  problem.solve_and_evaluate_budgets(solver, {2, 4});
  EXPECT_EQ(ExecutionContext::resolutions(), before + 1);
}

TEST(ExecutionContext, EachJobResolvesExactlyOnce) {
  const Dataset data = synthetic_logistic_dataset(300, 2);
  const BuildOptions options = small_options(5);
  std::uint64_t before = ExecutionContext::resolutions();
  const BuildResult built = build_coreset(data, options);
  EXPECT_EQ(ExecutionContext::resolutions(), before + 1);

  before = ExecutionContext::resolutions();
  evaluate_coreset(data, options, built.solve.coreset);
  EXPECT_EQ(ExecutionContext::resolutions(), before + 1);

  const Matrix<double> phi = test::gaussian_matrix(20, 60, 7);
  SolverOptions solver;
  solver.k = 4;
  before = ExecutionContext::resolutions();
  solve(phi.view(), nullptr, solver);
  solve(phi.view(), nullptr, solver);
  EXPECT_EQ(ExecutionContext::resolutions(), before + 2);
}

// The per-solve thread count is the solve's own, as before the context: a PreparedProblem built
// with several threads and solved with one gives the same coreset, bit for bit, as solve() on
// the same Phi (the CPU reference is independent of the thread count).
TEST(ExecutionContext, APreparedProblemSolvesAsSolveDoesOnItsPhi) {
  const Dataset data = synthetic_logistic_dataset(400, 4);
  BuildOptions options = small_options(8);
  options.solver.threads = 2;
  const PreparedProblem problem(data, options);
  BuildSolverOptions one = options.solver;
  one.threads = 1;
  const SolveResult a = problem.solve(one);
  const SolveResult b = problem.solve(options.solver);
  EXPECT_EQ(a.coreset.indices, b.coreset.indices);
  EXPECT_EQ(a.coreset.weights, b.coreset.weights);
  EXPECT_EQ(a.objective, b.objective);
}

}  // namespace
}  // namespace coreset
