// The vectorised centring pass (src/cpu/simd/columns) against the scalar definitions it must
// reproduce bit for bit: cpu::column_sum's summation order and cpu::simd::centred.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/projection.hpp"
#include "cpu/simd/columns.hpp"
#include "helpers/isa_test.hpp"

namespace coreset::cpu::simd {
namespace {

class CentringPass : public test::IsaTest {};

// Values whose magnitudes span 16 decades, so that summing in any other order than the
// reference's changes the bits of almost every sum.
std::vector<double> block_of(index_t rows, index_t width, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> decade(-8, 8);
  std::vector<double> block(static_cast<std::size_t>(rows * width));
  for (double& v : block) {
    v = mantissa(random) * std::pow(10.0, decade(random));
  }
  return block;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Widths below, at and above the eight columns summed at once; lengths with every remainder
// modulo the four partial sums, and the projection's S = 500.
const index_t kWidths[] = {0, 1, 7, 8, 9, 16, 19};
const index_t kRows[] = {0, 1, 2, 3, 4, 5, 11, 500};

TEST_P(CentringPass, ColumnSumsAreModelsColumnSumBitForBit) {
  for (const index_t width : kWidths) {
    for (const index_t rows : kRows) {
      const std::vector<double> block = block_of(rows, width, 100 * width + rows);
      std::vector<double> sums(static_cast<std::size_t>(width) + 1, -7.0);
      column_sums(GetParam(), block.data(), rows, width, sums.data());
      for (index_t i = 0; i < width; ++i) {
        const double expected = cpu::column_sum(block.data() + i * rows, rows);
        EXPECT_TRUE(same_bits(sums[i], expected))
            << "width " << width << ", rows " << rows << ", column " << i << ": " << sums[i]
            << " vs " << expected;
      }
      EXPECT_EQ(sums[width], -7.0) << "wrote past the last column";
    }
  }
}

TEST_P(CentringPass, NonFiniteValuesReachTheirColumnsSumOnly) {
  const index_t rows = 37;
  const index_t width = 12;
  std::vector<double> block = block_of(rows, width, 3);
  block[2 * rows + 5] = std::numeric_limits<double>::infinity();
  block[9 * rows + 36] = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> sums(width);
  column_sums(GetParam(), block.data(), rows, width, sums.data());
  for (index_t i = 0; i < width; ++i) {
    EXPECT_EQ(std::isfinite(sums[i]), i != 2 && i != 9) << "column " << i;
  }
  EXPECT_TRUE(std::isinf(sums[2]));
  EXPECT_TRUE(std::isnan(sums[9]));
}

template <class T>
void expect_centred(Isa isa, index_t rows, index_t width) {
  const std::vector<double> block = block_of(rows, width, 7 * rows + width);
  std::vector<double> means(static_cast<std::size_t>(width));
  for (index_t i = 0; i < width; ++i) {
    means[i] = block.empty() ? 0.0 : block[i * rows] * 0.37;
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(std::max<index_t>(rows, 1)));
  std::vector<T> out(block.size() + 1, T(-7));
  subtract_and_scale(isa, block.data(), rows, width, means.data(), scale, out.data());
  for (index_t i = 0; i < width; ++i) {
    for (index_t j = 0; j < rows; ++j) {
      const T expected = static_cast<T>(centred(block[i * rows + j], means[i], scale));
      ASSERT_EQ(std::memcmp(&out[i * rows + j], &expected, sizeof(T)), 0)
          << "rows " << rows << ", column " << i << ", value " << j;
    }
  }
  EXPECT_EQ(out.back(), T(-7)) << "wrote past the block";
}

TEST_P(CentringPass, SubtractAndScaleIsTheScalarFormulaInDoubleAndFloat) {
  for (const index_t width : kWidths) {
    for (const index_t rows : kRows) {
      expect_centred<double>(GetParam(), rows, width);
      expect_centred<float>(GetParam(), rows, width);
    }
  }
}

TEST_P(CentringPass, SubtractAndScaleWorksInPlace) {
  const index_t rows = 500;
  const index_t width = 3;
  std::vector<double> block = block_of(rows, width, 5);
  const std::vector<double> original = block;
  const std::vector<double> means = {1.5, -2.0, 1e-3};
  subtract_and_scale(GetParam(), block.data(), rows, width, means.data(), 0.25, block.data());
  for (index_t i = 0; i < width; ++i) {
    for (index_t j = 0; j < rows; ++j) {
      ASSERT_TRUE(same_bits(block[i * rows + j], centred(original[i * rows + j], means[i], 0.25)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCompiledSets, CentringPass, test::kEveryIsa, test::isa_test_name);

}  // namespace
}  // namespace coreset::cpu::simd
