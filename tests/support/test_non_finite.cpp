// support::first_non_finite and first_non_finite_in_columns: the first NaN or infinity, in the
// order a serial scan meets it, whatever the block, segment and thread boundaries; and
// copy_testing_finite, the copy that tests as it goes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "support/non_finite.hpp"

namespace coreset::support {
namespace {

template <class T>
class NonFinite : public ::testing::Test {};
using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NonFinite, Elements);

// The copy that tests as it goes: every value copied bit for bit (a NaN's payload and the sign
// of zero included), and true exactly when one of them is not finite.
TYPED_TEST(NonFinite, CopyTestingFiniteCopiesEveryBitAndSaysWhetherAnyIsNotFinite) {
  using T = TypeParam;
  std::vector<T> from(3000);
  for (std::size_t i = 0; i < from.size(); ++i) {
    from[i] = static_cast<T>(i) * T(0.25) - T(100);
  }
  from[5] = std::numeric_limits<T>::max();
  from[6] = -std::numeric_limits<T>::denorm_min();
  from[7] = T(-0.0);
  std::vector<T> to(from.size(), T(7));
  EXPECT_FALSE(copy_testing_finite(from.data(), 3000, to.data()));
  EXPECT_EQ(std::memcmp(from.data(), to.data(), from.size() * sizeof(T)), 0);
  const T kinds[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                     -std::numeric_limits<T>::infinity()};
  for (const T bad : kinds) {
    for (const std::size_t at : {std::size_t{0}, std::size_t{1500}, std::size_t{2999}}) {
      std::vector<T> with_bad = from;
      with_bad[at] = bad;
      std::fill(to.begin(), to.end(), T(7));
      EXPECT_TRUE(copy_testing_finite(with_bad.data(), 3000, to.data())) << at;
      EXPECT_EQ(std::memcmp(with_bad.data(), to.data(), to.size() * sizeof(T)), 0) << at;
      // Nothing past the count is read or written.
      std::fill(to.begin(), to.end(), T(7));
      EXPECT_EQ(copy_testing_finite(with_bad.data(), static_cast<index_t>(at), to.data()), false)
          << at;
      EXPECT_EQ(to[at], T(7)) << at;
    }
  }
}

TYPED_TEST(NonFinite, FindsTheFirstOfEveryKindAtEveryBlockBoundary) {
  using T = TypeParam;
  const T kinds[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                     -std::numeric_limits<T>::infinity()};
  std::vector<T> values(5000, T(1.5));
  EXPECT_EQ(first_non_finite(values.data(), 5000), -1);
  EXPECT_EQ(first_non_finite(values.data(), 0), -1);
  // The largest finite values and the subnormals are finite: the exponent test must not trip.
  values[10] = std::numeric_limits<T>::max();
  values[11] = -std::numeric_limits<T>::denorm_min();
  EXPECT_EQ(first_non_finite(values.data(), 5000), -1);
  for (const T bad : kinds) {
    for (const index_t at : {index_t{0}, index_t{1023}, index_t{1024}, index_t{4000}}) {
      values[at] = bad;
      values[4999] = bad;  // a later one never wins
      EXPECT_EQ(first_non_finite(values.data(), 5000), at) << at;
      EXPECT_EQ(first_non_finite(values.data(), at), -1) << at;  // nothing past the count is read
      values[at] = T(1.5);
    }
    EXPECT_EQ(first_non_finite(values.data(), 5000), 4999);
    values[4999] = T(1.5);
  }
}

// Three full segments of 2^16 rows and a partial one, with a leading dimension past the rows
// (whose padding holds NaNs that must never be read): 2^20 values or more, so the threads share
// the segments.
TYPED_TEST(NonFinite, ColumnsReportTheFirstInColumnOrderAcrossSegments) {
  using T = TypeParam;
  const index_t rows = 3 * (index_t{1} << 16) + 77;
  const index_t cols = 6;
  const index_t ld = rows + 5;
  std::vector<T> matrix(static_cast<std::size_t>(ld * cols), std::numeric_limits<T>::quiet_NaN());
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      matrix[static_cast<std::size_t>(j * ld + i)] = T(0.25) * static_cast<T>(i % 7);
    }
  }
  const auto first = [&](int threads) {
    return first_non_finite_in_columns(matrix.data(), rows, cols, ld, threads);
  };
  EXPECT_EQ(first(0), -1);
  EXPECT_EQ(first(3), -1);
  const auto set = [&](index_t i, index_t j, T value) {
    matrix[static_cast<std::size_t>(j * ld + i)] = value;
  };
  set(rows - 1, 5, std::numeric_limits<T>::infinity());  // last row of the last column
  EXPECT_EQ(first(0), 5 * rows + rows - 1);
  set(150000, 2, std::numeric_limits<T>::quiet_NaN());  // third segment of column 2
  set(70000, 4, -std::numeric_limits<T>::infinity());
  EXPECT_EQ(first(0), 2 * rows + 150000);
  set(196607, 2, std::numeric_limits<T>::infinity());  // a later segment of the same column
  set(65536, 2, std::numeric_limits<T>::quiet_NaN());  // the second segment's first row
  for (const int threads : {1, 2, 3, 8}) {
    EXPECT_EQ(first(threads), 2 * rows + 65536) << threads;
  }
  // A small matrix, scanned on one thread, still in column order.
  EXPECT_EQ(first_non_finite_in_columns(matrix.data(), 70001, 3, ld, 4), 2 * 70001 + 65536);
}

}  // namespace
}  // namespace coreset::support
