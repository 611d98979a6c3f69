// The arithmetic and shapes of Phi^T r by streamed columns (kernels/streamed_columns_logic.hpp),
// which the kernel runs and the GPU test replays: each lane's loads at (lane + 32 m) * width, its
// products added in turn, the lanes' sums met in a butterfly.
#include "kernels/streamed_columns_logic.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/phi_t_r_kernel.hpp"

namespace coreset::kernels::streamed_columns {
namespace {

TEST(StreamedColumns, ShapesFollowTheColumnLength) {
  // 32 lanes cover the column with the fewest of 4, 8, 16 or 32 entries each.
  EXPECT_EQ(entries_per_lane(1), 4);
  EXPECT_EQ(entries_per_lane(128), 4);
  EXPECT_EQ(entries_per_lane(129), 8);
  EXPECT_EQ(entries_per_lane(256), 8);
  EXPECT_EQ(entries_per_lane(257), 16);
  EXPECT_EQ(entries_per_lane(500), 16);
  EXPECT_EQ(entries_per_lane(513), 32);
  EXPECT_EQ(entries_per_lane(1024), 32);
  EXPECT_TRUE(fits(1024, sizeof(float)));
  EXPECT_FALSE(fits(1025, sizeof(float)));
  EXPECT_TRUE(fits(512, sizeof(double)));
  EXPECT_FALSE(fits(513, sizeof(double)));
  EXPECT_FALSE(fits(0, sizeof(float)));
  // 128 bytes a lane in flight per step of a warp.
  EXPECT_EQ(columns_per_step(100, sizeof(float)), 8);
  EXPECT_EQ(columns_per_step(200, sizeof(float)), 4);
  EXPECT_EQ(columns_per_step(500, sizeof(float)), 2);
  EXPECT_EQ(columns_per_step(1000, sizeof(float)), 1);
  EXPECT_EQ(columns_per_step(100, sizeof(double)), 4);
  EXPECT_EQ(columns_per_step(500, sizeof(double)), 1);
}

TEST(StreamedColumns, SixteenByteLoadsNeedEveryColumnAligned) {
  alignas(16) static float floats[8] = {};
  alignas(16) static double doubles[4] = {};
  EXPECT_EQ(load_width(floats, 500, sizeof(float)), 4);
  EXPECT_EQ(load_width(floats + 1, 500, sizeof(float)), 1);  // Phi's start off by an entry
  EXPECT_EQ(load_width(floats, 501, sizeof(float)), 1);      // the second column's
  EXPECT_EQ(load_width(doubles, 100, sizeof(double)), 2);
  EXPECT_EQ(load_width(doubles, 101, sizeof(double)), 1);
}

// The lanes' order, shown by cancellation: with loads of 4 entries, entries 0-3 are lane 0's and
// 4-7 lane 1's, so 1e16 (entry 0) swallows the 1 of entry 1 before -1e16 (entry 4) cancels it:
// 0. With loads of 1, entry 1 is lane 1's alone and survives: 1. (Added in turn the column also
// gives 0; the next case tells the documented order from that one.)
TEST(StreamedColumns, ALanesLoadsTakeConsecutiveEntries) {
  std::vector<double> column(160, 0.0);
  const std::vector<double> ones(160, 1.0);
  column[0] = 1e16;
  column[1] = 1.0;
  column[4] = -1e16;
  EXPECT_EQ(lane_sum(column.data(), ones.data(), 160, 0, 4), 1e16);
  EXPECT_EQ(lane_sum(column.data(), ones.data(), 160, 1, 4), -1e16);
  EXPECT_EQ(dot(column.data(), ones.data(), 160, 4), 0.0);
  EXPECT_EQ(lane_sum(column.data(), ones.data(), 160, 1, 1), 1.0);
  EXPECT_EQ(dot(column.data(), ones.data(), 160, 1), 1.0);
}

// Lane 0 adds entries 0 and 32 in turn (loads of 1): 1e16 + 1 rounds back to 1e16, which lane 1's
// -1e16 cancels at the butterfly's last step. In turn, entry 1 cancels entry 0 first and the 1
// survives.
TEST(StreamedColumns, ALanesEntriesAreAddedBeforeTheLanesMeet) {
  std::vector<double> column(64, 0.0);
  const std::vector<double> ones(64, 1.0);
  column[0] = 1e16;
  column[1] = -1e16;
  column[32] = 1.0;
  EXPECT_EQ(dot(column.data(), ones.data(), 64, 1), 0.0);
  double in_turn = 0.0;
  for (const double v : column) {
    in_turn += v;
  }
  EXPECT_EQ(in_turn, 1.0);
}

// Every entry counts once, whatever S and load width: small integers make every sum exact, so
// the replay's total is the plain one.
TEST(StreamedColumns, EveryEntryCountsOnceAtEveryLength) {
  std::mt19937_64 generator(9);
  std::uniform_int_distribution<int> small(-8, 8);
  for (index_t rows = 1; rows <= 1024; ++rows) {
    std::vector<float> column(static_cast<std::size_t>(rows));
    std::vector<float> r(static_cast<std::size_t>(rows));
    double exact = 0.0;
    for (index_t i = 0; i < rows; ++i) {
      column[static_cast<std::size_t>(i)] = static_cast<float>(small(generator));
      r[static_cast<std::size_t>(i)] = static_cast<float>(small(generator));
      exact += static_cast<double>(column[static_cast<std::size_t>(i)]) *
               static_cast<double>(r[static_cast<std::size_t>(i)]);
    }
    ASSERT_EQ(dot(column.data(), r.data(), rows, 1), static_cast<float>(exact)) << rows;
    if (rows % 4 == 0) {
      ASSERT_EQ(dot(column.data(), r.data(), rows, 4), static_cast<float>(exact)) << rows;
    }
  }
}

TEST(PhiTrKernel, TilesForShortColumnsStreamingUpToTheRegistersCuBlasBeyond) {
  EXPECT_EQ(phi_t_r_kernel(100, sizeof(float)), PhiTr::tiled);
  EXPECT_EQ(phi_t_r_kernel(128, sizeof(float)), PhiTr::tiled);
  EXPECT_EQ(phi_t_r_kernel(129, sizeof(float)), PhiTr::streamed);
  EXPECT_EQ(phi_t_r_kernel(500, sizeof(float)), PhiTr::streamed);
  EXPECT_EQ(phi_t_r_kernel(1024, sizeof(float)), PhiTr::streamed);
  EXPECT_EQ(phi_t_r_kernel(1025, sizeof(float)), PhiTr::cublas);
  EXPECT_EQ(phi_t_r_kernel(94, sizeof(double)), PhiTr::tiled);
  EXPECT_EQ(phi_t_r_kernel(95, sizeof(double)), PhiTr::streamed);
  EXPECT_EQ(phi_t_r_kernel(513, sizeof(double)), PhiTr::cublas);
  // Each kernel named takes what it fits; cuBLAS anything.
  EXPECT_TRUE(phi_t_r_takes(PhiTr::tiled, 1365, sizeof(float)));
  EXPECT_FALSE(phi_t_r_takes(PhiTr::tiled, 1366, sizeof(float)));
  EXPECT_FALSE(phi_t_r_takes(PhiTr::streamed, 1025, sizeof(float)));
  EXPECT_TRUE(phi_t_r_takes(PhiTr::cublas, 100000, sizeof(double)));
}

}  // namespace
}  // namespace coreset::kernels::streamed_columns
