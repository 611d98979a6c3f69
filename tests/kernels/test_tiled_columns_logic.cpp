// The arithmetic of Phi^T r by column tiles (kernels/tiled_columns_logic.hpp), which the kernel
// runs and the GPU test replays: interleaved parts per column (4, or a warp's 32 for long
// columns), combined by halving trees, each operation rounded on its own.
#include "kernels/tiled_columns_logic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace coreset::kernels::tiled_columns {
namespace {

// The order is the documented one, not the sequential one: with r = 1, the column
// (1e16, 1, -1e16, 1) sums to 0 + 2 = 2 as (s0 + s2) + (s1 + s3), where adding in turn gives 1
// (1e16 + 1 rounds back to 1e16).
TEST(TiledColumns, FourPartsAreInterleavedAndCombinedAsTheKernelsShuffles) {
  const std::vector<double> column = {1e16, 1.0, -1e16, 1.0};
  const std::vector<double> ones(4, 1.0);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 0, 4), 1e16);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 1, 4), 1.0);
  EXPECT_EQ(part_sum(column.data(), ones.data(), 4, 2, 4), -1e16);
  EXPECT_EQ(dot(column.data(), ones.data(), 4), 2.0);
  double in_turn = 0.0;
  for (const double v : column) {
    in_turn += v;
  }
  EXPECT_EQ(in_turn, 1.0);  // the order the test tells apart
}

// A warp's 32 parts: entry e goes to part e % 32, and parts meet as p += p + 16, then p + 8, ...
// 1e16 (part 0) and -1e16 (part 16) cancel in the first halving, and the 1s of parts 1 and 17 add
// to 2; added in turn, the first 1 is lost against 1e16.
TEST(TiledColumns, AWarpsPartsMeetByHalving) {
  const index_t rows = 160;
  ASSERT_EQ(parts_for(rows, sizeof(double)), kMostParts);
  std::vector<double> column(static_cast<std::size_t>(rows), 0.0);
  const std::vector<double> ones(static_cast<std::size_t>(rows), 1.0);
  column[0] = 1e16;
  column[1] = 1.0;
  column[16] = -1e16;
  column[17] = 1.0;
  EXPECT_EQ(part_sum(column.data(), ones.data(), rows, 1, 32), 1.0);
  EXPECT_EQ(part_sum(column.data(), ones.data(), rows, 16, 32), -1e16);
  EXPECT_EQ(dot(column.data(), ones.data(), rows), 2.0);
  double in_turn = 0.0;
  for (const double v : column) {
    in_turn += v;
  }
  EXPECT_EQ(in_turn, 1.0);
}

TEST(TiledColumns, PartsAndFitFollowTheSharedMemoryOfATile) {
  // 4 threads a column up to 128 entries where 65 such columns fit in 48 KiB.
  EXPECT_EQ(parts_for(128, sizeof(float)), 4);
  EXPECT_EQ(parts_for(129, sizeof(float)), 32);
  EXPECT_EQ(parts_for(94, sizeof(double)), 4);   // 65 x 94 x 8 = 48880 bytes
  EXPECT_EQ(parts_for(95, sizeof(double)), 32);  // 65 x 95 x 8 = 49400 > 49152
  // A warp a column: 9 columns (8 and r) of S entries.
  EXPECT_TRUE(fits(1365, sizeof(float)));   // 9 x 1365 x 4 = 49140
  EXPECT_FALSE(fits(1366, sizeof(float)));  // 49176
  EXPECT_TRUE(fits(682, sizeof(double)));
  EXPECT_FALSE(fits(683, sizeof(double)));
  EXPECT_FALSE(fits(0, sizeof(float)));
  // The backend takes the kernel only with 4 threads a column (cuBLAS beyond).
  EXPECT_TRUE(preferred(100, sizeof(float)));
  EXPECT_TRUE(preferred(128, sizeof(float)));
  EXPECT_FALSE(preferred(129, sizeof(float)));
  EXPECT_TRUE(preferred(94, sizeof(double)));
  EXPECT_FALSE(preferred(95, sizeof(double)));
  EXPECT_FALSE(preferred(500, sizeof(float)));
}

// Part p takes entries p, p + parts, ...: every entry once, whatever S, on both sides of the
// change from 4 parts to 32.
TEST(TiledColumns, EveryEntryCountsOnceAtEveryLength) {
  std::mt19937_64 generator(5);
  std::uniform_int_distribution<int> small(-8, 8);
  for (index_t rows = 1; rows <= 300; ++rows) {
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
TEST(TiledColumns, FloatColumnsAreSummedInDouble) {
  std::mt19937_64 generator(6);
  std::normal_distribution<float> normal;
  for (const index_t rows : {100, 500}) {
    std::vector<float> column(static_cast<std::size_t>(rows));
    std::vector<float> r(static_cast<std::size_t>(rows));
    for (index_t i = 0; i < rows; ++i) {
      column[static_cast<std::size_t>(i)] = normal(generator);
      r[static_cast<std::size_t>(i)] = normal(generator);
    }
    long double exact = 0.0L;
    for (index_t i = 0; i < rows; ++i) {
      exact += static_cast<long double>(column[static_cast<std::size_t>(i)]) *
               static_cast<long double>(r[static_cast<std::size_t>(i)]);
    }
    EXPECT_EQ(dot(column.data(), r.data(), rows), static_cast<float>(exact)) << rows;
  }
}

}  // namespace
}  // namespace coreset::kernels::tiled_columns
