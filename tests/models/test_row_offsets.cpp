// models::RowOffsets: offsets stored one a row or shared by every row read alike wherever a row
// is taken (by index, by a segment or a list of rows, by a view from a row on, as a dense
// vector), and only stored ones are stored.
#include "models/row_offsets.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>

namespace coreset::models {
namespace {

TEST(RowOffsets, SharedOffsetsReadAsTheirValueOnEveryRowAndStoreNothing) {
  const RowOffsets offsets = RowOffsets::shared(5, -0.75);
  EXPECT_EQ(offsets.size(), 5);
  EXPECT_FALSE(offsets.stored());
  EXPECT_EQ(offsets.data(), nullptr);
  EXPECT_EQ(offsets.shared_value(), -0.75);
  for (index_t row = 0; row < 5; ++row) {
    EXPECT_EQ(offsets[row], -0.75) << row;
  }
  EXPECT_EQ(offsets.dense(), Eigen::VectorXd::Constant(5, -0.75));
  const OffsetsView view = offsets.view(2);
  EXPECT_EQ(view.stored, nullptr);
  EXPECT_EQ(view[0], -0.75);
  const RowOffsets rows = offsets.segment(1, 3);
  EXPECT_FALSE(rows.stored());
  EXPECT_EQ(rows.size(), 3);
  EXPECT_EQ(rows.dense(), Eigen::VectorXd::Constant(3, -0.75));
  const RowOffsets picked = offsets.rows_at({4, 0, 4});
  EXPECT_FALSE(picked.stored());
  EXPECT_EQ(picked.dense(), Eigen::VectorXd::Constant(3, -0.75));
}

TEST(RowOffsets, StoredOffsetsReadAsTheirOwnRowEverywhere) {
  const Eigen::VectorXd values = Eigen::VectorXd::LinSpaced(6, -3.0, 2.0);
  const RowOffsets offsets(values);
  EXPECT_EQ(offsets.size(), 6);
  EXPECT_TRUE(offsets.stored());
  ASSERT_NE(offsets.data(), nullptr);
  for (index_t row = 0; row < 6; ++row) {
    EXPECT_EQ(offsets[row], values[row]) << row;
    EXPECT_EQ(offsets.data()[row], values[row]) << row;
  }
  EXPECT_EQ(offsets.dense(), values);
  const OffsetsView view = offsets.view(2);
  ASSERT_NE(view.stored, nullptr);
  EXPECT_EQ(view[0], values[2]);
  EXPECT_EQ(view[3], values[5]);
  const RowOffsets rows = offsets.segment(2, 3);
  EXPECT_TRUE(rows.stored());
  EXPECT_EQ(rows.dense(), values.segment(2, 3));
  const RowOffsets picked = offsets.rows_at({5, 0, 5, 2});
  EXPECT_TRUE(picked.stored());
  EXPECT_EQ(picked.dense(), Eigen::Vector4d(values[5], values[0], values[5], values[2]));
  // From an Eigen expression too, stored.
  const RowOffsets zeros = Eigen::VectorXd::Zero(4);
  EXPECT_TRUE(zeros.stored());
  EXPECT_EQ(zeros.dense(), Eigen::VectorXd::Zero(4));
}

// Whether offsets are stored is the model's, not the row count's: no rows of stored offsets
// (a rank's empty share of a Poisson model) are still stored, so that the rows gathered to that
// rank keep their own offsets (pipeline/coreset_rows.cpp).
TEST(RowOffsets, NoRowsKeepWhetherTheOffsetsAreStored) {
  const RowOffsets none;
  EXPECT_EQ(none.size(), 0);
  EXPECT_FALSE(none.stored());
  EXPECT_EQ(none.dense().size(), 0);
  const RowOffsets no_shared_rows = RowOffsets::shared(4, 1.0).segment(4, 0);
  EXPECT_EQ(no_shared_rows.size(), 0);
  EXPECT_FALSE(no_shared_rows.stored());
  const RowOffsets no_stored_rows = RowOffsets(Eigen::VectorXd::Ones(4)).segment(4, 0);
  EXPECT_EQ(no_stored_rows.size(), 0);
  EXPECT_TRUE(no_stored_rows.stored());
  EXPECT_TRUE(RowOffsets(Eigen::VectorXd()).stored());
}

}  // namespace
}  // namespace coreset::models
