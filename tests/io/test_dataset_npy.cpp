// Datasets from .npy: the same numbers as the CSV reader gives for the same values written with
// 17 digits, in every layout and dtype; errors that name the row and column; the .npy header
// errors of the matrix reader, word for word.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "dataset_compare.hpp"
#include "io_test_util.hpp"
#include "random_table.hpp"

namespace coreset::io {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::expect_input_error;
using test::fingerprint;
using test::random_table;
using test::write_table;

std::string as_csv(const std::vector<double>& table, index_t cols) {
  std::string header;
  for (index_t c = 0; c < cols; ++c) {
    header += (c ? "," : "") + std::string("c") + std::to_string(c);
  }
  return header + "\n" + test::csv_rows(table, cols);
}

// The dataset fields that .npy and CSV must share: the numbers and the response's column.
std::string numbers(Dataset data) {
  data.source.clear();
  data.covariate_names.clear();
  data.response_name.clear();
  data.first_data_line = 0;
  return fingerprint(data);
}

class DatasetNpyTest : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

// A rank's share (DatasetReadOptions::rank, ranks): the rows of datapoint_range, the same numbers
// as those rows of the whole file, in both layouts and from CSV alike; a .npy file's other rows
// are never read (a NaN there goes unnoticed), and a bad value in the share is named by its row
// in the whole file.
TEST_F(DatasetNpyTest, ARanksShareIsItsRowsOfTheWholeFileAndOnlyThoseAreRead) {
  const index_t rows = 3 * kReductionBlock + 20;
  const index_t cols = 4;
  std::vector<double> table = random_table(rows, cols, 9);
  const std::string csv = dir_.write("s.csv", as_csv(table, cols));
  const int ranks = 3;
  for (const bool fortran : {false, true}) {
    SCOPED_TRACE(fortran ? "Fortran order" : "C order");
    const std::string npy = dir_.file(fortran ? "f.npy" : "c.npy");
    write_table<double>(npy, table, rows, cols, fortran);
    const Dataset whole = read_dataset(npy);
    for (int r = 0; r < ranks; ++r) {
      DatasetReadOptions options;
      options.rank = r;
      options.ranks = ranks;
      const Dataset share = read_dataset(npy, options);
      const Dataset from_csv = read_dataset(csv, options);
      const DatapointRange range = datapoint_range(rows, r, ranks);
      EXPECT_EQ(share.first_row, range.first);
      EXPECT_EQ(share.total_rows, rows);
      EXPECT_EQ(share.all_rows(), rows);
      ASSERT_EQ(share.rows(), range.count);
      EXPECT_EQ(from_csv.first_row, range.first);
      EXPECT_EQ(from_csv.first_data_line, 2 + range.first);  // line 1 is the header
      EXPECT_EQ(numbers(share), numbers(from_csv));
      for (index_t i = 0; i < range.count; ++i) {
        for (index_t c = 0; c + 1 < cols; ++c) {
          EXPECT_EQ(share.covariates(i, c), whole.covariates(range.first + i, c));
        }
        EXPECT_EQ(share.response[static_cast<std::size_t>(i)],
                  whole.response[static_cast<std::size_t>(range.first + i)]);
      }
    }
    // A NaN in rank 2's rows: ranks 0 and 1 never read it; rank 2 names its row in the file.
    std::vector<double> poisoned = table;
    const index_t bad_row = rows - 3;
    poisoned[static_cast<std::size_t>(bad_row * cols + 1)] =
        std::numeric_limits<double>::quiet_NaN();
    write_table<double>(npy, poisoned, rows, cols, fortran);
    DatasetReadOptions options;
    options.ranks = ranks;
    for (options.rank = 0; options.rank < 2; ++options.rank) {
      EXPECT_EQ(read_dataset(npy, options).rows(), datapoint_range(rows, options.rank, 3).count);
    }
    options.rank = 2;
    EXPECT_TRUE(contains(expect_input_error([&] { read_dataset(npy, options); }).what(),
                         "row " + std::to_string(bad_row) + ", column 1"));
  }
  // The same for a CSV file: a word in rank 2's rows is parsed by rank 2 alone, which names the
  // file's line and column.
  std::vector<std::string> text_lines;
  {
    const std::string text = as_csv(table, cols);
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
      text_lines.push_back(text.substr(start, end - start));
    }
  }
  const index_t bad_line = rows - 1;  // row rows - 3, after the header line
  text_lines[static_cast<std::size_t>(bad_line - 1)] =
      "oops" + text_lines[static_cast<std::size_t>(bad_line - 1)];
  std::string broken;
  for (const std::string& line : text_lines) {
    broken += line + "\n";
  }
  const std::string bad_csv = dir_.write("bad.csv", broken);
  DatasetReadOptions options;
  options.ranks = ranks;
  for (options.rank = 0; options.rank < 2; ++options.rank) {
    EXPECT_EQ(numbers(read_dataset(bad_csv, options)), numbers(read_dataset(csv, options)));
  }
  options.rank = 2;
  const InputError error = expect_input_error([&] { read_dataset(bad_csv, options); });
  EXPECT_EQ(error.line(), bad_line) << error.what();
  EXPECT_EQ(error.column(), 1) << error.what();

  DatasetReadOptions outside;
  outside.rank = 3;
  outside.ranks = 3;
  EXPECT_THROW(read_dataset(csv, outside), InvalidArgument);
}

TEST_F(DatasetNpyTest, SameNumbersAsTheCsvInEveryLayoutDtypeAndResponseColumn) {
  const index_t rows = 1000;
  const index_t cols = 5;
  std::vector<double> table = random_table(rows, cols, 7);
  std::vector<double> single(table.size());  // the values float32 can hold
  for (std::size_t i = 0; i < table.size(); ++i) {
    single[i] = static_cast<float>(table[i]);
  }
  for (const bool fortran : {false, true}) {
    for (const bool as_float : {false, true}) {
      const std::vector<double>& values = as_float ? single : table;
      const std::string csv = dir_.write("d.csv", as_csv(values, cols));
      const std::string npy = dir_.file("d.npy");
      as_float ? write_table<float>(npy, values, rows, cols, fortran)
               : write_table<double>(npy, values, rows, cols, fortran);
      for (const index_t response : {index_t{-1}, index_t{0}, index_t{2}}) {
        const std::string name = response < 0 ? "" : "c" + std::to_string(response);
        for (int threads = 1; threads <= 3; ++threads) {
          const Dataset from_npy = read_dataset_npy(npy, response, true, threads);
          EXPECT_EQ(numbers(from_npy), numbers(read_dataset_csv(csv, name)))
              << "fortran " << fortran << " float " << as_float << " response " << response;
          EXPECT_EQ(from_npy.covariate_names, (std::vector<std::string>{"x1", "x2", "x3", "x4"}));
          EXPECT_EQ(from_npy.first_data_line, 0);
          EXPECT_EQ(from_npy.response_column, (response < 0 ? cols - 1 : response) + 1);
        }
      }
      const Dataset all = read_dataset_npy(npy, -1, false);
      EXPECT_EQ(numbers(all), numbers(read_dataset_csv(csv, "", false)));
      EXPECT_TRUE(all.response.empty());
      EXPECT_EQ(all.dims(), cols);
    }
  }
}

TEST_F(DatasetNpyTest, ReadDatasetPicksNpyByExtensionAndTakesTheResponseAsAnIndex) {
  const std::vector<double> table = random_table(20, 3, 1);
  const std::string upper = dir_.file("D.NPY");
  write_table<double>(upper, table, 20, 3, false);
  DatasetReadOptions options;
  options.response = "0";
  const Dataset data = read_dataset(upper, options);
  EXPECT_EQ(data.response[5], table[15]);
  EXPECT_EQ(data.covariates(5, 1), table[17]);

  const std::string other = dir_.file("data.bin");
  write_table<double>(other, table, 20, 3, false);
  options.format = DataFormat::npy;
  EXPECT_EQ(numbers(read_dataset(other, options)), numbers(data));
  options.response = "y";
  EXPECT_THROW(read_dataset(upper, options), InvalidArgument);
  options.response = "-2";
  EXPECT_THROW(read_dataset(upper, options), InvalidArgument);
  options.response = "";
  options.delimiter = ';';
  EXPECT_THROW(read_dataset(upper, options), InvalidArgument);
}

TEST_F(DatasetNpyTest, NonFiniteValueNamesTheFirstInRowMajorOrder) {
  std::vector<double> table = random_table(300, 3, 2);
  table[250 * 3 + 0] = std::numeric_limits<double>::quiet_NaN();  // first in a Fortran file
  table[40 * 3 + 2] = -std::numeric_limits<double>::infinity();   // first by row
  for (const bool fortran : {false, true}) {
    const std::string npy = dir_.file(fortran ? "f.npy" : "c.npy");
    write_table<double>(npy, table, 300, 3, fortran);
    for (int threads = 1; threads <= 4; ++threads) {
      const InputError error =
          expect_input_error([&] { read_dataset_npy(npy, -1, true, threads); });
      EXPECT_EQ(std::string(error.what()),
                npy +
                    ": non-finite value -inf at row 40, column 2 (0-based) (every entry must "
                    "be finite)");
    }
  }
}

TEST_F(DatasetNpyTest, ShapeAndResponseColumnErrors) {
  const std::vector<double> values(12, 1.0);
  const std::string vector = dir_.file("v.npy");
  write_npy(vector, values.data(), {12}, false);
  EXPECT_TRUE(contains(expect_input_error([&] { read_dataset_npy(vector); }).what(),
                       "expected a 2-D array of shape (N, D + 1)"));
  const std::string one_column = dir_.file("one.npy");
  write_npy(one_column, values.data(), {12, 1}, false);
  EXPECT_TRUE(contains(expect_input_error([&] { read_dataset_npy(one_column); }).what(),
                       "at least 2 columns"));
  EXPECT_EQ(read_dataset_npy(one_column, -1, false).dims(), 1);
  const std::string empty = dir_.file("empty.npy");
  write_npy(empty, values.data(), {0, 3}, false);
  EXPECT_TRUE(
      contains(expect_input_error([&] { read_dataset_npy(empty); }).what(), "no data rows"));
  const std::string table = dir_.file("t.npy");
  write_npy(table, values.data(), {4, 3}, false);
  EXPECT_TRUE(contains(expect_input_error([&] { read_dataset_npy(table, 3); }).what(),
                       "no column 3 for the response: the array has 3 columns"));
  EXPECT_THROW(read_dataset_npy(table, -2), InvalidArgument);
  EXPECT_THROW(read_dataset_npy(table, 0, false), InvalidArgument);
  EXPECT_TRUE(
      contains(expect_input_error([&] { read_dataset_npy(dir_.file("missing.npy")); }).what(),
               "cannot open file"));
  EXPECT_TRUE(contains(expect_input_error([&] { read_dataset_npy(dir_.path().string()); }).what(),
                       "cannot open file"));
}

TEST_F(DatasetNpyTest, MalformedFilesGetTheMatrixReadersHeaderErrors) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CORESET_TEST_DATA_DIR) / "malformed")) {
    if (entry.path().extension() != ".npy") {
      continue;
    }
    ++files;
    const std::string path = entry.path().string();
    const InputError dataset_error = expect_input_error([&] { read_dataset_npy(path); });
    std::string matrix_message;
    try {
      read_matrix<double>(path);
    } catch (const InputError& error) {
      matrix_message = error.what();
    }
    // Header, dtype and size errors come from the one parser; shape and value errors are
    // worded for a dataset.
    const std::string message = dataset_error.what();
    if (matrix_message.find("header") != std::string::npos ||
        matrix_message.find("magic") != std::string::npos ||
        matrix_message.find("dtype") != std::string::npos ||
        matrix_message.find("bytes") != std::string::npos) {
      EXPECT_EQ(message, matrix_message) << path;
    }
  }
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace coreset::io
