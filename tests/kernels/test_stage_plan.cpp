// The plan of a staged copy of several arrays (kernels/stage_plan.hpp): every byte once, in
// order, each fill but the last a whole buffer, the buffers taken in turn, no piece for an empty
// array.
#include "kernels/stage_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

namespace coreset::kernels::staging {
namespace {

// Replays the plan over arrays of distinct bytes, through `buffer_count` buffers, and checks what
// lands on the "device" against the arrays, together with every rule of the plan.
void expect_plan_carries(const std::vector<std::size_t>& sizes, std::size_t stage_bytes,
                         int buffer_count = 2) {
  std::vector<std::vector<unsigned char>> host(sizes.size());
  std::vector<std::vector<unsigned char>> device(sizes.size());
  unsigned char next = 1;
  std::size_t total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    for (std::size_t i = 0; i < sizes[a]; ++i) {
      host[a].push_back(next);
      next = static_cast<unsigned char>(next % 251 + 1);
    }
    device[a].assign(sizes[a], 0);
    total += sizes[a];
  }
  const std::vector<Fill> fills = plan(sizes, stage_bytes, buffer_count);
  ASSERT_EQ(fills.size(), (total + stage_bytes - 1) / stage_bytes);
  std::vector<std::vector<unsigned char>> buffers(static_cast<std::size_t>(buffer_count),
                                                  std::vector<unsigned char>(stage_bytes));
  // The stream position each piece must start at: the arrays' bytes are taken in order.
  std::size_t array = 0;
  std::size_t offset = 0;
  for (std::size_t f = 0; f < fills.size(); ++f) {
    const Fill& fill = fills[f];
    EXPECT_EQ(fill.buffer, static_cast<int>(f % static_cast<std::size_t>(buffer_count)))
        << "fill " << f;
    ASSERT_FALSE(fill.pieces.empty()) << "fill " << f;
    EXPECT_EQ(fill.bytes(), f + 1 < fills.size() ? stage_bytes : total - f * stage_bytes);
    std::size_t at = 0;
    for (const Piece& piece : fill.pieces) {
      while (array < sizes.size() && offset == sizes[array]) {  // empty or finished arrays
        ++array;
        offset = 0;
      }
      ASSERT_LT(array, sizes.size());
      EXPECT_EQ(piece.array, array);
      EXPECT_EQ(piece.offset, offset);
      EXPECT_GT(piece.bytes, 0u);
      EXPECT_EQ(piece.buffer_offset, at);
      ASSERT_LE(piece.offset + piece.bytes, sizes[piece.array]);
      ASSERT_LE(piece.buffer_offset + piece.bytes, stage_bytes);
      // Host -> buffer, then buffer -> device, as transfer.cpp does.
      std::vector<unsigned char>& buffer = buffers[static_cast<std::size_t>(fill.buffer)];
      for (std::size_t i = 0; i < piece.bytes; ++i) {
        buffer[piece.buffer_offset + i] = host[piece.array][piece.offset + i];
      }
      for (std::size_t i = 0; i < piece.bytes; ++i) {
        device[piece.array][piece.offset + i] = buffer[piece.buffer_offset + i];
      }
      at += piece.bytes;
      offset += piece.bytes;
    }
  }
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    EXPECT_EQ(device[a], host[a]) << "array " << a;
  }
}

// A dataset's shape: a long design, then two short arrays that share fills with it.
TEST(StagePlan, ShortArraysShareTheFillsOfTheLongOne) {
  const std::vector<Fill> fills = plan({200, 60, 5}, 64);
  ASSERT_EQ(fills.size(), 5u);  // 265 bytes
  for (int f = 0; f < 3; ++f) {
    ASSERT_EQ(fills[f].pieces.size(), 1u);
    EXPECT_EQ(fills[f].pieces[0].offset, 64u * f);
  }
  // Fill 3: the design's last 8 bytes, then the first 56 of array 1.
  ASSERT_EQ(fills[3].pieces.size(), 2u);
  EXPECT_EQ(fills[3].pieces[0].array, 0u);
  EXPECT_EQ(fills[3].pieces[0].offset, 192u);
  EXPECT_EQ(fills[3].pieces[0].bytes, 8u);
  EXPECT_EQ(fills[3].pieces[1].array, 1u);
  EXPECT_EQ(fills[3].pieces[1].buffer_offset, 8u);
  EXPECT_EQ(fills[3].pieces[1].bytes, 56u);
  // Fill 4: array 1's last 4 bytes and array 2, 9 bytes in buffer 0.
  ASSERT_EQ(fills[4].pieces.size(), 2u);
  EXPECT_EQ(fills[4].buffer, 0);
  EXPECT_EQ(fills[4].pieces[0].offset, 56u);
  EXPECT_EQ(fills[4].pieces[0].bytes, 4u);
  EXPECT_EQ(fills[4].pieces[1].array, 2u);
  EXPECT_EQ(fills[4].bytes(), 9u);
  expect_plan_carries({200, 60, 5}, 64);
}

// With four buffers the fills take 0, 1, 2, 3, 0, ...: a fill waits only for the copy that
// read its buffer four fills before.
TEST(StagePlan, FillsTakeTheBuffersInTurn) {
  const std::vector<Fill> fills = plan({300}, 64, 4);
  ASSERT_EQ(fills.size(), 5u);
  for (std::size_t f = 0; f < fills.size(); ++f) {
    EXPECT_EQ(fills[f].buffer, static_cast<int>(f % 4));
  }
  EXPECT_EQ(fills[4].bytes(), 300u - 4 * 64);
  expect_plan_carries({300}, 64, 4);
}

TEST(StagePlan, EmptyArraysGetNoPieceAndNothingGivesNoFill) {
  EXPECT_TRUE(plan({}, 64).empty());
  EXPECT_TRUE(plan({0, 0}, 64).empty());
  const std::vector<Fill> fills = plan({0, 64, 0, 1, 0}, 64);
  ASSERT_EQ(fills.size(), 2u);
  ASSERT_EQ(fills[0].pieces.size(), 1u);
  EXPECT_EQ(fills[0].pieces[0].array, 1u);
  ASSERT_EQ(fills[1].pieces.size(), 1u);
  EXPECT_EQ(fills[1].pieces[0].array, 3u);
  expect_plan_carries({0, 64, 0, 1, 0}, 64);
}

TEST(StagePlan, EveryByteArrivesOnceForArraysOfAnySize) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> arrays(1, 6);
  std::uniform_int_distribution<std::size_t> stage(1, 40);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t stage_bytes = stage(rng);
    std::uniform_int_distribution<std::size_t> size(0, 4 * stage_bytes + 3);
    std::vector<std::size_t> sizes(arrays(rng));
    for (std::size_t& s : sizes) {
      s = size(rng);
    }
    const int buffer_count = 1 + trial % 5;
    SCOPED_TRACE(testing::Message() << "trial " << trial << ", stage " << stage_bytes << ", "
                                    << buffer_count << " buffers");
    expect_plan_carries(sizes, stage_bytes, buffer_count);
  }
}

}  // namespace
}  // namespace coreset::kernels::staging
