// The arithmetic and shapes of the products over a support list (kernels/list_product_logic.hpp),
// which the kernels run and the GPU test replays: chunks of 16 places up to 8192, at most 512
// chunks, each chunk's products added in turn with one rounding each, the chunks' partials met by
// a warp's lanes and then its butterfly.
#include "kernels/list_product_logic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace coreset::kernels::list_product {
namespace {

TEST(ListProduct, ChunksAreShortUntilTheirCountWouldPassItsCap) {
  EXPECT_EQ(chunk_entries(0), kLeastChunk);
  EXPECT_EQ(chunks(0), 1);  // an empty list still writes its one partial, 0
  EXPECT_EQ(chunks(1), 1);
  EXPECT_EQ(chunks(16), 1);
  EXPECT_EQ(chunks(17), 2);
  EXPECT_EQ(chunk_entries(8192), 16);
  EXPECT_EQ(chunks(8192), 512);
  EXPECT_EQ(chunk_entries(8193), 17);
  // Every bound: the chunks cover its places, none of them is empty, and there are at most 512.
  for (index_t bound = 1; bound <= 200000; bound += bound < 20000 ? 1 : 997) {
    const index_t chunk = chunk_entries(bound);
    const index_t count = chunks(bound);
    ASSERT_GE(chunk, kLeastChunk) << bound;
    ASSERT_LE(count, kMostChunks) << bound;
    ASSERT_GE(count * chunk, bound) << bound;
    ASSERT_LT((count - 1) * chunk, bound) << bound;
  }
  // A list as long as any (k = n = 10^9 gives three times that many places) keeps the cap.
  EXPECT_EQ(chunks(index_t{3} << 30), kMostChunks);
  // Another least chunk (64, as before 50b3380): the same cap beyond it.
  EXPECT_EQ(chunk_entries(100, 64), 64);
  EXPECT_EQ(chunks(100, 64), 2);
  EXPECT_EQ(chunks(32768, 64), 512);
  EXPECT_EQ(chunk_entries(32769, 64), 65);
}

struct List {
  std::vector<double> phi;  // rows x columns, column-major
  std::vector<index_t> index;
  std::vector<double> value;
};

// A list of `bound` places naming random distinct columns, the places past `count` holding NaN
// (the kernels never read them).
List random_list(index_t rows, index_t columns, index_t bound, index_t count,
                 std::mt19937_64& generator, bool integers) {
  std::uniform_int_distribution<int> small(-8, 8);
  std::normal_distribution<double> normal;
  const auto draw = [&] {
    return integers ? static_cast<double>(small(generator)) : normal(generator);
  };
  List list;
  list.phi.resize(static_cast<std::size_t>(rows * columns));
  for (double& entry : list.phi) {
    entry = draw();
  }
  std::uniform_int_distribution<index_t> column(0, columns - 1);
  for (index_t p = 0; p < bound; ++p) {
    list.index.push_back(p < count ? column(generator) : -1);
    list.value.push_back(p < count ? draw() : std::numeric_limits<double>::quiet_NaN());
  }
  return list;
}

// Every listed place counts once and no place past the count is read: small integers make
// every sum exact, so the replay's total is the plain one, at bounds on both sides of a chunk's
// 16 places and of the 512 chunks.
TEST(ListProduct, EveryPlaceBeforeTheCountCountsOnce) {
  std::mt19937_64 generator(5);
  const index_t rows = 3;
  for (const index_t bound : {1, 15, 16, 17, 100, 511, 8192, 8193, 20000}) {
    for (const index_t count : {index_t{0}, bound / 2, bound}) {
      const List list = random_list(rows, 50, bound, count, generator, true);
      for (index_t row = 0; row < rows; ++row) {
        double exact = 0.0;
        for (index_t p = 0; p < count; ++p) {
          exact += list.value[static_cast<std::size_t>(p)] *
                   list.phi[static_cast<std::size_t>(
                       list.index[static_cast<std::size_t>(p)] * rows + row)];
        }
        for (const index_t least : {kLeastChunk, index_t{64}}) {
          ASSERT_EQ(product_row(list.phi.data(), rows, list.index.data(), list.value.data(), count,
                                bound, row, least),
                    exact)
              << "bound " << bound << ", count " << count << ", row " << row << ", least " << least;
        }
      }
    }
  }
}

// The order, shown by cancellation, with one row and Phi's entries all 1 (so the values are
// the products): 2^60 at place 0 swallows the 1 at place 1. A -2^60 in the same chunk (place 15)
// cancels it before place 16's 1, which survives: 1. A -2^60 at place 16 starts the next chunk
// and swallows place 17's 1 there; the two partials cancel only where the chunks meet: 0, where
// adding every place in turn would give 1.
TEST(ListProduct, AChunksPlacesAreAddedInTurnBeforeTheChunksMeet) {
  const std::vector<double> phi(40, 1.0);
  std::vector<index_t> index(40);
  for (index_t p = 0; p < 40; ++p) {
    index[static_cast<std::size_t>(p)] = p;
  }
  std::vector<double> value(40, 0.0);
  value[0] = 0x1p60;
  value[1] = 1.0;
  value[15] = -0x1p60;
  value[16] = 1.0;
  EXPECT_EQ(product_row(phi.data(), 1, index.data(), value.data(), 40, 40, 0), 1.0);
  value[15] = 0.0;
  value[16] = -0x1p60;
  value[17] = 1.0;
  EXPECT_EQ(product_row(phi.data(), 1, index.data(), value.data(), 40, 40, 0), 0.0);
}

// Each product is added with one rounding, as a fused multiply-add: (1 + 2^-30)^2 =
// 1 + 2^-29 + 2^-60 is exact only without rounding the product first, which the -1 - 2^-29 that
// follows brings to light.
TEST(ListProduct, EachProductIsAddedWithOneRounding) {
  const double a = 1.0 + 0x1p-30;
  const std::vector<double> phi = {a, 1.0};
  const std::vector<index_t> index = {0, 1};
  const std::vector<double> value = {a, -(1.0 + 0x1p-29)};
  // First place: fma(a, a, 0) = a * a rounded, 1 + 2^-29; its 2^-60 is lost here, as anywhere.
  EXPECT_EQ(product_row(phi.data(), 1, index.data(), value.data(), 2, 2, 0), 0.0);
  // With the sum first: fma(a, a, -1 - 2^-29) keeps the 2^-60.
  const std::vector<index_t> reversed = {1, 0};
  const std::vector<double> value_reversed = {-(1.0 + 0x1p-29), a};
  EXPECT_EQ(product_row(phi.data(), 1, reversed.data(), value_reversed.data(), 2, 2, 0), 0x1p-60);
}

// Float lists are added in double and rounded to float once, at the end: 2^30 + 1 - 2^30 is 1
// in double, where float (24 bits) would lose the 1.
TEST(ListProduct, FloatListsAreSummedInDouble) {
  const std::vector<float> phi = {1.0f, 1.0f, 1.0f};
  const std::vector<index_t> index = {0, 1, 2};
  const std::vector<float> value = {0x1p30f, 1.0f, -0x1p30f};
  EXPECT_EQ(product_row(phi.data(), 1, index.data(), value.data(), 3, 3, 0), 1.0f);
}

}  // namespace
}  // namespace coreset::kernels::list_product
