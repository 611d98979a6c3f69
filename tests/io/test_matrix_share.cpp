// A rank's block of a matrix (io::read_matrix_share): the same numbers as that block of the whole
// matrix, along either axis, from .npy files in both orders and in both element types, and from
// CSV; a .npy file's values outside the block are never read, and a bad value inside it is named
// by its place in the whole matrix.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "helpers/thread_communicator.hpp"
#include "io_test_util.hpp"
#include "random_table.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::csv_rows;
using test::expect_input_error;
using test::random_table;
using test::write_table;

// Every rank's block equals that block of the whole matrix read_matrix reads, bit for bit.
template <class T>
void expect_blocks_of_whole(const std::string& path, DatapointAxis axis, int ranks) {
  const Matrix<T> whole = read_matrix<T>(path);
  const bool by_column = axis == DatapointAxis::columns;
  index_t covered = 0;
  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r) + " of " + std::to_string(ranks));
    const MatrixShare<T> share = read_matrix_share<T>(path, axis, r, ranks);
    EXPECT_EQ(share.rows, whole.rows());
    EXPECT_EQ(share.cols, whole.cols());
    const DatapointRange range = datapoint_range(by_column ? whole.cols() : whole.rows(), r, ranks);
    EXPECT_EQ(share.first, range.first);
    ASSERT_EQ(share.values.rows(), by_column ? whole.rows() : range.count);
    ASSERT_EQ(share.values.cols(), by_column ? range.count : whole.cols());
    for (index_t i = 0; i < share.values.rows(); ++i) {
      for (index_t j = 0; j < share.values.cols(); ++j) {
        const T expected = by_column ? whole(i, range.first + j) : whole(range.first + i, j);
        ASSERT_EQ(share.values(i, j), expected) << "at " << i << ", " << j;
      }
    }
    covered += range.count;
  }
  EXPECT_EQ(covered, by_column ? whole.cols() : whole.rows());
}

class MatrixShareTest : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

TEST_F(MatrixShareTest, EveryBlockIsThatBlockOfTheWholeMatrix) {
  // Phi-like (S x n, datapoints as columns) and log-likelihood-like (n x S, as rows) shapes, a
  // single draw and a single datapoint among them.
  struct Shape {
    index_t rows, cols;
    DatapointAxis axis;
  };
  const index_t n = 3 * kReductionBlock + 40;
  for (const Shape shape : {Shape{7, n, DatapointAxis::columns}, Shape{n, 5, DatapointAxis::rows},
                            Shape{1, n, DatapointAxis::columns}, Shape{n, 1, DatapointAxis::rows},
                            Shape{4, 1, DatapointAxis::columns}}) {
    const std::vector<double> values = random_table(shape.rows, shape.cols, 5);
    for (const bool fortran : {false, true}) {
      SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.cols) +
                   (fortran ? ", Fortran order" : ", C order"));
      const std::string f64 = dir_.file("m64.npy");
      const std::string f32 = dir_.file("m32.npy");
      write_table<double>(f64, values, shape.rows, shape.cols, fortran);
      write_table<float>(f32, values, shape.rows, shape.cols, fortran);
      for (int ranks = 1; ranks <= 4; ++ranks) {
        expect_blocks_of_whole<double>(f64, shape.axis, ranks);
        expect_blocks_of_whole<float>(f64, shape.axis, ranks);  // converted
        expect_blocks_of_whole<float>(f32, shape.axis, ranks);
      }
    }
    const std::string csv = dir_.write("m.csv", csv_rows(values, shape.cols));
    for (int ranks = 1; ranks <= 4; ++ranks) {
      expect_blocks_of_whole<double>(csv, shape.axis, ranks);
    }
  }
}

// A NaN in rank 2's datapoints: ranks 0 and 1 never read it from a .npy file; rank 2 names its
// row and column in the whole matrix, in either order and along either axis.
TEST_F(MatrixShareTest, ABadValueIsSeenOnlyByTheRankWhoseBlockHoldsItAndNamedInTheWholeMatrix) {
  const index_t n = 3 * kReductionBlock;
  const index_t draws = 6;
  const index_t bad_datapoint = 2 * kReductionBlock + 9;  // rank 2's of 3
  const index_t bad_draw = 4;
  for (const DatapointAxis axis : {DatapointAxis::columns, DatapointAxis::rows}) {
    const bool by_column = axis == DatapointAxis::columns;
    const index_t rows = by_column ? draws : n;
    const index_t cols = by_column ? n : draws;
    std::vector<double> values = random_table(rows, cols, 8);
    const index_t bad_row = by_column ? bad_draw : bad_datapoint;
    const index_t bad_col = by_column ? bad_datapoint : bad_draw;
    values[static_cast<std::size_t>(bad_row * cols + bad_col)] =
        std::numeric_limits<double>::quiet_NaN();
    for (const bool fortran : {false, true}) {
      SCOPED_TRACE(std::string(by_column ? "columns" : "rows") + (fortran ? ", Fortran" : ", C"));
      const std::string path = dir_.file("bad.npy");
      write_table<double>(path, values, rows, cols, fortran);
      EXPECT_NO_THROW(read_matrix_share<double>(path, axis, 0, 3));
      EXPECT_NO_THROW(read_matrix_share<double>(path, axis, 1, 3));
      const InputError error =
          expect_input_error([&] { read_matrix_share<double>(path, axis, 2, 3); });
      EXPECT_TRUE(contains(
          error.what(), "row " + std::to_string(bad_row) + ", column " + std::to_string(bad_col)))
          << error.what();
    }
  }
}

// A CSV Phi (datapoints as columns): every rank scans every line but parses only its columns, so
// a bad cell is the error of the rank whose columns hold it (the whole reader's, line and
// column), the others read their blocks; quoted cells outside a block are skipped whole; and a
// ragged line is every rank's error.
TEST_F(MatrixShareTest, CsvColumnsAreParsedOnlyByTheRankThatHoldsThem) {
  const index_t n = 3 * kReductionBlock;
  const index_t draws = 5;
  std::vector<double> values = random_table(draws, n, 21);
  std::string text = csv_rows(values, n);
  // Quote two cells of line 2, one in rank 0's block and one in rank 2's: each rank skips the
  // other's whole and parses its own.
  const auto cell_start = [&](const std::string& in, index_t line, index_t column) {
    std::size_t at = 0;
    for (index_t l = 1; l < line; ++l) {
      at = in.find('\n', at) + 1;
    }
    for (index_t c = 0; c < column; ++c) {
      at = in.find(',', at) + 1;
    }
    return at;
  };
  const auto replace_cell = [&](std::string& in, index_t line, index_t column,
                                const std::string& cell) {
    const std::size_t at = cell_start(in, line, column);
    const std::size_t end = in.find_first_of(",\n", at);
    in.replace(at, end - at, cell);
  };
  replace_cell(text, 2, 3, "\"0.25\"");
  values[static_cast<std::size_t>(1 * n + 3)] = 0.25;
  replace_cell(text, 2, 2 * kReductionBlock + 1, "\"1.5\"");
  values[static_cast<std::size_t>(1 * n + 2 * kReductionBlock + 1)] = 1.5;
  const std::string good = dir_.write("q.csv", text);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    expect_blocks_of_whole<double>(good, DatapointAxis::columns, ranks);
  }
  const index_t bad_col = 2 * kReductionBlock + 9;  // rank 2's of 3
  std::string bad_text = text;
  replace_cell(bad_text, 4, bad_col, "oops");
  const std::string bad = dir_.write("bad.csv", bad_text);
  const std::string whole = expect_input_error([&] { read_matrix<double>(bad); }).what();
  EXPECT_NO_THROW(read_matrix_share<double>(bad, DatapointAxis::columns, 0, 3));
  EXPECT_NO_THROW(read_matrix_share<double>(bad, DatapointAxis::columns, 1, 3));
  const InputError error =
      expect_input_error([&] { read_matrix_share<double>(bad, DatapointAxis::columns, 2, 3); });
  EXPECT_EQ(std::string(error.what()), whole);
  EXPECT_EQ(error.line(), 4);
  EXPECT_EQ(error.column(), bad_col + 1);
  std::string ragged_text = text;
  ragged_text.insert(cell_start(ragged_text, 3, 0), "1,");
  const std::string ragged = dir_.write("ragged.csv", ragged_text);
  const std::string ragged_whole = expect_input_error([&] { read_matrix<double>(ragged); }).what();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(expect_input_error([&] {
                read_matrix_share<double>(ragged, DatapointAxis::columns, r, 3);
              }).what(),
              ragged_whole);
  }
}

TEST_F(MatrixShareTest, AShapeErrorIsTheWholeReadersAndARankOutsideTheJobIsRefused) {
  const std::string path = dir_.file("v.npy");
  const std::vector<double> vector = {1, 2, 3};
  write_npy(path, vector.data(), {3}, false);
  const std::string whole = expect_input_error([&] { read_matrix<double>(path); }).what();
  const std::string share = expect_input_error([&] {
                              read_matrix_share<double>(path, DatapointAxis::rows, 0, 2);
                            }).what();
  EXPECT_EQ(share, whole);
  EXPECT_THROW(read_matrix_share<double>(path, DatapointAxis::rows, 2, 2), InvalidArgument);
}

// A CSV table of log-likelihoods (datapoints as rows) read with the job's ranks: each rank's block
// is found by byte range and equals the block that rank and ranks read, in every line-end style,
// with a byte-order mark and trailing blank lines, for 2-5 ranks (some without rows).
TEST_F(MatrixShareTest, CsvRowsByByteRangeEqualTheBlocksOfRankAndRanks) {
  const index_t n = 3 * kReductionBlock + 40;
  const index_t draws = 5;
  const std::string text = csv_rows(random_table(n, draws, 12), draws);
  std::string crlf;
  for (const char c : text) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  }
  const std::vector<std::string> variants = {text, "\xEF\xBB\xBF" + text, crlf, text + "\n  \n",
                                             text.substr(0, text.size() - 1)};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const std::string path = dir_.write("v.csv", variants[v]);
    for (int ranks = 2; ranks <= 5; ++ranks) {
      SCOPED_TRACE("variant " + std::to_string(v) + ", " + std::to_string(ranks) + " ranks");
      std::vector<MatrixShare<double>> shares(static_cast<std::size_t>(ranks));
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        shares[static_cast<std::size_t>(comm->rank())] =
            read_matrix_share<double>(path, DatapointAxis::rows, *comm);
      });
      for (int r = 0; r < ranks; ++r) {
        const MatrixShare<double> expected =
            read_matrix_share<double>(path, DatapointAxis::rows, r, ranks);
        const MatrixShare<double>& got = shares[static_cast<std::size_t>(r)];
        EXPECT_EQ(got.first, expected.first);
        EXPECT_EQ(got.rows, n);
        EXPECT_EQ(got.cols, draws);
        ASSERT_EQ(got.values.rows(), expected.values.rows());
        ASSERT_EQ(got.values.cols(), expected.values.cols());
        for (index_t i = 0; i < got.values.rows(); ++i) {
          for (index_t j = 0; j < got.values.cols(); ++j) {
            ASSERT_EQ(got.values(i, j), expected.values(i, j)) << "at " << i << ", " << j;
          }
        }
      }
    }
  }
}

// A bad cell in rank 2's rows fails rank 2 alone, naming the whole file's line; an empty file
// fails every rank alike.
TEST_F(MatrixShareTest, CsvRowsByByteRangeFailOnlyWhereTheBadCellIs) {
  const index_t n = 3 * kReductionBlock;
  std::string text;
  for (index_t i = 0; i < n; ++i) {
    text += i == 2 * kReductionBlock + 3 ? "1,oops,3\n" : "1,2,3\n";
  }
  const std::string path = dir_.write("bad.csv", text);
  std::vector<std::string> errors(3);
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    try {
      read_matrix_share<float>(path, DatapointAxis::rows, *comm);
    } catch (const InputError& error) {
      errors[static_cast<std::size_t>(comm->rank())] =
          std::to_string(error.line()) + ":" + std::to_string(error.column());
    }
  });
  EXPECT_EQ(errors,
            (std::vector<std::string>{"", "", std::to_string(2 * kReductionBlock + 4) + ":2"}));
  const std::string empty = dir_.write("empty.csv", "\n\n");
  const std::string whole = expect_input_error([&] { read_matrix<double>(empty); }).what();
  test::run_ranks(2, [&](const std::shared_ptr<Communicator>& comm) {
    const std::string mine = expect_input_error([&] {
                               read_matrix_share<double>(empty, DatapointAxis::rows, *comm);
                             }).what();
    EXPECT_EQ(mine, whole);
  });
}

}  // namespace
}  // namespace coreset::io
