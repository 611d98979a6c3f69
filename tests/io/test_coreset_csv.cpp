#include <gtest/gtest.h>

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/solver.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

std::uint64_t bits_of(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

class CoresetCsvTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    write_bytes(path_, text);
    return path_;
  }

  std::string error_at(const std::string& text, index_t line, index_t column) {
    write(text);
    return test::expect_input_error_at(path_, line, column, [&] { read_coreset_csv(path_); });
  }

  TempDir dir_;
  std::string path_ = dir_.file("coreset.csv");
};

TEST_F(CoresetCsvTest, RoundTripIsBitExact) {
  Coreset coreset;
  coreset.indices = {0, 3, 7, 100, 4294967296LL, 9000000000000000000LL};
  coreset.weights = {1.0 / 3.0, 1e-300, 123456789.123456789, 0.1 + 0.2, DBL_MAX, 4.9e-324};
  write_coreset_csv(path_, coreset);
  const Coreset back = read_coreset_csv(path_);
  ASSERT_EQ(back.indices, coreset.indices);
  ASSERT_EQ(back.weights.size(), coreset.weights.size());
  for (std::size_t i = 0; i < coreset.weights.size(); ++i) {
    EXPECT_EQ(bits_of(back.weights[i]), bits_of(coreset.weights[i])) << "weight " << i;
  }
}

TEST_F(CoresetCsvTest, WrittenFormat) {
  Coreset coreset;
  coreset.indices = {2, 5};
  coreset.weights = {1.0 / 3.0, 2.0};
  write_coreset_csv(path_, coreset);
  EXPECT_EQ(read_bytes(path_), "index,weight\n2,0.33333333333333331\n5,2\n");
}

TEST_F(CoresetCsvTest, EmptyCoresetRoundTrips) {
  write_coreset_csv(path_, Coreset{});
  EXPECT_EQ(read_bytes(path_), "index,weight\n");
  EXPECT_EQ(read_coreset_csv(path_).size(), 0);
}

TEST_F(CoresetCsvTest, HandWrittenFileWithCrlfAndSpaces) {
  const Coreset coreset = read_coreset_csv(write("index, weight\r\n 1 , 0.5\r\n+4,2e3\r\n\r\n"));
  EXPECT_EQ(coreset.indices, (std::vector<index_t>{1, 4}));
  EXPECT_EQ(coreset.weights, (std::vector<double>{0.5, 2000.0}));
}

TEST_F(CoresetCsvTest, HeaderIsChecked) {
  EXPECT_TRUE(contains(error_at("idx,weight\n1,2\n", 1, 1), "expected the header 'index,weight'"));
  error_at("index,w\n1,2\n", 1, 2);
  error_at("index\n1,2\n", 1, 2);
  error_at("index,weight,extra\n1,2\n", 1, 3);
  error_at("0,1.5\n1,2\n", 1, 1);
  EXPECT_TRUE(contains(error_at("", 0, 0), "file is empty"));
}

TEST_F(CoresetCsvTest, IndicesMustBeStrictlyAscending) {
  EXPECT_TRUE(contains(error_at("index,weight\n1,1\n5,1\n3,1\n", 4, 1), "strictly ascending"));
  error_at("index,weight\n1,1\n1,1\n", 3, 1);
}

TEST_F(CoresetCsvTest, FieldsAreValidated) {
  EXPECT_TRUE(contains(error_at("index,weight\n-1,1\n", 2, 1), "negative index"));
  error_at("index,weight\n1.5,1\n", 2, 1);
  error_at("index,weight\nx,1\n", 2, 1);
  error_at("index,weight\n99999999999999999999,1\n", 2, 1);
  EXPECT_TRUE(contains(error_at("index,weight\n1,-0.5\n", 2, 2), "negative weight"));
  error_at("index,weight\n1,nan\n", 2, 2);
  error_at("index,weight\n1,inf\n", 2, 2);
  error_at("index,weight\n1,\n", 2, 2);
  error_at("index,weight\n1\n", 2, 2);
  error_at("index,weight\n1,2,3\n", 2, 3);
  error_at("index,weight\n1,2\n\n3,4\n", 3, 0);
}

// For a dataset of n rows, an index >= n is an error at its line and column, like any other bad
// cell; n itself is the first index refused.
TEST_F(CoresetCsvTest, AnIndexBeyondTheDatasetIsAnErrorAtItsLine) {
  write("index,weight\n0,1\n2,1\n3,0.5\n");
  EXPECT_EQ(read_coreset_csv(path_, 4).indices, (std::vector<index_t>{0, 2, 3}));
  const std::string message =
      test::expect_input_error_at(path_, 4, 1, [&] { read_coreset_csv(path_, 3); });
  EXPECT_TRUE(contains(message, "index 3 is outside the dataset's 3 rows")) << message;
  test::expect_input_error_at(path_, 2, 1, [&] { read_coreset_csv(path_, 0); });
  EXPECT_THROW(read_coreset_csv(path_, -1), InvalidArgument);
}

TEST_F(CoresetCsvTest, WriterRejectsWhatTheReaderWouldRejectAndWritesNothing) {
  Coreset mismatched;
  mismatched.indices = {1, 2};
  mismatched.weights = {1.0};
  EXPECT_THROW(write_coreset_csv(path_, mismatched), InvalidArgument);
  Coreset unsorted;
  unsorted.indices = {2, 1};
  unsorted.weights = {1.0, 1.0};
  EXPECT_THROW(write_coreset_csv(path_, unsorted), InvalidArgument);
  Coreset negative;
  negative.indices = {1};
  negative.weights = {-1.0};
  EXPECT_THROW(write_coreset_csv(path_, negative), InvalidArgument);
  EXPECT_TRUE(dir_.entries().empty());
}

}  // namespace
}  // namespace coreset::io
