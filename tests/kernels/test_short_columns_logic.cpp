// The arithmetic of Phi^T r for short columns (kernels/short_columns_logic.hpp), which the kernel
// runs and the GPU test replays: four interleaved parts per column, combined as
// (s0 + s2) + (s1 + s3), each operation rounded on its own.
#include "kernels/short_columns_logic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace coreset::kernels::short_columns {
namespace {

// The order is the documented one, not the sequential one: with r = 1, the column
// (1e16, 1, -1e16, 1) sums to 0 + 2 = 2 as (s0 + s2) + (s1 + s3), where adding in turn gives 1
// (1e16 + 1 rounds back to 1e16).
TEST(ShortColumns, PartsAreInterleavedAndCombinedAsTheKernelsShuffles) {
  const std::vector<double> column = {1e16, 1.0, -1e16, 1.0};
  const std::vector<double> ones(4, 1.0);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 0), 1e16);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 1), 1.0);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 2), -1e16);
  EXPECT_EQ(dot(column.data(), ones.data(), 4), 2.0);
  double in_turn = 0.0;
  for (const double v : column) {
    in_turn += v;
  }
  EXPECT_EQ(in_turn, 1.0);  // the order the test tells apart
}

// Part p takes entries p, p + 4, ...: every entry once, whatever S, short columns included.
TEST(ShortColumns, EveryEntryCountsOnceAtEveryLength) {
  std::mt19937_64 generator(5);
  std::uniform_int_distribution<int> small(-8, 8);
  for (index_t rows = 1; rows <= 131; ++rows) {
    // Small integers: every sum is exact, so any order gives the plain dot product.
    std::vector<float> column(static_cast<std::size_t>(rows));
    std::vector<float> r(static_cast<std::size_t>(rows));
    double expected = 0.0;
    for (index_t i = 0; i < rows; ++i) {
      column[static_cast<std::size_t>(i)] = static_cast<float>(small(generator));
      r[static_cast<std::size_t>(i)] = static_cast<float>(small(generator));
      expected += static_cast<double>(column[static_cast<std::size_t>(i)]) *
                  static_cast<double>(r[static_cast<std::size_t>(i)]);
    }
    EXPECT_EQ(dot(column.data(), r.data(), rows), static_cast<float>(expected)) << rows;
  }
}

// Accumulated in double, so a float column's dot is as good as the float result can be.
TEST(ShortColumns, FloatColumnsAreSummedInDouble) {
  std::mt19937_64 generator(6);
  std::normal_distribution<float> normal;
  const index_t rows = 100;
  std::vector<float> column(rows);
  std::vector<float> r(rows);
  for (index_t i = 0; i < rows; ++i) {
    column[static_cast<std::size_t>(i)] = normal(generator);
    r[static_cast<std::size_t>(i)] = normal(generator);
  }
  long double exact = 0.0L;
  for (index_t i = 0; i < rows; ++i) {
    exact += static_cast<long double>(column[static_cast<std::size_t>(i)]) *
             static_cast<long double>(r[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(dot(column.data(), r.data(), rows), static_cast<float>(exact));
}

}  // namespace
}  // namespace coreset::kernels::short_columns
