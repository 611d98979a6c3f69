#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::TempDir;

using Names = std::vector<std::string>;

class DatasetCsvTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "data.csv") {
    return dir_.write(name, text);
  }

  Dataset read(const std::string& text, const std::string& response = "",
               bool has_response = true) {
    return read_dataset_csv(write(text), response, has_response);
  }

  // The error for `text`, which must sit at `line` and `column`.
  std::string error_at(const std::string& text, index_t line, index_t column,
                       const std::string& response = "", bool has_response = true) {
    const std::string path = write(text);
    return test::expect_input_error_at(path, line, column,
                                       [&] { read_dataset_csv(path, response, has_response); });
  }

  TempDir dir_;
};

TEST_F(DatasetCsvTest, RowsAreDatapointsAndTheLastColumnIsTheResponse) {
  const std::string path = write("a,b,y\n1,2,10\n3,4,20\n5,6,30\n");
  const Dataset data = read_dataset_csv(path);
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.dims(), 2);
  // Row i of the file is row i of the covariates; column-major storage.
  EXPECT_EQ(data.covariates(0, 0), 1.0);
  EXPECT_EQ(data.covariates(0, 1), 2.0);
  EXPECT_EQ(data.covariates(1, 0), 3.0);
  EXPECT_EQ(data.covariates(1, 1), 4.0);
  EXPECT_EQ(data.covariates(2, 0), 5.0);
  EXPECT_EQ(data.covariates(2, 1), 6.0);
  EXPECT_EQ(std::vector<double>(data.covariates.column(1), data.covariates.column(1) + 3),
            (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(data.response, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(data.covariate_names, (Names{"a", "b"}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.source, path);
  EXPECT_EQ(data.first_data_line, 2);
  EXPECT_EQ(data.response_column, 3);
}

// Lines ending in CR alone arrive as one header line: said, at line 1, instead of "no data rows
// after the header". CRLF files read as before.
TEST_F(DatasetCsvTest, LinesEndingInCarriageReturnAloneAreNamed) {
  const std::string message = error_at("x1,x2,y\r1,2,1\r2,1,-1\r", 1, 0);
  EXPECT_TRUE(contains(message, "CR alone")) << message;
  const Dataset crlf = read("x1,x2,y\r\n1,2,1\r\n2,1,-1\r\n");
  EXPECT_EQ(crlf.rows(), 2);
  EXPECT_EQ(crlf.covariate_names, (Names{"x1", "x2"}));
}

TEST_F(DatasetCsvTest, ResponseChosenByNameInTheMiddle) {
  const Dataset data = read("a,y,b\n1,10,2\n3,20,4\n5,30,6\n", "y");
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.dims(), 2);
  EXPECT_EQ(data.covariate_names, (Names{"a", "b"}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.response_column, 2);
  EXPECT_EQ(data.response, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(data.covariates(0, 0), 1.0);
  EXPECT_EQ(data.covariates(0, 1), 2.0);  // b moved left past the response
  EXPECT_EQ(data.covariates(2, 0), 5.0);
  EXPECT_EQ(data.covariates(2, 1), 6.0);
}

TEST_F(DatasetCsvTest, ResponseChosenByNameFirstOrLast) {
  const Dataset first = read("y,a,b\n10,1,2\n20,3,4\n", "y");
  EXPECT_EQ(first.response_column, 1);
  EXPECT_EQ(first.response, (std::vector<double>{10, 20}));
  EXPECT_EQ(first.covariate_names, (Names{"a", "b"}));
  EXPECT_EQ(first.covariates(1, 0), 3.0);
  EXPECT_EQ(first.covariates(1, 1), 4.0);

  // Naming the last column is the same as the default.
  const Dataset last = read("a,b,y\n1,2,10\n3,4,20\n", " y ");
  EXPECT_EQ(last.response_column, 3);
  EXPECT_EQ(last.response, (std::vector<double>{10, 20}));
  EXPECT_EQ(last.covariates(1, 1), 4.0);
}

TEST_F(DatasetCsvTest, WithoutResponseEveryColumnIsACovariate) {
  // A response name is irrelevant without a response.
  const Dataset data = read("a,b,y\n1,2,10\n3,4,20\n", "y", false);
  ASSERT_EQ(data.rows(), 2);
  ASSERT_EQ(data.dims(), 3);
  EXPECT_TRUE(data.response.empty());
  EXPECT_EQ(data.response_name, "");
  EXPECT_EQ(data.response_column, 0);
  EXPECT_EQ(data.covariate_names, (Names{"a", "b", "y"}));
  EXPECT_EQ(data.covariates(0, 2), 10.0);
  EXPECT_EQ(data.covariates(1, 0), 3.0);
  EXPECT_EQ(data.covariates(1, 2), 20.0);
  EXPECT_EQ(data.first_data_line, 2);

  // One column is enough without a response.
  const Dataset single = read("x\n1.5\n-2\n", "", false);
  EXPECT_EQ(single.dims(), 1);
  EXPECT_EQ(single.covariates(1, 0), -2.0);
}

TEST_F(DatasetCsvTest, NamesAndCellsAreTrimmed) {
  const Dataset data = read("  a ,\tb\t, y \n +1 , -2.5e-3\t,\t1 \n", "y");
  EXPECT_EQ(data.covariate_names, (Names{"a", "b"}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.covariates(0, 0), 1.0);
  EXPECT_EQ(data.covariates(0, 1), -2.5e-3);
  EXPECT_EQ(data.response, (std::vector<double>{1}));
}

TEST_F(DatasetCsvTest, CrlfByteOrderMarkAndTrailingEmptyLines) {
  const Dataset data = read("\xEF\xBB\xBFx1,x2,y\r\n1,2,-1\r\n3,4,1\r\n\r\n\n");
  EXPECT_EQ(data.covariate_names, (Names{"x1", "x2"}));  // no BOM in the first name
  EXPECT_EQ(data.response_name, "y");                    // no '\r' in the last name
  ASSERT_EQ(data.rows(), 2);
  EXPECT_EQ(data.covariates(1, 1), 4.0);
  EXPECT_EQ(data.response, (std::vector<double>{-1, 1}));
}

// The papers' files: x1,...,xD,y with full-precision covariates and labels in the last column.
TEST_F(DatasetCsvTest, PapersFormat) {
  const Dataset data = read(
      "x1,x2,x3,y\n"
      "-0.13552214385942701,-0.21418321953824748,0.1336885667778781,1\n"
      "0.23663809825979451,-0.028548999979413459,-0.055073728553085226,-1\n");
  EXPECT_EQ(data.covariate_names, (Names{"x1", "x2", "x3"}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.response_column, 4);
  ASSERT_EQ(data.rows(), 2);
  ASSERT_EQ(data.dims(), 3);
  EXPECT_EQ(data.covariates(0, 0), -0.13552214385942701);
  EXPECT_EQ(data.covariates(0, 2), 0.1336885667778781);
  EXPECT_EQ(data.covariates(1, 1), -0.028548999979413459);
  EXPECT_EQ(data.response, (std::vector<double>{1, -1}));
}

// More rows than one parsing band holds, plus a partial band, with the response in the middle:
// every band must land at its own rows.
TEST_F(DatasetCsvTest, ManyRowsKeepTheirOrder) {
  const index_t rows = 50001;
  std::string text = "a,y,b\n";
  for (index_t i = 0; i < rows; ++i) {
    text += std::to_string(i) + "," + std::to_string(i % 7) + "," + std::to_string(-i) + "\n";
  }
  const Dataset data = read(text, "y");
  ASSERT_EQ(data.rows(), rows);
  ASSERT_EQ(data.dims(), 2);
  index_t mismatches = 0;
  for (index_t i = 0; i < rows; ++i) {
    mismatches += data.covariates(i, 0) != static_cast<double>(i);
    mismatches += data.covariates(i, 1) != -static_cast<double>(i);
    mismatches += data.response[static_cast<std::size_t>(i)] != static_cast<double>(i % 7);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(DatasetCsvTest, NonNumericCell) {
  const std::string message = error_at("a,b,y\n1,2,3\n4,abc,6\n", 3, 2);
  EXPECT_TRUE(contains(message, "non-numeric cell 'abc'"));
  EXPECT_TRUE(contains(message, ":3:2: "));
  // In the response column, whichever it is.
  EXPECT_TRUE(contains(error_at("a,y,b\n1,yes,2\n", 2, 2, "y"), "'yes'"));
  EXPECT_TRUE(contains(error_at("a,b,y\n1,,3\n", 2, 2), "empty cell"));
}

TEST_F(DatasetCsvTest, NanAndInfAreRejected) {
  EXPECT_TRUE(contains(error_at("a,y\n1,2\nnan,4\n", 3, 1), "'nan'"));
  EXPECT_TRUE(contains(error_at("a,y\n1,inf\n", 2, 2), "'inf'"));
  error_at("a,y\n1,-Infinity\n", 2, 2);
  EXPECT_TRUE(contains(error_at("a,b\n1,2\n3,4\n5,1e999\n", 4, 2), "out of range"));
}

TEST_F(DatasetCsvTest, RaggedRows) {
  EXPECT_TRUE(contains(error_at("a,b,c,y\n1,2,3,4\n5,6,7\n", 3, 4),
                       "has 3 fields, expected 4 (as in the header)"));
  EXPECT_TRUE(contains(error_at("a,b,y\n1,2,3\n4,5,6,7\n", 3, 4),
                       "has 4 fields, expected 3 (as in the header)"));
  // Also when the header is the longer line.
  error_at("a,b,y\n1,2\n", 2, 3);
}

TEST_F(DatasetCsvTest, BlankLineInTheMiddle) {
  EXPECT_TRUE(contains(error_at("a,y\n1,2\n\n3,4\n", 3, 0), "blank line"));
  error_at("a,y\r\n1,2\r\n \t\r\n3,4\r\n", 3, 0);
  // Between the header and the data, too: rows must map to consecutive lines.
  error_at("a,y\n\n1,2\n", 2, 0);
}

TEST_F(DatasetCsvTest, DuplicateHeaderName) {
  const std::string message = error_at("a,b,a,y\n1,2,3,4\n", 1, 3);
  EXPECT_TRUE(contains(message, "duplicate column name 'a' (also column 1)"));
  // Trimming happens before the comparison.
  error_at("a,b, b ,y\n1,2,3,4\n", 1, 3, "", false);
}

TEST_F(DatasetCsvTest, EmptyHeaderName) {
  EXPECT_TRUE(contains(error_at("a,,y\n1,2,3\n", 1, 2), "empty column name"));
  error_at("a,b,y,\n1,2,3,4\n", 1, 4);
  error_at(" ,b\n1,2\n", 1, 1, "", false);
  error_at("\n\na,y\n1,2\n", 1, 0);  // a blank first line is no header
}

TEST_F(DatasetCsvTest, UnknownResponseName) {
  const std::string message = error_at("a,b,c\n1,2,3\n", 1, 0, "foo");
  EXPECT_TRUE(contains(message, "no column named 'foo' (columns: a, b, c)"));
}

TEST_F(DatasetCsvTest, ResponseNeedsTwoColumns) {
  EXPECT_TRUE(contains(error_at("y\n1\n2\n", 1, 0), "at least 2 columns"));
  error_at("y\n1\n", 1, 0, "y");
}

TEST_F(DatasetCsvTest, EmptyFile) {
  EXPECT_TRUE(contains(error_at("", 0, 0), "file is empty"));
  error_at("\n \r\n\n", 0, 0);
  error_at("\xEF\xBB\xBF", 0, 0);
}

TEST_F(DatasetCsvTest, HeaderOnly) {
  EXPECT_TRUE(contains(error_at("a,b,y\n", 0, 0), "no data rows after the header"));
  error_at("a,b,y", 0, 0);
  error_at("a,b,y\r\n\r\n\n", 0, 0, "", false);
}

TEST_F(DatasetCsvTest, MissingFile) {
  const std::string path = dir_.file("absent.csv");
  const InputError error = expect_input_error([&] { read_dataset_csv(path); });
  EXPECT_EQ(error.file(), path);
  EXPECT_TRUE(contains(error.what(), std::strerror(ENOENT)));
}

}  // namespace
}  // namespace coreset::io
