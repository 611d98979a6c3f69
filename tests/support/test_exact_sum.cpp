// support::ExactSum: exact, order-free sums rounded once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "support/exact_sum.hpp"
#include "support/exact_sum_batch.hpp"

namespace coreset::support {
namespace {

double exact(const std::vector<double>& terms) {
  ExactSum sum;
  for (const double t : terms) {
    sum.add(t);
  }
  return sum.value();
}

TEST(ExactSum, CancellationLosesNothing) {
  EXPECT_EQ(exact({1e300, 1.0, -1e300}), 1.0);
  EXPECT_EQ(exact({1.0, 1e-300, -1.0}), 1e-300);
  EXPECT_EQ(exact({0x1p-1074, 0x1p-1074, -0x1p-1074}), 0x1p-1074);  // subnormals
  EXPECT_EQ(exact({std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 3.5}),
            3.5);
  EXPECT_EQ(exact({}), 0.0);
  EXPECT_EQ(exact({-2.5, -0.25}), -2.75);
}

TEST(ExactSum, RoundsOnceToNearestEven) {
  // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even gives 1; a further 2^-200 breaks the tie.
  EXPECT_EQ(exact({1.0, 0x1p-53}), 1.0);
  EXPECT_EQ(exact({1.0, 0x1p-53, 0x1p-200}), 1.0 + 0x1p-52);
  EXPECT_EQ(exact({1.0 + 0x1p-52, 0x1p-53}), 1.0 + 0x1p-51);  // tie to the even neighbour
  EXPECT_EQ(exact({-1.0, -0x1p-53, -0x1p-200}), -(1.0 + 0x1p-52));
  // A plain left-to-right sum loses the small terms here; the exact sum keeps them.
  std::vector<double> terms(1000, 0x1p-60);
  terms.insert(terms.begin(), 1.0);
  EXPECT_EQ(exact(terms), 1.0 + 1000 * 0x1p-60);
}

TEST(ExactSum, MatchesIntegerArithmetic) {
  // Integers times one power of two: the exact sum is an integer sum, rounded by the compiler's
  // correctly rounding int64 -> double conversion.
  std::mt19937_64 generator(7);
  std::uniform_int_distribution<std::int64_t> digits(-(std::int64_t{1} << 40),
                                                     std::int64_t{1} << 40);
  for (int scale : {-1060, -30, 0, 17, 900}) {
    std::vector<double> terms;
    std::int64_t total = 0;
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t d = digits(generator);
      total += d;
      terms.push_back(std::ldexp(static_cast<double>(d), scale));
    }
    EXPECT_EQ(exact(terms), std::ldexp(static_cast<double>(total), scale)) << "scale " << scale;
  }
}

TEST(ExactSum, OrderAndGroupingDoNotChangeABit) {
  std::mt19937_64 generator(11);
  std::normal_distribution<double> normal;
  std::vector<double> terms;
  for (int i = 0; i < 20000; ++i) {
    terms.push_back(std::ldexp(normal(generator), static_cast<int>(generator() % 80) - 40));
  }
  const double reference = exact(terms);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(terms.begin(), terms.end(), generator);
    // Split into uneven parts, summed apart and merged, in both directions.
    const std::size_t cut = generator() % terms.size();
    ExactSum left;
    ExactSum right;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      (i < cut ? left : right).add(terms[i]);
    }
    ExactSum merged = right;
    merged.merge(left);
    EXPECT_EQ(merged.value(), reference);
    // Through the integer slots, as a sum over MPI ranks adds them.
    const auto a = left.slots();
    const auto b = right.slots();
    std::vector<std::int64_t> added(ExactSum::kSlots);
    for (int i = 0; i < ExactSum::kSlots; ++i) {
      added[static_cast<std::size_t>(i)] =
          a[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)];
    }
    EXPECT_EQ(ExactSum::from_slots(added.data()).value(), reference);
  }
  // And it is more accurate than the plain sum: within half an ulp of a long double sum of the
  // sorted terms (which is itself accurate to far better than a double ulp here).
  std::sort(terms.begin(), terms.end(),
            [](double x, double y) { return std::abs(x) < std::abs(y); });
  long double careful = 0;
  for (const double t : terms) {
    careful += t;
  }
  EXPECT_LE(std::abs(static_cast<long double>(reference) - careful),
            0.5000001L * std::abs(std::nextafter(reference, 2 * reference) - reference));
}

// The normalized limbs are unique for each sum: the same terms added in another order, or
// merged from parts, give the same slots(), whatever the carries had to do (a negative sum's
// borrow rippling up to the top limb, a sum cancelling to zero, one reaching the top limbs, the
// smallest subnormal), and the slots give back the value.
TEST(ExactSum, SlotsAreTheSameWhateverTheOrder) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double big = std::numeric_limits<double>::max();
  const std::vector<std::vector<double>> cases = {
      {-tiny},
      {-1.0},
      {1.0, -1.0},
      {-big, -big, big},
      {big, 0.5, -0.25, tiny},
      {-0x1p-1000, 0x1p900, -0x1p900},
      {3.0, -0x1p60, 0x1p-60, -tiny, 7.5e-300},
      {-0.0, 0.0, -0.0},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    std::vector<double> terms = cases[c];
    ExactSum forward;
    for (const double t : terms) {
      forward.add(t);
    }
    ExactSum backward;
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) {
      backward.add(*it);
    }
    ExactSum merged;
    for (const double t : terms) {
      ExactSum part;
      part.add(t);
      merged.merge(part);
    }
    const double value = forward.value();
    const auto slots = forward.slots();
    EXPECT_EQ(backward.slots(), slots) << "case " << c;
    EXPECT_EQ(merged.slots(), slots) << "case " << c;
    EXPECT_EQ(ExactSum::from_slots(slots.data()).value(), value) << "case " << c;
    for (int i = 0; i + 1 < ExactSum::kLimbs; ++i) {
      ASSERT_GE(slots[static_cast<std::size_t>(i)], 0) << "case " << c << ", limb " << i;
      ASSERT_LT(slots[static_cast<std::size_t>(i)], std::int64_t{1} << ExactSum::kLimbBits)
          << "case " << c << ", limb " << i;
    }
  }
  ExactSum minus_tiny;
  minus_tiny.add(-tiny);
  EXPECT_EQ(minus_tiny.value(), -tiny);
  EXPECT_EQ(minus_tiny.slots()[ExactSum::kLimbs - 1], -1) << "the sign in the top limb";
  ExactSum zero;
  zero.add(0x1p300);
  zero.add(-0x1p300);
  for (const std::int64_t slot : zero.slots()) {
    EXPECT_EQ(slot, 0);
  }
}

TEST(ExactSum, ManyTermsCarryCorrectly) {
  // Every significand bit set, so that every add carries into the next limb, 2^22 times; then
  // the partial merged into a running sum 4096 times (2^34 terms in all, exactly representable).
  const double term = 0x1.fffffffffffffp+3;
  ExactSum partial;
  for (int i = 0; i < (1 << 22); ++i) {
    partial.add(term);
  }
  EXPECT_EQ(partial.value(), 0x1p22 * term);
  ExactSum total;
  for (int i = 0; i < 4096; ++i) {
    total.merge(partial);
  }
  EXPECT_EQ(total.value(), 0x1p34 * term);
}

TEST(ExactSum, NonFiniteTermsGiveWhatAPlainSumGives) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(exact({1.0, inf, 2.0}), inf);
  EXPECT_EQ(exact({-inf, 1.0}), -inf);
  EXPECT_TRUE(std::isnan(exact({inf, -inf})));
  EXPECT_TRUE(std::isnan(exact({1.0, std::numeric_limits<double>::quiet_NaN()})));
  // A finite sum beyond the double range overflows to infinity, as rounding says.
  EXPECT_EQ(exact({std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}), inf);
}

// Rows added a batch at a time, accumulator by accumulator, give each accumulator the bits of
// adding the rows one by one as they come, whatever the batch's size and however full it is when
// added; terms of every magnitude, cancelling, so that a term added to the wrong accumulator, twice
// or not at all would show.
TEST(ExactSumBatch, GivesTheBitsOfAddingEachRowAsItComes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-60, 60);
  const std::size_t width = 11;
  const std::size_t rows = 53;
  std::vector<double> terms(rows * width);
  for (double& term : terms) {
    term = std::ldexp(mantissa(rng), exponent(rng));
  }
  std::vector<ExactSum> want(width);
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t i = 0; i < width; ++i) {
      want[i].add(terms[row * width + i]);
    }
  }
  for (const std::size_t capacity : {std::size_t{1}, std::size_t{4}, std::size_t{16}, rows + 1}) {
    ExactSumBatch batch(width, capacity);
    std::vector<ExactSum> got(width);
    for (std::size_t row = 0; row < rows; ++row) {
      double* slot = batch.next_row();
      std::copy(terms.begin() + static_cast<std::ptrdiff_t>(row * width),
                terms.begin() + static_cast<std::ptrdiff_t>((row + 1) * width), slot);
      if (batch.full()) {
        batch.add_to(got);
      }
    }
    batch.add_to(got);  // the rows left over
    batch.add_to(got);  // an empty batch adds nothing
    for (std::size_t i = 0; i < width; ++i) {
      EXPECT_EQ(got[i].value(), want[i].value()) << "capacity " << capacity << ", sum " << i;
      EXPECT_NE(got[i].value(), 0.0) << "capacity " << capacity << ", sum " << i;
    }
  }
}

TEST(ExactSumBatch, HoldsAsManyRowsAsFitTheBytesAndAtLeastOne) {
  EXPECT_EQ(ExactSumBatch::rows_within(66, 16, 16 << 10), 16u);   // 528 bytes a row
  EXPECT_EQ(ExactSumBatch::rows_within(231, 16, 16 << 10), 8u);   // 1848 bytes a row
  EXPECT_EQ(ExactSumBatch::rows_within(5151, 16, 16 << 10), 1u);  // wider than the bytes
  EXPECT_EQ(ExactSumBatch::rows_within(0, 16, 16 << 10), 16u);
  ExactSumBatch one(3, 0);  // asked for none: holds one
  one.next_row();
  EXPECT_TRUE(one.full());
}

}  // namespace
}  // namespace coreset::support
