// The GPU top-k's pure logic (kernels/radix_select_logic.hpp), run on the CPU: the key transform,
// the digit choice, and the whole radix selection replayed on the host with the same state
// machine the kernels use, against std::nth_element. These run in CI, without a GPU.
#include "kernels/radix_select_logic.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include "helpers/top_k_oracle.hpp"

namespace coreset::kernels::radix {
namespace {

using solvers::SelectionRule;

// The device algorithm step by step on the host: the histograms of every pass, then the keys
// above t and the lowest-index ties.
template <class T>
std::vector<index_t> radix_top_k(const std::vector<T>& v, index_t k, SelectionRule rule,
                                 const std::vector<bool>& excluded = {}) {
  using Key = key_t<T>;
  const bool magnitude = rule == SelectionRule::largest_magnitude;
  std::vector<Key> keys(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool out = !excluded.empty() && excluded[i];
    keys[i] = out ? Key(0) : selection_key(v[i], magnitude);
  }
  std::vector<index_t> selected;
  if (k <= 0) {
    return selected;
  }
  auto state = SelectState<Key>::fresh(k);
  while (!state.done()) {
    std::array<unsigned long long, kBins> histogram{};
    for (const Key key : keys) {
      if (state.counts(key)) {
        ++histogram[static_cast<std::size_t>(state.digit(key))];
      }
    }
    state.advance(histogram.data());
  }
  index_t ties = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (state.above(keys[i]) || (state.tie(keys[i]) && ties++ < state.remaining)) {
      selected.push_back(static_cast<index_t>(i));
    }
  }
  return selected;
}

template <class T>
class RadixLogic : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RadixLogic, Precisions);

TYPED_TEST(RadixLogic, KeysOrderLikeTheScoresAndRejectTheIneligible) {
  using T = TypeParam;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (const bool magnitude : {false, true}) {
    EXPECT_EQ(selection_key(T(0), magnitude), 0u);
    EXPECT_EQ(selection_key(-T(0), magnitude), 0u);
    EXPECT_EQ(selection_key(nan, magnitude), 0u);
    EXPECT_EQ(selection_key(-nan, magnitude), 0u);
    // Strictly increasing over increasing positive scores, denormals to infinity.
    const T ladder[] = {std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(),
                        T(1e-3),
                        T(0.5),
                        T(1),
                        std::nextafter(T(1), T(2)),
                        T(3),
                        std::numeric_limits<T>::max(),
                        inf};
    for (std::size_t i = 1; i < std::size(ladder); ++i) {
      EXPECT_LT(selection_key(ladder[i - 1], magnitude), selection_key(ladder[i], magnitude))
          << ladder[i - 1] << " vs " << ladder[i];
      EXPECT_GT(selection_key(ladder[i - 1], magnitude), 0u);
    }
  }
  // Negatives: never under largest_positive, by their magnitude under largest_magnitude.
  EXPECT_EQ(selection_key(T(-2), false), 0u);
  EXPECT_EQ(selection_key(-inf, false), 0u);
  EXPECT_EQ(selection_key(T(-2), true), selection_key(T(2), true));
  EXPECT_EQ(selection_key(-inf, true), selection_key(inf, true));
  EXPECT_GT(selection_key(T(-3), true), selection_key(T(2), true));
}

TEST(RadixDigit, PicksTheBucketOfTheKthLargestAndTheCountLeftInIt) {
  std::array<unsigned long long, kBins> histogram{};
  histogram[200] = 3;
  histogram[17] = 5;
  histogram[0] = 2;
  DigitChoice c = choose_digit(histogram.data(), 1);
  EXPECT_EQ(c.digit, 200);
  EXPECT_EQ(c.remaining, 1);
  c = choose_digit(histogram.data(), 3);
  EXPECT_EQ(c.digit, 200);
  EXPECT_EQ(c.remaining, 3);
  c = choose_digit(histogram.data(), 4);  // the first of bucket 17
  EXPECT_EQ(c.digit, 17);
  EXPECT_EQ(c.remaining, 1);
  c = choose_digit(histogram.data(), 8);
  EXPECT_EQ(c.digit, 17);
  EXPECT_EQ(c.remaining, 5);
  c = choose_digit(histogram.data(), 10);
  EXPECT_EQ(c.digit, 0);
  EXPECT_EQ(c.remaining, 2);
  // More asked than counted: everything is taken. The count owed within bucket 0 (6) exceeds
  // its 2 keys, so the next pass falls through again and t ends at 0.
  c = choose_digit(histogram.data(), 14);
  EXPECT_EQ(c.digit, 0);
  EXPECT_EQ(c.remaining, 6);
  const std::array<unsigned long long, kBins> empty{};
  c = choose_digit(empty.data(), 5);
  EXPECT_EQ(c.digit, 0);
  EXPECT_EQ(c.remaining, 5);
}

TEST(RadixState, CountsOnlyPositiveKeysSharingTheChosenDigits) {
  auto state = SelectState<std::uint32_t>::fresh(1);
  EXPECT_EQ(state.prefix, 0u);  // nothing chosen yet: the first pass is next
  EXPECT_EQ(state.pass, 0);
  EXPECT_FALSE(state.counts(0u));
  EXPECT_TRUE(state.counts(0x12345678u));  // pass 0: every positive key
  EXPECT_EQ(state.digit(0x12345678u), 0x12);
  std::array<unsigned long long, kBins> histogram{};
  histogram[0x12] = 1;
  state.advance(histogram.data());
  EXPECT_EQ(state.prefix, 0x12000000u);
  EXPECT_TRUE(state.counts(0x12ff0000u));
  EXPECT_FALSE(state.counts(0x13000000u));
  EXPECT_EQ(state.digit(0x12ab0000u), 0xab);
}

TYPED_TEST(RadixLogic, ReplayedSelectionMatchesNthElement) {
  using T = TypeParam;
  for (const index_t n : {1, 2, 7, 255, 257, 1000, 4099}) {
    for (const auto rule : {SelectionRule::largest_positive, SelectionRule::largest_magnitude}) {
      for (int trial = 0; trial < 3; ++trial) {
        const auto seed = static_cast<std::uint64_t>(n * 31 + trial);
        const std::vector<T> v =
            trial == 2 ? test::gaussian_values<T>(n, seed) : test::awkward_values<T>(n, seed);
        std::vector<bool> excluded;
        if (trial == 1) {
          excluded.assign(static_cast<std::size_t>(n), false);
          for (index_t i = 0; i < n; i += 3) {
            excluded[static_cast<std::size_t>(i)] = true;
          }
        }
        for (const index_t k : {index_t{1}, n / 2 + 1, n - 1, n, n + 3}) {
          if (k < 1) {
            continue;
          }
          EXPECT_EQ(radix_top_k(v, k, rule, excluded),
                    test::nth_element_top_k(v, k, rule, excluded))
              << "n " << n << " k " << k << " trial " << trial;
        }
      }
    }
  }
}

TYPED_TEST(RadixLogic, FewerPositivesThanKKeepsTheTiniestOnes) {
  using T = TypeParam;
  // Keys whose top digit is 0 (denormals) next to ordinary ones, fewer positives than k: every
  // positive entry must come back, the denormals included.
  const T tiny = std::numeric_limits<T>::denorm_min();
  const std::vector<T> v = {T(1), tiny, T(-1), T(2), 2 * tiny, T(0), T(3)};
  const std::vector<index_t> all_positive = {0, 1, 3, 4, 6};
  for (const index_t k : {5, 6, 7, 100}) {
    EXPECT_EQ(radix_top_k(v, k, SelectionRule::largest_positive), all_positive) << "k " << k;
  }
  EXPECT_EQ(radix_top_k(v, 4, SelectionRule::largest_positive), (std::vector<index_t>{0, 3, 4, 6}));
}

TYPED_TEST(RadixLogic, AllEqualValuesTakeTheLowestIndices) {
  using T = TypeParam;
  const std::vector<T> v(100, T(2.5));
  std::vector<index_t> expected(10);
  for (index_t i = 0; i < 10; ++i) {
    expected[static_cast<std::size_t>(i)] = i;
  }
  EXPECT_EQ(radix_top_k(v, 10, SelectionRule::largest_positive), expected);
  const std::vector<T> negative(50, T(-1));
  EXPECT_TRUE(radix_top_k(negative, 5, SelectionRule::largest_positive).empty());
  EXPECT_EQ(radix_top_k(negative, 5, SelectionRule::largest_magnitude).size(), 5u);
}

}  // namespace
}  // namespace coreset::kernels::radix
