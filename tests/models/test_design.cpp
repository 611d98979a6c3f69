// models::Design: a design's stored columns (kept or read in place) and its unit column, as every
// reader sees them. The unit column must read as 1.0 wherever a row is taken; row ranges must
// share the storage and keep kept columns alive; the row blocks must hand the kernels the ones.
#include "models/design.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>
#include <utility>

#include "helpers/random_eigen.hpp"
#include "models/row_sums.hpp"

namespace coreset::models {
namespace {

// i.i.d. N(0, 1) entries from a generator of their own.
Eigen::MatrixXd random_matrix(index_t rows, index_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return test::random_matrix(rows, cols, rng);
}

// `stored` with a column of ones after it: what a design with a unit column stands for.
Eigen::MatrixXd with_ones(const Eigen::MatrixXd& stored) {
  Eigen::MatrixXd full(stored.rows(), stored.cols() + 1);
  full << stored, Eigen::VectorXd::Ones(stored.rows());
  return full;
}

TEST(Design, AUnitColumnReadsAsOnesEverywhere) {
  const Eigen::MatrixXd stored = random_matrix(7, 3, 1);
  const Design design(stored, true);
  ASSERT_EQ(design.rows(), 7);
  ASSERT_EQ(design.cols(), 4);
  EXPECT_EQ(design.stored_cols(), 3);
  EXPECT_TRUE(design.has_unit_column());
  const Eigen::MatrixXd full = with_ones(stored);
  EXPECT_EQ(design.dense(), full);
  for (index_t r = 0; r < 7; ++r) {
    EXPECT_EQ(design.row(r), full.row(r)) << r;
    for (index_t c = 0; c < 4; ++c) {
      EXPECT_EQ(design(r, c), full(r, c)) << r << ", " << c;
    }
  }
  Eigen::MatrixXd rows;
  design.copy_rows(2, 4, rows);
  EXPECT_EQ(rows, full.middleRows(2, 4));
  // Without a unit column, the stored columns alone.
  const Design plain(stored);
  EXPECT_EQ(plain.cols(), 3);
  EXPECT_EQ(plain.dense(), stored);
}

TEST(Design, BorrowedColumnsAreReadInPlaceWithTheirStride) {
  // Two columns of 5 rows, 8 apart; the values between them must never be read.
  std::vector<double> storage(16, -99.0);
  for (int r = 0; r < 5; ++r) {
    storage[r] = r;
    storage[8 + r] = 10.0 + r;
  }
  const Design design = Design::borrowed(storage.data(), 5, 2, 8, true);
  EXPECT_EQ(design.stored().data(), storage.data());
  EXPECT_EQ(design.stride(), 8);
  Eigen::MatrixXd want(5, 3);
  want << Eigen::VectorXd::LinSpaced(5, 0, 4), Eigen::VectorXd::LinSpaced(5, 10, 14),
      Eigen::VectorXd::Ones(5);
  EXPECT_EQ(design.dense(), want);
  storage[3] = 42.0;  // read in place: a change shows
  EXPECT_EQ(design(3, 0), 42.0);
}

TEST(Design, RowRangesShareTheStorageAndKeepItAlive) {
  const Eigen::MatrixXd stored = random_matrix(9, 2, 2);
  Design part;
  {
    Design whole(stored, true);
    part = whole.middle_rows(3, 4);
    EXPECT_EQ(part.stored().data(), whole.stored().data() + 3);
  }  // `whole` is gone; `part` still holds the columns (a sanitizer would catch a dangling read)
  EXPECT_EQ(part.rows(), 4);
  EXPECT_EQ(part.stride(), 9);
  EXPECT_EQ(part.dense(), with_ones(stored).middleRows(3, 4));
  EXPECT_EQ(part.middle_rows(1, 2).dense(), with_ones(stored).middleRows(4, 2));
}

TEST(Design, AnInterceptOnlyDesignHasNoStoredColumns) {
  const Design design = Design::borrowed(nullptr, 4, 0, 4, true);
  EXPECT_EQ(design.cols(), 1);
  EXPECT_EQ(design.dense(), Eigen::MatrixXd::Ones(4, 1));
  EXPECT_EQ(design.middle_rows(2, 2).dense(), Eigen::MatrixXd::Ones(2, 1));
  Eigen::MatrixXd rows;
  design.copy_rows(1, 3, rows);  // past the first row: no offset of a null pointer (UBSan)
  EXPECT_EQ(rows, Eigen::MatrixXd::Ones(3, 1));
}

// The sums over rows of a design with a unit column have the bits of the same design with its
// ones stored: the row blocks hand the kernels the ones in the same order.
TEST(Design, SumsOverRowsOfAUnitColumnAreThoseOfStoredOnes) {
  const index_t n = 3 * kRowSumBlock + 17;  // whole blocks and a partial one
  const Eigen::MatrixXd stored = random_matrix(n, 4, 3);
  const Design unit(stored, true);
  const Design dense(with_ones(stored));
  const Eigen::VectorXd theta = random_matrix(5, 1, 4);
  const auto terms = [&](index_t, const simd::RowBlock& block, Eigen::VectorXd& g,
                         Eigen::VectorXd& c) {
    simd::linear_predictors(block, theta.data(), g.data());
    c = g.cwiseAbs();
    return g.sum();
  };
  const RowSums from_unit = sum_over_rows(unit, true, true, terms);
  const RowSums from_dense = sum_over_rows(dense, true, true, terms);
  EXPECT_EQ(from_unit.value, from_dense.value);
  EXPECT_EQ(from_unit.vector, from_dense.vector);
  EXPECT_EQ(from_unit.matrix, from_dense.matrix);
}

}  // namespace
}  // namespace coreset::models
