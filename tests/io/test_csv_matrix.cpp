#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::TempDir;

class CsvMatrixTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "phi.csv") {
    return dir_.write(name, text);
  }

  // The error for `text`, which must sit at `line` and `column`.
  std::string error_at(const std::string& text, index_t line, index_t column) {
    const std::string path = write(text);
    return test::expect_input_error_at(path, line, column, [&] { read_matrix<double>(path); });
  }

  TempDir dir_;
};

TEST_F(CsvMatrixTest, RowsOfTheFileAreRowsOfTheMatrix) {
  const Matrix<double> m = read_matrix<double>(write("1,2,3\n4,5,6\n"));
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 0), 1.0);
  EXPECT_EQ(m(0, 1), 2.0);
  EXPECT_EQ(m(0, 2), 3.0);
  EXPECT_EQ(m(1, 0), 4.0);
  EXPECT_EQ(m(1, 1), 5.0);
  EXPECT_EQ(m(1, 2), 6.0);
  // Column-major storage: column 1 is (2, 5).
  EXPECT_EQ(m.column(1)[0], 2.0);
  EXPECT_EQ(m.column(1)[1], 5.0);
}

TEST_F(CsvMatrixTest, CrlfAndNoFinalNewline) {
  const Matrix<double> m = read_matrix<double>(write("1.5,-2\r\n3e2,0.25"));
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(m(0, 1), -2.0);
  EXPECT_EQ(m(1, 0), 300.0);
  EXPECT_EQ(m(1, 1), 0.25);
}

TEST_F(CsvMatrixTest, SpacesTabsSignsAndTrailingEmptyLine) {
  const Matrix<double> m = read_matrix<double>(write(" +1 ,\t-2.5e-3\t, .5\n4 , 5. ,  6\r\n\n"));
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 0), 1.0);
  EXPECT_EQ(m(0, 1), -2.5e-3);
  EXPECT_EQ(m(0, 2), 0.5);
  EXPECT_EQ(m(1, 1), 5.0);
  EXPECT_EQ(m(1, 2), 6.0);
}

TEST_F(CsvMatrixTest, ValuesAreCorrectlyRoundedInEitherPrecision) {
  const std::string path = write("0.1,0.3333333333333333\n1e-310,-0\n");
  const Matrix<double> d = read_matrix<double>(path);
  EXPECT_EQ(d(0, 0), 0.1);
  EXPECT_EQ(d(0, 1), 0.3333333333333333);
  EXPECT_EQ(d(1, 0), 1e-310);
  const Matrix<float> f = read_matrix<float>(path);
  EXPECT_EQ(f(0, 0), 0.1f);
  EXPECT_EQ(f(0, 1), 0.3333333333333333f);
  EXPECT_EQ(f(1, 0), 0.0f);  // below float's range: zero, not an error
}

// More rows than one transposition band holds, plus a partial band.
TEST_F(CsvMatrixTest, ManyRowsKeepTheirOrder) {
  const index_t rows = 70001;
  std::string text;
  for (index_t i = 0; i < rows; ++i) {
    text += std::to_string(i) + "," + std::to_string(-i) + "\n";
  }
  const Matrix<double> m = read_matrix<double>(write(text));
  ASSERT_EQ(m.rows(), rows);
  ASSERT_EQ(m.cols(), 2);
  index_t mismatches = 0;
  for (index_t i = 0; i < rows; ++i) {
    mismatches += m(i, 0) != static_cast<double>(i);
    mismatches += m(i, 1) != -static_cast<double>(i);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(CsvMatrixTest, NonNumericCell) {
  const std::string message = error_at("1,2,3\n4,5,abc\n", 2, 3);
  EXPECT_TRUE(contains(message, "non-numeric cell 'abc'"));
  EXPECT_TRUE(contains(message, ":2:3: "));
  error_at("1,2\n3,1e\n", 2, 2);
  error_at("1,2\n3,+-1\n", 2, 2);
  error_at("1,2\n3,0x10\n", 2, 2);
  error_at("1,2\n3,4 5\n", 2, 2);
  EXPECT_TRUE(contains(error_at("1,,3\n", 1, 2), "empty cell"));
}

TEST_F(CsvMatrixTest, LongCellIsQuotedTruncated) {
  const std::string cell(100, 'x');
  const std::string message = error_at("1," + cell + "\n", 1, 2);
  EXPECT_TRUE(contains(message, "'" + std::string(40, 'x') + "'..."));
  EXPECT_FALSE(contains(message, std::string(41, 'x')));
}

TEST_F(CsvMatrixTest, RaggedRows) {
  EXPECT_TRUE(
      contains(error_at("1,2,3,4\n5,6,7\n", 2, 4), "row has 3 fields, expected 4 (as in line 1)"));
  EXPECT_TRUE(
      contains(error_at("1,2\n3,4\n5,6,7\n", 3, 3), "row has 3 fields, expected 2 (as in line 1)"));
}

TEST_F(CsvMatrixTest, NanAndInfAreRejected) {
  EXPECT_TRUE(contains(error_at("1,2\nnan,4\n", 2, 1), "'nan'"));
  EXPECT_TRUE(contains(error_at("1,inf\n", 1, 2), "'inf'"));
  error_at("1,2\n3,-Infinity\n", 2, 2);
  error_at("NaN\n", 1, 1);
  EXPECT_TRUE(contains(error_at("1,1e999\n", 1, 2), "out of range"));
}

TEST_F(CsvMatrixTest, BlankLineInTheMiddle) {
  EXPECT_TRUE(contains(error_at("1,2\n\n3,4\n", 2, 0), "blank line"));
  error_at("1,2\r\n  \r\n3,4\r\n", 2, 0);
}

TEST_F(CsvMatrixTest, EmptyFile) {
  EXPECT_TRUE(contains(error_at("", 0, 0), "file is empty: expected S lines of n numbers"));
  error_at("\n\n  \n", 0, 0);
}

TEST_F(CsvMatrixTest, MissingFile) {
  const std::string path = dir_.file("absent.csv");
  const InputError error = expect_input_error([&] { read_matrix<double>(path); });
  EXPECT_EQ(error.file(), path);
  EXPECT_TRUE(contains(error.what(), std::strerror(ENOENT)));
  EXPECT_THROW(read_vector<float>(path), InputError);
}

TEST_F(CsvMatrixTest, DirectoryIsNotAFile) {
  const InputError error = expect_input_error([&] { read_matrix<double>(dir_.path().string()); });
  EXPECT_TRUE(contains(error.what(), std::strerror(EISDIR)));
}

TEST_F(CsvMatrixTest, NpyContentUnderAnotherName) {
  const std::vector<double> values = {1, 2};
  const std::string path = dir_.file("phi.data");
  write_npy(path, values.data(), {1, 2}, false);
  const InputError error = expect_input_error([&] { read_matrix<double>(path); });
  EXPECT_TRUE(contains(error.what(), ".npy"));
}

TEST_F(CsvMatrixTest, VectorForms) {
  EXPECT_EQ(read_vector<double>(write("1\n2.5\n-3\n")), (std::vector<double>{1, 2.5, -3}));
  EXPECT_EQ(read_vector<double>(write("1, 2.5 ,-3\r\n")), (std::vector<double>{1, 2.5, -3}));
  EXPECT_EQ(read_vector<float>(write("42")), (std::vector<float>{42.0f}));

  const std::string square = write("1,2\n3,4\n");
  const InputError error = expect_input_error([&] { read_vector<double>(square); });
  EXPECT_TRUE(contains(error.what(), "2 lines of 2 numbers"));

  const std::string ragged = write("1\n2,3\n");
  const InputError ragged_error = expect_input_error([&] { read_vector<double>(ragged); });
  EXPECT_EQ(ragged_error.line(), 2);

  const std::string empty = write("");
  EXPECT_TRUE(
      contains(expect_input_error([&] { read_vector<double>(empty); }).what(), "file is empty"));

  const std::string bad = write("1\n2\nx\n");
  const InputError bad_error = expect_input_error([&] { read_vector<double>(bad); });
  EXPECT_EQ(bad_error.line(), 3);
  EXPECT_EQ(bad_error.column(), 1);
}

}  // namespace
}  // namespace coreset::io
