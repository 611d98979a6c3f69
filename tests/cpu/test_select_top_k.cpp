// Top-k selection: the thresholding step. Compared against a full sort with the same total
// order, on inputs built to break a careless implementation: ties, negatives, zeros, -0.0, NaN,
// exclusions, k at the edges, and the multi-threaded path.
#include "cpu/select_top_k.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace coreset::cpu {
namespace {

using solvers::SelectionRule;

// The specification, written the slow and obvious way.
std::vector<index_t> reference_top_k(const std::vector<double>& v, index_t k, SelectionRule rule,
                                     const std::vector<index_t>& exclude) {
  std::vector<index_t> eligible;
  for (index_t i = 0; i < static_cast<index_t>(v.size()); ++i) {
    const double key = rule == SelectionRule::largest_positive ? v[i] : std::abs(v[i]);
    const bool excluded = std::binary_search(exclude.begin(), exclude.end(), i);
    if (key > 0.0 && !excluded) {
      eligible.push_back(i);
    }
  }
  auto key = [&](index_t i) {
    return rule == SelectionRule::largest_positive ? v[i] : std::abs(v[i]);
  };
  std::sort(eligible.begin(), eligible.end(),
            [&](index_t a, index_t b) { return key(a) > key(b) || (key(a) == key(b) && a < b); });
  eligible.resize(std::min<std::size_t>(eligible.size(), static_cast<std::size_t>(k)));
  std::sort(eligible.begin(), eligible.end());
  return eligible;
}

// Values from a small set, so ties are everywhere, salted with the special values.
std::vector<double> awkward_vector(index_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int> pick(-6, 6);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& value : v) {
    value = 0.5 * pick(generator);
  }
  const double specials[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), -7.0, 7.0};
  std::uniform_int_distribution<index_t> position(0, n - 1);
  for (int s = 0; s < 20 && n > 0; ++s) {
    v[static_cast<std::size_t>(position(generator))] = specials[s % 5];
  }
  return v;
}

std::vector<index_t> random_subset(index_t n, index_t count, std::uint64_t seed) {
  std::vector<index_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), index_t{0});
  std::mt19937_64 generator(seed);
  std::shuffle(all.begin(), all.end(), generator);
  all.resize(static_cast<std::size_t>(std::min(n, count)));
  std::sort(all.begin(), all.end());
  return all;
}

class SelectTopK : public ::testing::TestWithParam<SelectionRule> {};

TEST_P(SelectTopK, MatchesFullSortWithTiesAndSpecialValues) {
  const SelectionRule rule = GetParam();
  for (const index_t n : {1, 2, 7, 100, 1001}) {
    const auto v = awkward_vector(n, 17 + static_cast<std::uint64_t>(n));
    for (const index_t k : {index_t{1}, index_t{2}, n / 3 + 1, n - 1, n, n + 5}) {
      if (k < 1) {
        continue;
      }
      std::vector<index_t> got;
      select_top_k(v.data(), n, k, rule, {}, got, 1);
      EXPECT_EQ(got, reference_top_k(v, k, rule, {})) << "n=" << n << " k=" << k;
    }
  }
}

TEST_P(SelectTopK, SkipsExcludedIndices) {
  const SelectionRule rule = GetParam();
  const index_t n = 500;
  const auto v = awkward_vector(n, 5);
  for (const index_t excluded_count : {0, 1, 50, 499}) {
    const auto exclude = random_subset(n, excluded_count, 9);
    for (const index_t k : {1, 10, 200}) {
      std::vector<index_t> got;
      select_top_k(v.data(), n, k, rule, exclude, got, 1);
      EXPECT_EQ(got, reference_top_k(v, k, rule, exclude))
          << "excluded=" << excluded_count << " k=" << k;
    }
  }
}

TEST_P(SelectTopK, ThreadedPathAgreesWithTheReference) {
  const SelectionRule rule = GetParam();
  const index_t n = (index_t{1} << 17) + 13;  // above the parallel threshold, not a round split
  const auto v = awkward_vector(n, 3);
  const auto exclude = random_subset(n, 1000, 4);
  const auto expected = reference_top_k(v, 100, rule, exclude);
  for (const int threads : {1, 2, 3, 8}) {
    std::vector<index_t> got;
    select_top_k(v.data(), n, 100, rule, exclude, got, threads);
    EXPECT_EQ(got, expected) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(BothRules, SelectTopK,
                         ::testing::Values(SelectionRule::largest_positive,
                                           SelectionRule::largest_magnitude));

TEST(SelectTopKRules, PositiveRuleNeverPicksZeroNegativeOrNan) {
  const std::vector<double> v = {-1.0, 0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), -3.0};
  std::vector<index_t> got;
  select_top_k(v.data(), 5, 3, SelectionRule::largest_positive, {}, got, 1);
  EXPECT_TRUE(got.empty());
  select_top_k(v.data(), 5, 3, SelectionRule::largest_magnitude, {}, got, 1);
  EXPECT_EQ(got, (std::vector<index_t>{0, 4}));  // -3 and -1: magnitude ignores the sign
}

TEST(SelectTopKRules, TiesGoToTheLowerIndex) {
  const std::vector<float> v = {1.0f, 2.0f, 2.0f, 1.0f, 2.0f};
  std::vector<index_t> got;
  select_top_k(v.data(), 5, 2, SelectionRule::largest_positive, {}, got, 1);
  EXPECT_EQ(got, (std::vector<index_t>{1, 2}));
}

// Pi_{C_k and R+} must be the exact Euclidean projection (spec T1): keeping the selected entries
// is at least as close to v as keeping any other support of size <= k (clipped at 0).
TEST(SelectTopKRules, PositiveSelectionIsTheExactProjectionOntoSparseNonNegativeVectors) {
  std::mt19937_64 generator(11);
  std::normal_distribution<double> normal;
  const index_t n = 9;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> v(n);
    for (double& value : v) {
      value = normal(generator);
    }
    for (index_t k = 1; k <= 4; ++k) {
      std::vector<index_t> kept;
      select_top_k(v.data(), n, k, SelectionRule::largest_positive, {}, kept, 1);
      auto distance_sq = [&](const std::vector<index_t>& support) {
        double sum = 0.0;
        for (index_t i = 0; i < n; ++i) {
          const bool in = std::find(support.begin(), support.end(), i) != support.end();
          const double projected = in ? std::max(v[i], 0.0) : 0.0;
          sum += (v[i] - projected) * (v[i] - projected);
        }
        return sum;
      };
      const double best = distance_sq(kept);
      for (unsigned mask = 0; mask < (1u << n); ++mask) {
        if (__builtin_popcount(mask) > k) {
          continue;
        }
        std::vector<index_t> support;
        for (index_t i = 0; i < n; ++i) {
          if (mask & (1u << i)) {
            support.push_back(i);
          }
        }
        ASSERT_LE(best, distance_sq(support) + 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace coreset::cpu
