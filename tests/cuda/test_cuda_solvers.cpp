// Whole solves on the GPU against the same solves on the CPU, through the public solve() with
// SolverOptions::device: the drivers of solvers/ are shared, so any difference is the backend's.
// Label `gpu`: skipped without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "coreset/solver.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/gpu_test_support.hpp"
#include "cuda/resources.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/iht_driver.hpp"
#include "solvers/stopping_rule.hpp"

namespace coreset {
namespace {

SolveResult solve_on(Device device, const Matrix<double>& phi, const std::vector<double>* y,
                     SolverOptions options) {
  options.device = device;
  return solve(phi.view(), y != nullptr ? y->data() : nullptr, options);
}

SolveResult solve_on(Device device, const Matrix<float>& phi, const std::vector<float>* y,
                     SolverOptions options) {
  options.device = device;
  return solve(phi.view(), y != nullptr ? y->data() : nullptr, options);
}

Matrix<float> to_float(const Matrix<double>& phi) {
  Matrix<float> out(phi.rows(), phi.cols());
  for (index_t j = 0; j < phi.cols(); ++j) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      out(i, j) = static_cast<float>(phi(i, j));
    }
  }
  return out;
}

class GpuPlanted : public ::testing::TestWithParam<test::SolverCase> {
 protected:
  void SetUp() override { CORESET_REQUIRE_GPU(); }
};

TEST_P(GpuPlanted, FindsTheSameSupportAsTheCpu) {
  for (const std::uint64_t seed : {1u, 2u}) {
    // 401 x 1003 with 10 planted columns: well separated, both must recover it.
    const auto problem = test::planted_problem(400, 1000, 10, seed);
    SolverOptions options;
    options.algorithm = GetParam().algorithm;
    options.step_rule = GetParam().rule;
    options.k = 10;
    options.max_iterations = 5000;
    options.tolerance = 1e-7;
    const SolveResult cpu = solve_on(Device::cpu, problem.phi, &problem.y, options);
    const SolveResult gpu = solve_on(Device::gpu, problem.phi, &problem.y, options);
    EXPECT_EQ(gpu.device, Device::gpu);
    EXPECT_EQ(gpu.coreset.indices, cpu.coreset.indices);
    EXPECT_EQ(gpu.coreset.indices, problem.support);
    EXPECT_NEAR(gpu.objective, cpu.objective, 1e-6 * cpu.target_norm * cpu.target_norm + 1e-12);
    // float: the same support, the objective to float accuracy.
    const Matrix<float> phi32 = to_float(problem.phi);
    const std::vector<float> y32(problem.y.begin(), problem.y.end());
    const SolveResult cpu32 = solve_on(Device::cpu, phi32, &y32, options);
    const SolveResult gpu32 = solve_on(Device::gpu, phi32, &y32, options);
    if (cpu32.coreset.indices == problem.support) {
      EXPECT_EQ(gpu32.coreset.indices, problem.support) << "float, seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithmAndRule, GpuPlanted, test::every_solver_case(),
                         test::solver_case_name);

class GpuSolvers : public ::testing::Test {
 protected:
  void SetUp() override { CORESET_REQUIRE_GPU(); }
};

// Random problems with the default target y = Phi 1, where the answer is not planted: the GPU's
// objective must be the CPU's to 1e-4 relative (double), 1e-3 (float: the trajectories may part
// at a near-tie in a selection and meet again at the same level).
TEST_F(GpuSolvers, ObjectivesMatchTheCpuOnRandomProblems) {
  const index_t sizes[][3] = {{50, 333, 7}, {100, 2049, 40}, {257, 10007, 100}};
  for (const auto& size : sizes) {
    const Matrix<double> phi = test::gaussian_matrix(size[0], size[1], 7 + size[1]);
    const Matrix<float> phi32 = to_float(phi);
    for (const Algorithm algorithm : {Algorithm::iht, Algorithm::aiht, Algorithm::aiht2}) {
      SolverOptions options;
      options.algorithm = algorithm;
      options.k = size[2];
      const SolveResult cpu = solve_on(Device::cpu, phi, nullptr, options);
      const SolveResult gpu = solve_on(Device::gpu, phi, nullptr, options);
      EXPECT_NEAR(gpu.objective, cpu.objective, 1e-4 * cpu.objective)
          << to_string(algorithm) << " n " << size[1];
      EXPECT_LE(static_cast<index_t>(gpu.coreset.size()), options.k);
      const SolveResult cpu32 = solve_on(Device::cpu, phi32, nullptr, options);
      const SolveResult gpu32 = solve_on(Device::gpu, phi32, nullptr, options);
      EXPECT_NEAR(gpu32.objective, cpu32.objective, 1e-3 * cpu32.objective)
          << to_string(algorithm) << " float n " << size[1];
    }
  }
}

TEST_F(GpuSolvers, BudgetsAtTheEdgesMatchTheCpu) {
  const Matrix<double> phi = test::gaussian_matrix(60, 97, 5);
  for (const index_t k : {index_t{1}, index_t{96}, index_t{97}, index_t{500}}) {
    for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
      SolverOptions options;
      options.algorithm = algorithm;
      options.k = k;
      const SolveResult cpu = solve_on(Device::cpu, phi, nullptr, options);
      const SolveResult gpu = solve_on(Device::gpu, phi, nullptr, options);
      EXPECT_EQ(gpu.k, cpu.k);
      EXPECT_NEAR(gpu.objective, cpu.objective, 1e-4 * cpu.objective + 1e-12) << "k " << k;
      EXPECT_LE(gpu.coreset.size(), std::min<index_t>(k, 97));
      if (k == 1) {
        EXPECT_EQ(gpu.coreset.indices, cpu.coreset.indices);
      }
    }
  }
}

TEST_F(GpuSolvers, BaselinesMatchTheCpu) {
  const Matrix<double> phi = test::gaussian_matrix(80, 1501, 9);
  for (const Algorithm algorithm : {Algorithm::giga, Algorithm::frank_wolfe,
                                    Algorithm::importance_sampling, Algorithm::uniform}) {
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = 25;
    options.seed = 3;
    const SolveResult cpu = solve_on(Device::cpu, phi, nullptr, options);
    const SolveResult gpu = solve_on(Device::gpu, phi, nullptr, options);
    // The samplers draw on the host from the same generator: the same points exactly.
    if (algorithm == Algorithm::importance_sampling || algorithm == Algorithm::uniform) {
      EXPECT_EQ(gpu.coreset.indices, cpu.coreset.indices) << to_string(algorithm);
    }
    EXPECT_NEAR(gpu.objective, cpu.objective, 1e-4 * cpu.objective) << to_string(algorithm);
    EXPECT_EQ(gpu.iterations, cpu.iterations) << to_string(algorithm);
  }
}

TEST_F(GpuSolvers, BatchRefitAndDuplicatesMatchTheCpu) {
  // Planted, so both devices must land on the same support whatever the batches' rounding.
  auto problem = test::planted_problem(400, 1000, 10, 1);
  // A copy of a planted column at an index outside the support (y is unchanged): it must never
  // be chosen on either device, the first copy carries the weight.
  const index_t original = problem.support.front();
  index_t copy = 999;
  while (std::find(problem.support.begin(), problem.support.end(), copy) != problem.support.end() ||
         copy <= original) {
    --copy;
  }
  for (index_t i = 0; i < problem.phi.rows(); ++i) {
    problem.phi(i, copy) = problem.phi(i, original);
  }
  SolverOptions options;
  options.k = 10;
  options.batch_fraction = 0.2;
  options.refit = true;
  options.seed = 1;
  options.tolerance = 1e-10;
  options.max_iterations = 5000;
  const SolveResult cpu = solve_on(Device::cpu, problem.phi, &problem.y, options);
  const SolveResult gpu = solve_on(Device::gpu, problem.phi, &problem.y, options);
  EXPECT_EQ(cpu.coreset.indices, problem.support);
  EXPECT_EQ(gpu.coreset.indices, cpu.coreset.indices);
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-6 * cpu.target_norm * cpu.target_norm);
  for (const index_t i : gpu.coreset.indices) {
    EXPECT_NE(i, copy);
  }
}

// The GPU's default loop records two iterations as a CUDA graph, replays them with the stopping
// rule on the device and looks every 16 iterations (SolverSettings::sync_every). It must give
// the per-iteration host loop's solve on the same device bit for bit: the same iterations, stop,
// history and coreset. Cases: convergence, the cap inside a pair and at its end, a warm start,
// duplicate columns, k = n, both precisions and a-iht and a-iht-2 under every step rule; and over
// the one-block selection's 16384 keys, where the selections over n of k up to
// kLargestHintedBudget keep threshold hints and the graph holds their full passes in conditional
// nodes (kernels/select.cu), which a host loop cannot use.
TEST_F(GpuSolvers, TheRecordedLoopGivesTheHostLoopsSolve) {
  const Matrix<double> shared = test::shared_direction_matrix<double>(64, 3000, 5, 0.5);
  const Matrix<double> wide = test::shared_direction_matrix<double>(16, 40001, 7, 0.5);
  const Matrix<double> copies = test::matrix_with_copies();
  struct Case {
    const char* name;
    const Matrix<double>* phi;
    index_t k;
    int max_iterations;
    double tolerance;
    bool warm_start;
  };
  const Case cases[] = {
      {"converges", &shared, 40, 300, 1e-6, false},
      {"cap inside a pair", &shared, 40, 11, 0.0, false},
      {"cap at a pair's end", &shared, 40, 12, 0.0, false},
      {"warm start", &shared, 40, 300, 1e-6, true},
      {"duplicate columns", &copies, 12, 300, 1e-7, false},
      {"k = n", &copies, copies.cols(), 300, 1e-7, false},
      // Tolerance 0 and a cap: the recorded loop surely runs (a refused
      // conditional node would fall back to the host loop: fewer looks fail).
      {"over 16384 columns", &wide, 60, 30, 0.0, false},
      // k = 6000: no hints by default (kLargestHintedBudget); the full passes in the graph.
      {"over 16384 columns, k = 6000", &wide, 6000, 30, 0.0, false},
      {"over 16384 columns, k over 16384", &wide, 17000, 20, 0.0, false}};
  for (const Case& c : cases) {
    const Matrix<float> phi32 = to_float(*c.phi);
    for (const test::SolverCase solver :
         {test::SolverCase{Algorithm::aiht, StepRule::exact},
          test::SolverCase{Algorithm::aiht, StepRule::paper},
          test::SolverCase{Algorithm::aiht2, StepRule::exact},
          test::SolverCase{Algorithm::aiht2, StepRule::reference}}) {
      SolverOptions options;
      options.algorithm = solver.algorithm;
      options.step_rule = solver.rule;
      options.k = c.k;
      options.max_iterations = c.max_iterations;
      options.tolerance = c.tolerance;
      if (c.warm_start) {
        options.initial_weights.indices = {3, 400, 2999};
        options.initial_weights.weights = {1.0, 0.5, 2.0};
      }
      for (const bool single : {false, true}) {
        SCOPED_TRACE(std::string(c.name) + ", " + to_string(solver.algorithm) + " " +
                     to_string(solver.rule) + (single ? ", float" : ", double"));
        const auto run = [&](int sync_every) {
          options.sync_every = sync_every;
          return single ? solve_on(Device::gpu, phi32, nullptr, options)
                        : solve_on(Device::gpu, *c.phi, nullptr, options);
        };
        const SolveResult host = run(1);
        for (const int sync_every : {0, 3}) {
          const SolveResult recorded = run(sync_every);
          test::expect_same_solve(recorded, host);
          if (host.iterations > 8) {
            EXPECT_LT(recorded.host_looks, host.host_looks);  // the graph loop really ran
          }
        }
      }
    }
  }
}

// The recorded loop with threshold hints at every budget the mechanism serves, as
// CudaBackend::reuse_thresholds allows (the default hints only k <= kLargestHintedBudget): at
// k = 6000 over 40001 columns the selections over n keep hints, and so does the projected step's
// among its 18000 candidates, each selection's full passes a conditional node of the graph. The
// host loop's solve, bit for bit, on a backend of its own each time (hints start empty). A-IHT's
// recorded solve must make some selections among the candidates, so that the graph's skip of the
// full passes ran (a CPU replay of this Phi made 11 and 17 in the two selections over n; A-IHT II
// stops after about 12 iterations here, with one or two such selections, which may fall in the
// host-loop iterations before the graph).
TEST_F(GpuSolvers, TheRecordedLoopWithHintsAtEveryBudgetGivesTheHostLoopsSolve) {
  const Matrix<float> phi = to_float(test::shared_direction_matrix<double>(16, 40001, 7, 0.5));
  cuda::Resources resources;
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    SCOPED_TRACE(to_string(algorithm));
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = 6000;
    options.max_iterations = 30;
    options.tolerance = 0.0;
    struct Run {
      SolveResult result;
      long long hinted = 0;         // selections with a hint, made either way
      long long by_candidates = 0;  // of them, made among the candidates
    };
    const auto run = [&](int sync_every) {
      cuda::CudaBackend<float> gpu(resources, phi.view());
      gpu.reuse_thresholds(true, cuda::CudaBackend<float>::kEveryBudget);
      auto y = gpu.make_sample_vector();
      gpu.column_sums(y);
      options.sync_every = sync_every;
      Run out;
      out.result = solvers::IhtDriver<cuda::CudaBackend<float>>(gpu, y, options).run();
      const auto counts = gpu.selection_counts();
      out.hinted = counts.by_candidates + counts.full;
      out.by_candidates = counts.by_candidates;
      return out;
    };
    const Run host = run(1);
    EXPECT_GT(host.hinted, 0);
    for (const int sync_every : {0, 3}) {
      const Run recorded = run(sync_every);
      test::expect_same_solve(recorded.result, host.result);
      if (host.result.iterations > 8) {
        EXPECT_LT(recorded.result.host_looks, host.result.host_looks);  // the graph loop ran
      }
      EXPECT_GT(recorded.hinted, 0);
      if (algorithm == Algorithm::aiht) {
        EXPECT_GT(recorded.by_candidates, 0);
      }
    }
  }
}

// The IHT driver's solve on a backend of its own, with the fewer-launch paths or without them;
// `nodes`: the nodes of its last recording (0 when it recorded none).
template <class T>
SolveResult solve_launching(cuda::Resources& resources, const Matrix<T>& phi,
                            const SolverOptions& options, bool fused, std::size_t* nodes) {
  cuda::CudaBackend<T> gpu(resources, phi.view());
  gpu.fuse_launches(fused);
  auto y = gpu.make_sample_vector();
  gpu.column_sums(y);
  SolveResult result = solvers::IhtDriver<cuda::CudaBackend<T>>(gpu, y, options).run();
  *nodes = gpu.recorded_nodes();
  return result;
}

// The fewer-launch paths (CudaBackend::fuse_launches: both selections over one gradient
// together, supports copied by the launches that read them, steps of up to 2048 slots made and
// compacted at once) give the solve of the launches they replaced, bit for bit, in the recorded
// loop and the host loop: at k = 40 (every step in one launch, selections hinted), 700 (no hints
// past k = 256: one set of histogram passes for both selections; the union of z and the
// expansion past 2048 slots) and 6000 over 40001 columns, in both precisions, A-IHT and A-IHT
// II. The recorded iteration has fewer nodes with them. Every solve runs to the cap, so the
// recorded loop always records (a solve at a fixed point within the host's first iterations
// would record nothing); a recording that failed (the driver then goes on in the host loop,
// the same bits) shows as no nodes.
TEST_F(GpuSolvers, TheFewerLaunchPathsGiveTheSameSolve) {
  const Matrix<double> wide = test::shared_direction_matrix<double>(16, 40001, 7, 0.5);
  const Matrix<float> wide32 = to_float(wide);
  cuda::Resources resources;
  for (const index_t k : {index_t{40}, index_t{700}, index_t{6000}}) {
    for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
      SolverOptions options;
      options.algorithm = algorithm;
      options.k = k;
      options.max_iterations = 30;
      options.tolerance = solvers::kRunToTheCap;
      for (const int sync_every : {1, 0}) {
        options.sync_every = sync_every;
        SCOPED_TRACE("k " + std::to_string(k) + ", " + to_string(algorithm) +
                     (sync_every == 1 ? ", host loop" : ", recorded loop"));
        const auto expect_same_with_fewer_nodes = [&](const auto& phi) {
          std::size_t fused_nodes = 0;
          std::size_t unfused_nodes = 0;
          test::expect_same_solve(solve_launching(resources, phi, options, true, &fused_nodes),
                                  solve_launching(resources, phi, options, false, &unfused_nodes));
          if (sync_every == 0) {
            EXPECT_GT(fused_nodes, 0u) << "the recorded loop with the fewer launches did not run";
            EXPECT_GT(unfused_nodes, 0u) << "the recorded loop did not run";
            EXPECT_LT(fused_nodes, unfused_nodes);
          }
        };
        {
          SCOPED_TRACE("double");
          expect_same_with_fewer_nodes(wide);
        }
        SCOPED_TRACE("float");
        expect_same_with_fewer_nodes(wide32);
      }
    }
  }
}

TEST_F(GpuSolvers, AutomaticPicksTheGpu) {
  const Matrix<double> phi = test::gaussian_matrix(20, 50, 1);
  SolverOptions options;
  options.k = 5;
  EXPECT_EQ(solve_on(Device::automatic, phi, nullptr, options).device, Device::gpu);
}

}  // namespace
}  // namespace coreset
