// The CSV dialect: delimiter detection and forcing, RFC 4180 quotes, CRLF, a byte-order mark,
// trailing blank lines; the chunked line reader; round trips of written files.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::TempDir;

using Names = std::vector<std::string>;

class CsvDialectTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "data.csv") {
    return dir_.write(name, text);
  }

  Dataset read(const std::string& text, char delimiter = 0, const std::string& response = "") {
    return read_dataset_csv(write(text), response, true, delimiter);
  }

  std::string error_at(const std::string& text, index_t line, index_t column, char delimiter = 0) {
    const std::string path = write(text);
    return test::expect_input_error_at(path, line, column,
                                       [&] { read_dataset_csv(path, "", true, delimiter); });
  }

  std::string matrix_error_at(const std::string& text, index_t line, index_t column) {
    const std::string path = write(text);
    return test::expect_input_error_at(path, line, column, [&] { read_matrix<double>(path); });
  }

  TempDir dir_;
};

std::vector<double> column(const Matrix<double>& m, index_t j) {
  return std::vector<double>(m.column(j), m.column(j) + m.rows());
}

TEST_F(CsvDialectTest, DelimiterIsDetectedFromTheHeader) {
  for (const std::string delimiter : {",", ";", "\t"}) {
    const std::string text =
        "a" + delimiter + "b" + delimiter + "y\n1" + delimiter + "2" + delimiter + "3\n";
    const Dataset data = read(text);
    EXPECT_EQ(data.covariate_names, (Names{"a", "b"})) << delimiter;
    EXPECT_EQ(data.response, (std::vector<double>{3})) << delimiter;
    EXPECT_EQ(data.covariates(0, 1), 2.0) << delimiter;
  }
  // Semicolons with decimal points, and tabs with spaces around them.
  const Dataset semi = read("x;y\n1.5;-2e3\n");
  EXPECT_EQ(semi.covariates(0, 0), 1.5);
  EXPECT_EQ(semi.response, (std::vector<double>{-2e3}));
  const Dataset tabs = read("x \t y\n 1.5 \t -2 \n");
  EXPECT_EQ(tabs.covariate_names, (Names{"x"}));
  EXPECT_EQ(tabs.response_name, "y");
  EXPECT_EQ(tabs.covariates(0, 0), 1.5);
}

TEST_F(CsvDialectTest, TabsBesideCommasArePadding) {
  const Dataset data = read("a,\tb\t,\ty\n1,\t2\t,\t3\n");
  EXPECT_EQ(data.covariate_names, (Names{"a", "b"}));
  EXPECT_EQ(data.response, (std::vector<double>{3}));
}

TEST_F(CsvDialectTest, AmbiguousDelimiterNamesTheCandidates) {
  const std::string message = error_at("a,b;c\n1,2;3\n", 1, 0);
  EXPECT_TRUE(contains(message, "cannot tell the delimiter"));
  EXPECT_TRUE(contains(message, "',' (1 times) and ';' (1 times)"));
  EXPECT_TRUE(contains(message, "--delimiter"));
  EXPECT_TRUE(contains(error_at("income,net\tage\n1,2\t3\n", 1, 0), "',' (1 times) and tab"));
  // Matrices too (no header: line 1 decides).
  EXPECT_TRUE(contains(matrix_error_at("1,5;2,5\n", 1, 0), "cannot tell the delimiter"));
}

TEST_F(CsvDialectTest, ForcedDelimiter) {
  // Commas inside the names of a semicolon file, told by the caller.
  const Dataset data = read("a,1;b,2;y\n1;2;3\n", ';');
  EXPECT_EQ(data.covariate_names, (Names{"a,1", "b,2"}));
  EXPECT_EQ(data.response, (std::vector<double>{3}));
  // A forced tab: commas are then part of a cell, and not a number.
  EXPECT_TRUE(contains(error_at("a\ty\n1,5\t2\n", 2, 1, '\t'), "non-numeric cell '1,5'"));
  EXPECT_THROW(read_dataset_csv(write("a,y\n1,2\n"), "", true, '|'), InvalidArgument);
}

TEST_F(CsvDialectTest, QuotedNumbersAndNames) {
  const Dataset data =
      read("\"a\",\"b, c\",\"say \"\"hi\"\"\",\"y\"\n\"1\", \"2.5\" ,3,\" -4 \"\n");
  EXPECT_EQ(data.covariate_names, (Names{"a", "b, c", "say \"hi\""}));
  EXPECT_EQ(data.response_name, "y");
  EXPECT_EQ(data.covariates(0, 0), 1.0);
  EXPECT_EQ(data.covariates(0, 1), 2.5);
  EXPECT_EQ(data.covariates(0, 2), 3.0);
  EXPECT_EQ(data.response, (std::vector<double>{-4}));
  // A quoted delimiter does not count when detecting: only ';' is outside quotes.
  const Dataset semi = read("\"x,1\";\"y\"\n1;2\n");
  EXPECT_EQ(semi.covariate_names, (Names{"x,1"}));
  // The response named as its unquoted text.
  EXPECT_EQ(read("\"a\",\"my y\"\n1,2\n", 0, "my y").response, (std::vector<double>{2}));
}

TEST_F(CsvDialectTest, BadQuotes) {
  EXPECT_TRUE(contains(error_at("a,y\n1,\"2\n", 2, 2), "unterminated quoted field"));
  EXPECT_TRUE(contains(error_at("a,\"y\n1,2\n", 1, 2), "unterminated quoted field"));
  EXPECT_TRUE(
      contains(error_at("a,y\n1,\"2\"x\n", 2, 2), "unexpected 'x' after the closing quote"));
  EXPECT_TRUE(contains(error_at("a,y\n\"1\"\"\",2\n", 2, 1), "non-numeric cell '1\"'"));
  EXPECT_TRUE(contains(error_at("a,y\n1,\"\"\n", 2, 2), "empty cell"));
  EXPECT_TRUE(contains(error_at("\"\",y\n1,2\n", 1, 1), "empty column name"));
}

TEST_F(CsvDialectTest, CrlfBomAndTrailingBlankLinesInEveryDialect) {
  for (const std::string delimiter : {",", ";", "\t"}) {
    const Dataset data = read("\xEF\xBB\xBF\"x1\"" + delimiter + "y\r\n1" + delimiter +
                              "\"-1\"\r\n2" + delimiter + "1\r\n\r\n \t\r\n\n");
    EXPECT_EQ(data.covariate_names, (Names{"x1"})) << delimiter;
    EXPECT_EQ(data.response_name, "y") << delimiter;
    EXPECT_EQ(column(data.covariates, 0), (std::vector<double>{1, 2})) << delimiter;
    EXPECT_EQ(data.response, (std::vector<double>{-1, 1})) << delimiter;
  }
}

TEST_F(CsvDialectTest, ErrorsKeepTheirLineAndField) {
  EXPECT_TRUE(contains(error_at("a;b;y\n1;2;3\n4;x;6\n", 3, 2), "non-numeric cell 'x'"));
  EXPECT_TRUE(contains(error_at("a\tb\ty\n1\t2\n", 2, 3), "row has 2 fields, expected 3"));
  EXPECT_TRUE(contains(error_at("a;b;y\n1;2;3;4\n", 2, 4), "row has 4 fields, expected 3"));
  // A quoted delimiter is inside its field, not a field boundary.
  EXPECT_TRUE(contains(error_at("a,y\n\"1,5\",2\n", 2, 1), "non-numeric cell '1,5'"));
  EXPECT_TRUE(contains(error_at("a,y\n1,2,\"3,4\"\n", 2, 3), "row has 3 fields, expected 2"));
  EXPECT_TRUE(contains(error_at("\xEF\xBB\xBF"
                                "a,y\r\n1,2\r\n3,nan\r\n",
                                3, 2),
                       "'nan'"));
}

TEST_F(CsvDialectTest, MatrixAndVectorReadersShareTheDialect) {
  const Matrix<double> m = read_matrix<double>(write("\xEF\xBB\xBF\"1\";2\r\n3;\"4\"\r\n\r\n"));
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(column(m, 1), (std::vector<double>{2, 4}));
  EXPECT_EQ(read_vector<double>(write("1\t2\t3\n")), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(read_coreset_csv(write("\"index\";\"weight\"\r\n3;0.5\r\n")).indices,
            (std::vector<index_t>{3}));
}

// Writes `values` (rows x cols) in the given dialect, every cell quoted or not by a coin toss,
// with shortest round-trip digits, so reading back must give the same doubles bit for bit.
std::string write_csv(const std::vector<double>& values, index_t rows, index_t cols, char delimiter,
                      const std::string& newline, bool bom, std::mt19937& random) {
  std::string text = bom ? "\xEF\xBB\xBF" : "";
  for (index_t j = 0; j < cols; ++j) {
    text += (j ? std::string(1, delimiter) : "") + "\"c " + std::to_string(j) + "\"";
  }
  text += newline;
  char digits[64];
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < cols; ++j) {
      char* const end = std::to_chars(digits, digits + sizeof digits, values[i * cols + j]).ptr;
      const std::string cell(digits, static_cast<std::size_t>(end - digits));
      const bool quoted = random() % 2 == 0;
      text += (j ? std::string(1, delimiter) : "") + (quoted ? "\"" + cell + "\"" : cell);
    }
    text += newline;
  }
  return text + newline;
}

TEST_F(CsvDialectTest, RoundTripsAreBitExact) {
  std::mt19937 random(7);
  std::normal_distribution<double> normal(0.0, 1e3);
  const index_t rows = 300;
  const index_t cols = 4;
  std::vector<double> values(static_cast<std::size_t>(rows * cols));
  for (double& value : values) {
    value = normal(random) * std::pow(10.0, static_cast<int>(random() % 40) - 20);
  }
  values[0] = 0.0;
  values[1] = -0.0;
  values[2] = 5e-324;
  values[3] = 1.7976931348623157e308;
  for (const char delimiter : {',', ';', '\t'}) {
    for (const char* newline : {"\n", "\r\n"}) {
      for (const bool bom : {false, true}) {
        const std::string path =
            write(write_csv(values, rows, cols, delimiter, newline, bom, random));
        const Dataset data = read_dataset_csv(path, "", false);
        ASSERT_EQ(data.rows(), rows);
        ASSERT_EQ(data.dims(), cols);
        EXPECT_EQ(data.covariate_names[3], "c 3");
        index_t mismatches = 0;
        for (index_t i = 0; i < rows; ++i) {
          for (index_t j = 0; j < cols; ++j) {
            const double expected = values[i * cols + j];
            const double got = data.covariates(i, j);
            mismatches += std::memcmp(&expected, &got, sizeof got) != 0;
          }
        }
        EXPECT_EQ(mismatches, 0) << "delimiter " << int(delimiter) << " bom " << bom;
      }
    }
  }
}

// The chunked reader yields the same lines as the in-memory one, whatever the chunk size and
// wherever the line ends, CRs and a byte-order mark fall.
TEST_F(CsvDialectTest, ChunkedLinesMatchInMemoryLines) {
  const std::vector<std::string> texts = {
      "",
      "\n\n \t\n",
      "\xEF\xBB\xBF",
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\n\r\n",
      "one line without newline",
      "x\n" + std::string(100, 'y') + "\n\nz  \n\n\n",
      std::string(70, 'q') + "\r\n" + std::string(3, 'r') + "\r\n  \r\n\r\n",
  };
  for (const std::string& text : texts) {
    const std::string path = write(text);
    detail::LineReader memory("m", text);
    std::vector<std::string> expected;
    std::string_view line;
    while (memory.next(line)) {
      expected.emplace_back(line);
    }
    for (const std::size_t chunk : {16, 17, 31, 64, 1000}) {
      detail::LineReader file(path, chunk);
      EXPECT_EQ(file.line_count(), memory.line_count()) << chunk;
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::string> got;
        while (file.next(line)) {
          got.emplace_back(line);
          EXPECT_EQ(file.line_number(), static_cast<index_t>(got.size()));
        }
        EXPECT_EQ(got, expected) << "chunk " << chunk;
        file.rewind();
      }
    }
  }
}

// A dataset larger than one 4 MiB chunk goes through the chunked path end to end.
TEST_F(CsvDialectTest, FileLargerThanAChunk) {
  const index_t rows = 400000;
  std::string text =
      "\xEF\xBB\xBF"
      "a;\"y\"\r\n";
  for (index_t i = 0; i < rows; ++i) {
    text += std::to_string(i) + ".25;\"" + std::to_string(i % 3) + "\"\r\n";
  }
  ASSERT_GT(text.size(), detail::LineReader::kDefaultChunkBytes);
  const Dataset data = read(text + "\r\n\r\n");
  ASSERT_EQ(data.rows(), rows);
  index_t mismatches = 0;
  for (index_t i = 0; i < rows; ++i) {
    mismatches += data.covariates(i, 0) != static_cast<double>(i) + 0.25;
    mismatches += data.response[static_cast<std::size_t>(i)] != static_cast<double>(i % 3);
  }
  EXPECT_EQ(mismatches, 0);
  // And an error deep in it names its line.
  text += "1;x\r\n";
  EXPECT_TRUE(contains(error_at(text, rows + 2, 2), "non-numeric cell 'x'"));
}

// A wide first line followed by many short ones: found at the first short row, without first
// allocating the wide table (here 1e5 x 1e5 doubles, 80 GB).
TEST_F(CsvDialectTest, TableTooLargeForTheFileIsNotAllocated) {
  std::string header;
  for (int j = 0; j < 100000; ++j) {
    header += "c" + std::to_string(j) + ",";
  }
  header += "y\n";
  std::string body;
  for (int i = 0; i < 100000; ++i) {
    body += "1\n";
  }
  EXPECT_TRUE(contains(error_at(header + body, 2, 2),
                       "row has 1 fields, expected 100001 (as in the header)"));
  std::string wide = "1";
  for (int j = 0; j < 100000; ++j) {
    wide += ",1";
  }
  EXPECT_TRUE(contains(matrix_error_at(wide + "\n" + body, 2, 2),
                       "row has 1 fields, expected 100001 (as in line 1)"));
}

TEST_F(CsvDialectTest, InMemoryEntryPointNamesItsSource) {
  const std::string text = "a,y\n1,2\n3,z\n";
  detail::LineReader lines("memory.csv", text);
  const InputError error =
      expect_input_error([&] { detail::read_dataset_csv(lines, "", true, 0); });
  EXPECT_EQ(std::string(error.what()), "memory.csv:3:2: non-numeric cell 'z'");
}

}  // namespace
}  // namespace coreset::io
