// Batch A-IHT (spec 2.6, SolverOptions::batch_fraction): the subset gradient primitive, the
// batch draws, convergence on planted problems, determinism, and (through a spy backend) that
// each batch iteration reads only its fraction of the columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "solvers/iht_driver.hpp"
#include "support/random.hpp"

namespace coreset {
namespace {

SolverOptions batch_options(Algorithm algorithm, index_t k, double fraction,
                            StepRule rule = StepRule::exact) {
  SolverOptions options;
  options.algorithm = algorithm;
  options.k = k;
  options.step_rule = rule;
  options.batch_fraction = fraction;
  options.tolerance = 1e-10;
  options.max_iterations = 5000;
  return options;
}

TEST(BatchPrimitive, SubsetGradientIsThePlainProductOnTheSubsetAndZeroElsewhere) {
  const Matrix<double> phi = test::gaussian_matrix(30, 400, 1);
  const cpu::CpuBackend<double> backend(phi.view(), 1);
  std::vector<double> r(30);
  for (index_t i = 0; i < 30; ++i) {
    r[i] = std::sin(1.0 + i);
  }
  std::vector<double> full(400), part(400, 7.0);  // stale values must be overwritten
  backend.phi_t_times(r, full);
  std::vector<index_t> subset;
  support::sample_without_replacement(400, 80, 5, subset);
  backend.phi_t_times_on_subset(r, subset, part);
  const std::set<index_t> chosen(subset.begin(), subset.end());
  for (index_t j = 0; j < 400; ++j) {
    EXPECT_EQ(part[j], chosen.count(j) ? full[j] : 0.0) << "column " << j;
  }
}

TEST(BatchPrimitive, SubsetGradientDoesNotDependOnTheThreadCount) {
  // Above the threading threshold for the subset (20 rows x 60000 columns >= 2^20).
  const Matrix<float> phi = test::gaussian_matrix<float>(20, 70000, 2);
  std::vector<float> r(20, 0.5f);
  std::vector<index_t> subset;
  support::sample_without_replacement(70000, 60000, 3, subset);
  std::vector<float> one(70000), three(70000);
  cpu::CpuBackend<float>(phi.view(), 1).phi_t_times_on_subset(r, subset, one);
  cpu::CpuBackend<float>(phi.view(), 3).phi_t_times_on_subset(r, subset, three);
  EXPECT_EQ(one, three);
}

TEST(BatchDraws, AreSortedDistinctOfTheRightSizeAndReproducible) {
  std::vector<index_t> a, b, c;
  for (const std::uint64_t m : {0u, 1u, 17u, 99u, 100u}) {
    support::sample_without_replacement(100, m, 11, a);
    ASSERT_EQ(a.size(), m);
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
    EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());
    EXPECT_TRUE(a.empty() || (a.front() >= 0 && a.back() < 100));
    support::sample_without_replacement(100, m, 11, b);
    EXPECT_EQ(a, b);
  }
  support::sample_without_replacement(100, 20, support::derive_seed(11, 1), b);
  support::sample_without_replacement(100, 20, support::derive_seed(11, 2), c);
  EXPECT_NE(b, c);
}

// Every index is in the batch with probability m / n, and pairs are not favoured: over 20,000
// seeds each frequency lies within 5 standard errors of 0.3, and so does each of the n(n - 1)/2
// pair frequencies of m(m - 1) / (n(n - 1)) = 1/15.
TEST(BatchDraws, EveryIndexAndPairIsEquallyLikely) {
  constexpr int kSeeds = 20000;
  constexpr int n = 10;
  constexpr int m = 3;
  std::vector<int> count(n, 0);
  std::vector<int> pairs(n * n, 0);
  std::vector<index_t> batch;
  for (int seed = 0; seed < kSeeds; ++seed) {
    support::sample_without_replacement(n, m, support::derive_seed(42, seed), batch);
    for (const index_t i : batch) {
      ++count[i];
      for (const index_t j : batch) {
        pairs[i * n + j] += i < j ? 1 : 0;
      }
    }
  }
  const double p = 0.3;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(count[i] / double(kSeeds), p, 5 * std::sqrt(p * (1 - p) / kSeeds)) << i;
  }
  const double q = 1.0 / 15.0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      EXPECT_NEAR(pairs[i * n + j] / double(kSeeds), q, 5 * std::sqrt(q * (1 - q) / kSeeds))
          << i << "," << j;
    }
  }
}

class BatchRecovery : public ::testing::TestWithParam<std::pair<Algorithm, StepRule>> {};

// y = Phi w* exactly, S >> k: with a fifth of the gradient per iteration the solver still finds
// the planted support and weights, and stops on the confirmed tolerance, not the cap.
TEST_P(BatchRecovery, RecoversThePlantedProblemWithTwentyPercentBatches) {
  const auto [algorithm, rule] = GetParam();
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const auto problem = test::planted_problem(400, 1000, 10, seed);
    SolverOptions options = batch_options(algorithm, 10, 0.2, rule);
    options.seed = seed;
    const SolveResult result = solve(problem.phi.view(), problem.y.data(), options);
    EXPECT_TRUE(result.converged) << "seed " << seed;
    EXPECT_EQ(result.stop_reason, StopReason::tolerance) << "seed " << seed;
    EXPECT_LT(result.relative_error, 1e-6) << "seed " << seed;
    EXPECT_EQ(result.coreset.indices, problem.support) << "seed " << seed;
    for (std::size_t p = 0; p < problem.weights.size() && p < result.coreset.weights.size(); ++p) {
      EXPECT_NEAR(result.coreset.weights[p], problem.weights[p], 1e-5);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AcceleratedVariants, BatchRecovery,
                         ::testing::Values(std::pair{Algorithm::aiht, StepRule::exact},
                                           std::pair{Algorithm::aiht, StepRule::reference},
                                           std::pair{Algorithm::aiht2, StepRule::exact},
                                           std::pair{Algorithm::aiht2, StepRule::reference},
                                           std::pair{Algorithm::aiht2, StepRule::paper}),
                         [](const auto& info) {
                           std::string name =
                               to_string(info.param.first) + "_" + to_string(info.param.second);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(Batch, TheSeedDeterminesTheRunAndTheThreadCountDoesNot) {
  const Matrix<double> phi = test::gaussian_matrix(20, 70000, 4);  // above the thread thresholds
  SolverOptions options = batch_options(Algorithm::aiht2, 25, 0.2);
  options.max_iterations = 30;
  options.seed = 9;
  options.threads = 1;
  const SolveResult a = solve(phi.view(), nullptr, options);
  options.threads = 3;
  const SolveResult b = solve(phi.view(), nullptr, options);
  EXPECT_EQ(a.coreset.indices, b.coreset.indices);
  EXPECT_EQ(a.coreset.weights, b.coreset.weights);
  EXPECT_EQ(a.objective_history, b.objective_history);
  options.seed = 10;
  const SolveResult c = solve(phi.view(), nullptr, options);
  EXPECT_NE(a.objective_history, c.objective_history);
}

TEST(Batch, FractionZeroOrOneIsTheFullGradient) {
  const Matrix<double> phi = test::gaussian_matrix(50, 300, 5);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    const SolveResult full = solve(phi.view(), nullptr, batch_options(algorithm, 12, 0.0));
    const SolveResult one = solve(phi.view(), nullptr, batch_options(algorithm, 12, 1.0));
    EXPECT_EQ(full.objective_history, one.objective_history) << to_string(algorithm);
    EXPECT_EQ(full.coreset.weights, one.coreset.weights) << to_string(algorithm);
  }
  // iht accepts 1 (nothing is left out) and 0.
  EXPECT_NO_THROW(solve(phi.view(), nullptr, batch_options(Algorithm::iht, 12, 1.0)));
}

TEST(Batch, OutOfDomainFractionsAndIhtAreRefusedAndBaselinesIgnoreIt) {
  const Matrix<double> phi = test::gaussian_matrix(10, 40, 6);
  for (const double bad : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      solve(phi.view(), nullptr, batch_options(Algorithm::aiht2, 3, bad));
      ADD_FAILURE() << bad << " accepted";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("batch_fraction"), std::string::npos);
    }
  }
  try {
    solve(phi.view(), nullptr, batch_options(Algorithm::iht, 3, 0.2));
    ADD_FAILURE() << "iht accepted a batch fraction";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("a-iht and a-iht-2"), std::string::npos);
  }
  for (const Algorithm baseline : {Algorithm::giga, Algorithm::frank_wolfe,
                                   Algorithm::importance_sampling, Algorithm::uniform}) {
    const SolveResult with = solve(phi.view(), nullptr, batch_options(baseline, 3, 0.2));
    const SolveResult without = solve(phi.view(), nullptr, batch_options(baseline, 3, 0.0));
    EXPECT_EQ(with.coreset.weights, without.coreset.weights) << to_string(baseline);
  }
}

// A batch step that stays put proves nothing; the full-gradient iteration after it does.
TEST(Batch, AZeroTargetStopsAfterOneBatchAndOneConfirmingIteration) {
  const Matrix<double> phi = test::gaussian_matrix(20, 50, 7);
  const std::vector<double> zero(20, 0.0);
  const SolveResult result =
      solve(phi.view(), zero.data(), batch_options(Algorithm::aiht2, 5, 0.2));
  EXPECT_EQ(result.stop_reason, StopReason::stationary);
  EXPECT_EQ(result.iterations, 2);
  EXPECT_EQ(result.coreset.size(), 0);
}

// Forwards to the CPU backend and records every gradient pass and the columns it reads.
class BatchSpy : public cpu::CpuBackend<double> {
 public:
  using Base = cpu::CpuBackend<double>;
  using Base::Base;

  void phi_t_times(const SampleVector& r, DatapointVector& out) {
    passes.push_back(cols());
    Base::phi_t_times(r, out);
  }
  void phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
                             DatapointVector& out) {
    passes.push_back(static_cast<index_t>(subset.size()));
    subsets.insert(subset);
    sorted_and_distinct &= std::is_sorted(subset.begin(), subset.end()) &&
                           std::adjacent_find(subset.begin(), subset.end()) == subset.end();
    Base::phi_t_times_on_subset(r, subset, out);
  }

  std::vector<index_t> passes;  // columns read by each gradient, in order
  std::set<std::vector<index_t>> subsets;
  bool sorted_and_distinct = true;
};

TEST(Batch, EachBatchIterationReadsItsFractionAndFullPassesOnlyConfirmStops) {
  const auto problem = test::planted_problem(200, 1000, 8, 8);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    SolverOptions options = batch_options(algorithm, 8, 0.2);
    BatchSpy spy(problem.phi.view(), 1);
    const SolveResult result = solvers::IhtDriver<BatchSpy>(spy, problem.y, options).run();
    ASSERT_TRUE(result.converged) << to_string(algorithm);
    ASSERT_EQ(spy.passes.size(), static_cast<std::size_t>(result.iterations));
    EXPECT_TRUE(spy.sorted_and_distinct);
    const auto full = std::count(spy.passes.begin(), spy.passes.end(), 1000);
    const auto batch = std::count(spy.passes.begin(), spy.passes.end(), 200);
    EXPECT_EQ(full + batch, result.iterations) << "every pass reads 200 or all 1000 columns";
    EXPECT_EQ(spy.passes.front(), 200);
    EXPECT_EQ(spy.passes.back(), 1000) << "the stop is confirmed with the full gradient";
    EXPECT_LE(full, 1 + result.iterations / 10) << "full passes are the exception";
    EXPECT_EQ(spy.subsets.size(), static_cast<std::size_t>(batch)) << "a fresh batch each time";
    EXPECT_LT(result.relative_error, 1e-6) << to_string(algorithm);
  }
}

}  // namespace
}  // namespace coreset
