// LIBSVM / svmlight datasets: the format's features and every error at its line and token.
#include <gtest/gtest.h>

#include <string>
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

class LibsvmTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "data.svm") {
    return dir_.write(name, text);
  }

  std::string error_at(const std::string& text, index_t line, index_t column,
                       index_t features = 0) {
    const std::string path = write(text);
    return test::expect_input_error_at(path, line, column,
                                       [&] { read_dataset_libsvm(path, true, features); });
  }

  TempDir dir_;
};

std::vector<double> row(const Dataset& data, index_t i) {
  std::vector<double> values;
  for (index_t j = 0; j < data.dims(); ++j) {
    values.push_back(data.covariates(i, j));
  }
  return values;
}

TEST_F(LibsvmTest, SparseRowsBecomeDenseCovariates) {
  const std::string path = write("+1 1:0.5 3:-2\n-1 2:1e2\n1 1:1 2:2 3:3\n");
  const Dataset data = read_dataset_libsvm(path);
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.dims(), 3);
  EXPECT_EQ(row(data, 0), (std::vector<double>{0.5, 0, -2}));
  EXPECT_EQ(row(data, 1), (std::vector<double>{0, 100, 0}));
  EXPECT_EQ(row(data, 2), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(data.response, (std::vector<double>{1, -1, 1}));
  EXPECT_TRUE(data.covariate_names.empty());  // the models name them x1, x2, x3
  EXPECT_EQ(data.response_name, "label");
  EXPECT_EQ(data.source, path);
  EXPECT_EQ(data.first_data_line, 1);
  EXPECT_EQ(data.response_column, 1);
}

TEST_F(LibsvmTest, QidCommentsTabsCrlfAndTrailingBlankLines) {
  const Dataset data =
      read_dataset_libsvm(write("# made by hand\n\n# columns: 4\n0 qid:3 2:7\t4:1 # first\r\n"
                                "1\tqid:3\t1:-1   \r\n1 # nothing but the label\r\n\r\n# end\n\n"));
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.dims(), 4);
  EXPECT_EQ(data.first_data_line, 4);
  EXPECT_EQ(row(data, 0), (std::vector<double>{0, 7, 0, 1}));
  EXPECT_EQ(row(data, 1), (std::vector<double>{-1, 0, 0, 0}));
  EXPECT_EQ(row(data, 2), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(data.response, (std::vector<double>{0, 1, 1}));
}

TEST_F(LibsvmTest, FeaturesGivenWidenTheMatrix) {
  const Dataset data = read_dataset_libsvm(write("1 2:1\n0 1:3\n"), true, 5);
  ASSERT_EQ(data.dims(), 5);
  EXPECT_EQ(row(data, 0), (std::vector<double>{0, 1, 0, 0, 0}));
  EXPECT_TRUE(
      contains(error_at("1 2:1\n0 7:3\n", 2, 2, 5), "index 7 exceeds the number of features, 5"));
  EXPECT_THROW(read_dataset_libsvm(write("1 1:1\n"), true, -1), InvalidArgument);
}

TEST_F(LibsvmTest, WithoutResponseTheLabelIsDropped) {
  const Dataset data = read_dataset_libsvm(write("1 1:2\n0 1:3\n"), false);
  EXPECT_TRUE(data.response.empty());
  EXPECT_EQ(data.response_column, 0);
  EXPECT_EQ(row(data, 1), (std::vector<double>{3}));
}

TEST_F(LibsvmTest, IndexErrors) {
  EXPECT_TRUE(contains(error_at("1 1:1\n1 3:1 2:1\n", 2, 3),
                       "index 2 does not follow the previous index 3 (indices must be strictly "
                       "ascending)"));
  EXPECT_TRUE(contains(error_at("1 2:1 2:1\n", 1, 3), "does not follow"));
  EXPECT_TRUE(contains(error_at("1 0:1\n", 1, 2), "index 0 in '0:1' (LIBSVM indices start at 1)"));
  EXPECT_TRUE(contains(error_at("1 -3:1\n", 1, 2), "negative index"));
  EXPECT_TRUE(contains(error_at("1 a:1\n", 1, 2), "invalid index 'a'"));
  EXPECT_TRUE(contains(error_at("1 1:1 5\n", 1, 3), "expected INDEX:VALUE, found '5'"));
  EXPECT_TRUE(contains(error_at("1 1:1 qid:2\n", 1, 3), "qid:Q must come right after the label"));
  EXPECT_TRUE(contains(error_at("1 qid:x 1:1\n", 1, 2), "qid: invalid index 'x'"));
}

TEST_F(LibsvmTest, NumberErrors) {
  EXPECT_TRUE(contains(error_at("1 1:1\nyes 1:2\n", 2, 1), "label: non-numeric cell 'yes'"));
  EXPECT_TRUE(contains(error_at("1 1:1 2:abc\n", 1, 3), "non-numeric cell 'abc'"));
  EXPECT_TRUE(contains(error_at("1 1:nan\n", 1, 2), "'nan'"));
  EXPECT_TRUE(contains(error_at("1 1:\n", 1, 2), "empty cell"));
  EXPECT_TRUE(contains(error_at("1 1:1e999\n", 1, 2), "out of range"));
}

TEST_F(LibsvmTest, LayoutErrors) {
  EXPECT_TRUE(contains(error_at("1 1:1\n\n1 1:2\n", 2, 0), "blank or comment-only line"));
  error_at("1 1:1\n# note\n1 1:2\n", 2, 0);
  EXPECT_TRUE(contains(error_at("# only a comment\n\n", 0, 0), "no data rows"));
  EXPECT_TRUE(contains(error_at("", 0, 0), "no data rows"));
  EXPECT_TRUE(contains(error_at("1\n0\n", 0, 0), "no INDEX:VALUE pair"));
  // A huge index is refused before the dense matrix is allocated.
  EXPECT_TRUE(contains(error_at("1 4000000000000:1\n", 0, 0), "would not fit in memory"));
}

// Found by fuzz_libsvm (a timeout): one token asking for 4 million covariates made the reader
// build 4 million names. The matrix is what it must be; nothing per index beyond it.
TEST_F(LibsvmTest, OneLargeIndexCostsOnlyItsMatrix) {
  const Dataset data = read_dataset_libsvm(write("1 4000500:4"));
  EXPECT_EQ(data.dims(), 4000500);
  EXPECT_TRUE(data.covariate_names.empty());
  EXPECT_EQ(data.covariates(0, 4000499), 4.0);
}

TEST_F(LibsvmTest, ReadDatasetChoosesTheFormat) {
  EXPECT_EQ(dataset_format("a/b.svm"), DataFormat::libsvm);
  EXPECT_EQ(dataset_format("B.LIBSVM"), DataFormat::libsvm);
  EXPECT_EQ(dataset_format("x.svmlight"), DataFormat::libsvm);
  EXPECT_EQ(dataset_format("x.csv"), DataFormat::csv);
  EXPECT_EQ(dataset_format("x.txt"), DataFormat::csv);
  EXPECT_EQ(dataset_format("x.csv", DataFormat::libsvm), DataFormat::libsvm);

  const std::string svm = write("1 1:2\n", "phishing.svm");
  EXPECT_EQ(read_dataset(svm).dims(), 1);
  const std::string txt = write("1 1:2\n", "phishing.txt");
  DatasetReadOptions libsvm;
  libsvm.format = DataFormat::libsvm;
  libsvm.features = 3;
  EXPECT_EQ(read_dataset(txt, libsvm).dims(), 3);
  // Read as CSV by default: one column named "1 1:2" and no data rows.
  EXPECT_THROW(read_dataset(txt), InputError);

  // .npy (any case) is read as a .npy dataset: a bare magic string is a truncated header.
  EXPECT_EQ(dataset_format("x.NPY"), DataFormat::npy);
  EXPECT_EQ(dataset_format("x.npy", DataFormat::csv), DataFormat::csv);
  const std::string npy = write("\x93NUMPY", "data.npy");
  EXPECT_TRUE(
      contains(expect_input_error([&] { read_dataset(npy); }).what(), "truncated .npy header"));

  DatasetReadOptions named;
  named.response = "y";
  EXPECT_THROW(read_dataset(svm, named), InvalidArgument);
  DatasetReadOptions delimited;
  delimited.delimiter = ';';
  EXPECT_THROW(read_dataset(svm, delimited), InvalidArgument);
  DatasetReadOptions features;
  features.features = 2;
  EXPECT_THROW(read_dataset(write("a,y\n1,2\n", "d.csv"), features), InvalidArgument);
}

TEST_F(LibsvmTest, ChunkedReadMatchesInMemoryRead) {
  std::string text = "# header\n";
  for (int i = 0; i < 2000; ++i) {
    text += std::to_string(i % 2) + " " + std::to_string(1 + i % 5) + ":" + std::to_string(i) +
            " 9:" + std::to_string(-i) + "\n";
  }
  const std::string path = write(text);
  detail::LineReader file(path, 100);
  const Dataset chunked = detail::read_dataset_libsvm(file, true, 0);
  detail::LineReader memory("m", text);
  const Dataset whole = detail::read_dataset_libsvm(memory, true, 0);
  ASSERT_EQ(chunked.rows(), 2000);
  ASSERT_EQ(chunked.dims(), 9);
  EXPECT_EQ(chunked.first_data_line, 2);
  EXPECT_EQ(chunked.response, whole.response);
  for (index_t i = 0; i < 2000; ++i) {
    ASSERT_EQ(row(chunked, i), row(whole, i)) << i;
  }
  EXPECT_EQ(chunked.covariates(1999, 4), 1999.0);
  EXPECT_EQ(chunked.covariates(1999, 8), -1999.0);
}

}  // namespace
}  // namespace coreset::io
