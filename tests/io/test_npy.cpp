#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

// Builds .npy bytes by hand, independently of write_npy: the reader must accept what numpy
// writes, not merely what our own writer writes.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) {
    header += ' ';
  }
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

// The bytes of `values` in the requested byte order, whatever this machine's order.
template <class V>
std::string encode(const std::vector<V>& values, bool big_endian = false) {
  using Bits = std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>;
  std::string out;
  for (const V value : values) {
    Bits bits;
    std::memcpy(&bits, &value, sizeof(bits));
    for (std::size_t i = 0; i < sizeof(V); ++i) {
      const std::size_t shift = 8 * (big_endian ? sizeof(V) - 1 - i : i);
      out += static_cast<char>((bits >> shift) & 0xff);
    }
  }
  return out;
}

// Distinct, non-symmetric values so that a transposed or shifted read cannot pass.
double value_at(index_t i, index_t j) {
  return 100.0 * static_cast<double>(i) + static_cast<double>(j) + 1.0 / 3.0;
}

class NpyTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

template <class T>
void check_round_trip(const TempDir& dir, bool fortran_order) {
  const index_t rows = 3;
  const index_t cols = 5;
  std::vector<T> data(static_cast<std::size_t>(rows * cols));
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < cols; ++j) {
      const std::size_t at = static_cast<std::size_t>(fortran_order ? i + j * rows : i * cols + j);
      data[at] = static_cast<T>(value_at(i, j));
    }
  }
  const std::string path = dir.file("round_trip.npy");
  write_npy(path, data.data(), {rows, cols}, fortran_order);
  const Matrix<T> matrix = read_matrix<T>(path);
  ASSERT_EQ(matrix.rows(), rows);
  ASSERT_EQ(matrix.cols(), cols);
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < cols; ++j) {
      EXPECT_EQ(matrix(i, j), static_cast<T>(value_at(i, j))) << "at (" << i << ", " << j << ")";
    }
  }
}

TEST_F(NpyTest, RoundTripFloat64COrder) {
  check_round_trip<double>(dir_, false);
}
TEST_F(NpyTest, RoundTripFloat64FortranOrder) {
  check_round_trip<double>(dir_, true);
}
TEST_F(NpyTest, RoundTripFloat32COrder) {
  check_round_trip<float>(dir_, false);
}
TEST_F(NpyTest, RoundTripFloat32FortranOrder) {
  check_round_trip<float>(dir_, true);
}

TEST_F(NpyTest, HandBuiltCOrderNonSquareKeepsRowsAsRows) {
  std::vector<double> row_major;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      row_major.push_back(value_at(i, j));
    }
  }
  const std::string path = dir_.file("c_order.npy");
  write_bytes(path, npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }",
                             encode(row_major)));
  const Matrix<double> matrix = read_matrix<double>(path);
  ASSERT_EQ(matrix.rows(), 3);
  ASSERT_EQ(matrix.cols(), 5);
  for (index_t i = 0; i < 3; ++i) {
    for (index_t j = 0; j < 5; ++j) {
      EXPECT_EQ(matrix(i, j), value_at(i, j)) << "at (" << i << ", " << j << ")";
    }
  }
}

TEST_F(NpyTest, HandBuiltFortranOrderNonSquare) {
  std::vector<double> column_major;
  for (int j = 0; j < 5; ++j) {
    for (int i = 0; i < 3; ++i) {
      column_major.push_back(value_at(i, j));
    }
  }
  const std::string path = dir_.file("f_order.npy");
  write_bytes(path, npy_file("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 5), }",
                             encode(column_major)));
  const Matrix<double> matrix = read_matrix<double>(path);
  ASSERT_EQ(matrix.rows(), 3);
  ASSERT_EQ(matrix.cols(), 5);
  for (index_t i = 0; i < 3; ++i) {
    for (index_t j = 0; j < 5; ++j) {
      EXPECT_EQ(matrix(i, j), value_at(i, j));
    }
  }
}

TEST_F(NpyTest, BigEndianFloat64) {
  const std::vector<double> row_major = {1.5, -2.25, 1e-300, 3.0, 1e300, -0.125};
  const std::string path = dir_.file("big.npy");
  write_bytes(path, npy_file("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }",
                             encode(row_major, /*big_endian=*/true)));
  const Matrix<double> matrix = read_matrix<double>(path);
  ASSERT_EQ(matrix.rows(), 2);
  ASSERT_EQ(matrix.cols(), 3);
  EXPECT_EQ(matrix(0, 0), 1.5);
  EXPECT_EQ(matrix(0, 1), -2.25);
  EXPECT_EQ(matrix(0, 2), 1e-300);
  EXPECT_EQ(matrix(1, 0), 3.0);
  EXPECT_EQ(matrix(1, 1), 1e300);
  EXPECT_EQ(matrix(1, 2), -0.125);
}

TEST_F(NpyTest, BigEndianFloat32IntoDouble) {
  const std::vector<float> values = {0.1f, -7.5f, 3.25f, 1e30f};
  const std::string path = dir_.file("big32.npy");
  write_bytes(path, npy_file("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 2), }",
                             encode(values, true)));
  const Matrix<double> matrix = read_matrix<double>(path);
  EXPECT_EQ(matrix(0, 0), static_cast<double>(0.1f));
  EXPECT_EQ(matrix(1, 0), -7.5);
  EXPECT_EQ(matrix(0, 1), 3.25);
  EXPECT_EQ(matrix(1, 1), static_cast<double>(1e30f));
}

TEST_F(NpyTest, Version2HeaderWithOtherKeyOrderAndSpacing) {
  const std::string path = dir_.file("v2.npy");
  write_bytes(path, npy_file("{ 'shape' : ( 2 , 3 ) ,\t'fortran_order':False,\"descr\":'<f4'}",
                             encode(std::vector<float>{1, 2, 3, 4, 5, 6}), 2));
  const Matrix<float> matrix = read_matrix<float>(path);
  ASSERT_EQ(matrix.rows(), 2);
  ASSERT_EQ(matrix.cols(), 3);
  EXPECT_EQ(matrix(0, 2), 3.0f);
  EXPECT_EQ(matrix(1, 0), 4.0f);
}

TEST_F(NpyTest, Version3Header) {
  const std::string path = dir_.file("v3.npy");
  write_bytes(path, npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
                             encode(std::vector<double>{4, 3, 2, 1}), 3));
  EXPECT_EQ(read_vector<double>(path), (std::vector<double>{4, 3, 2, 1}));
}

TEST_F(NpyTest, Int32AndBigEndianInt64Convert) {
  const std::string path32 = dir_.file("i4.npy");
  write_bytes(path32, npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                               encode(std::vector<std::int32_t>{1, -2, 300000, -2147483647})));
  const Matrix<double> m32 = read_matrix<double>(path32);
  EXPECT_EQ(m32(0, 0), 1.0);
  EXPECT_EQ(m32(0, 1), -2.0);
  EXPECT_EQ(m32(1, 0), 300000.0);
  EXPECT_EQ(m32(1, 1), -2147483647.0);

  const std::string path64 = dir_.file("i8.npy");
  write_bytes(path64, npy_file("{'descr': '>i8', 'fortran_order': False, 'shape': (3,), }",
                               encode(std::vector<std::int64_t>{-5, 1LL << 40, 7}, true)));
  EXPECT_EQ(read_vector<float>(path64), (std::vector<float>{-5.0f, 0x1p40f, 7.0f}));
}

TEST_F(NpyTest, NativeByteOrderAndPython2LongShape) {
  const std::string path = dir_.file("native.npy");
  const std::vector<double> values = {1, 2};
  write_bytes(path, npy_file("{'descr': '=f8', 'fortran_order': False, 'shape': (1L, 2L)}",
                             std::string(reinterpret_cast<const char*>(values.data()), 16)));
  const Matrix<double> matrix = read_matrix<double>(path);
  EXPECT_EQ(matrix(0, 1), 2.0);
}

TEST_F(NpyTest, ExtensionIsCaseInsensitive) {
  const std::string path = dir_.file("upper.NPY");
  const std::vector<double> values = {1, 2, 3, 4};
  write_npy(path, values.data(), {2, 2}, false);
  const Matrix<double> matrix = read_matrix<double>(path);
  EXPECT_EQ(matrix(0, 1), 2.0);
}

// Wide enough that a band of rows is read and transposed in several column blocks, with a
// partial last band: the path taken for matrices of several GB.
TEST_F(NpyTest, LargeCOrderMatrixTransposesAcrossBlocks) {
  const index_t rows = 130;
  const index_t cols = 20000;
  std::vector<double> row_major(static_cast<std::size_t>(rows * cols));
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < cols; ++j) {
      row_major[static_cast<std::size_t>(i * cols + j)] = static_cast<double>(i * cols + j);
    }
  }
  const std::string path = dir_.file("large.npy");
  write_npy(path, row_major.data(), {rows, cols}, false);
  const Matrix<double> matrix = read_matrix<double>(path);
  ASSERT_EQ(matrix.rows(), rows);
  ASSERT_EQ(matrix.cols(), cols);
  index_t mismatches = 0;
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      mismatches += matrix(i, j) != static_cast<double>(i * cols + j);
    }
  }
  EXPECT_EQ(mismatches, 0);

  const Matrix<float> single = read_matrix<float>(path);
  EXPECT_EQ(single(129, 19999), static_cast<float>(129 * cols + 19999));
  EXPECT_EQ(single(65, 17000), static_cast<float>(65 * cols + 17000));
}

// Blocks of a band are read column block by column block; the error must still name the first
// bad value in file order.
TEST_F(NpyTest, FirstNonFiniteInFileOrderAcrossBlocks) {
  const index_t rows = 130;
  const index_t cols = 20000;
  std::vector<double> row_major(static_cast<std::size_t>(rows * cols), 1.0);
  row_major[static_cast<std::size_t>(71 * cols + 5)] = std::numeric_limits<double>::infinity();
  row_major[static_cast<std::size_t>(70 * cols + 19000)] = std::nan("");
  const std::string path = dir_.file("large_nan.npy");
  write_npy(path, row_major.data(), {rows, cols}, false);
  const InputError error = expect_input_error([&] { read_matrix<double>(path); });
  EXPECT_TRUE(contains(error.what(), "row 70, column 19000 (0-based)"));
}

TEST_F(NpyTest, VectorShapes) {
  const std::vector<double> values = {0.5, -1.5, 2.5};
  for (const std::vector<index_t>& shape :
       {std::vector<index_t>{3}, std::vector<index_t>{3, 1}, std::vector<index_t>{1, 3}}) {
    for (const bool fortran : {false, true}) {
      const std::string path = dir_.file("vector.npy");
      write_npy(path, values.data(), shape, fortran);
      EXPECT_EQ(read_vector<double>(path), values);
      EXPECT_EQ(read_vector<float>(path), (std::vector<float>{0.5f, -1.5f, 2.5f}));
    }
  }
  const std::string path = dir_.file("matrix.npy");
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  write_npy(path, six.data(), {2, 3}, false);
  const InputError error = expect_input_error([&] { read_vector<double>(path); });
  EXPECT_TRUE(contains(error.what(), "(2, 3)"));
}

TEST_F(NpyTest, WriterHeaderFollowsTheSpec) {
  const std::string path = dir_.file("written.npy");
  const std::vector<std::int64_t> values = {1, -2, 3, 4, 5};
  write_npy(path, values.data(), {5}, false);
  const std::string bytes = read_bytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_length =
      static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(bytes[9]) << 8);
  const std::size_t data_offset = 10 + header_length;
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(bytes.size(), data_offset + 5 * 8);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_TRUE(contains(header, "'descr': '<i8'"));
  EXPECT_TRUE(contains(header, "'fortran_order': False"));
  EXPECT_TRUE(contains(header, "'shape': (5,)"));
  EXPECT_EQ(bytes.substr(data_offset), encode(values));

  const std::vector<float> matrix(12, 1.0f);
  write_npy(path, matrix.data(), {3, 4}, true);
  const std::string header2 = read_bytes(path).substr(10, 118);
  EXPECT_TRUE(contains(header2, "'descr': '<f4'"));
  EXPECT_TRUE(contains(header2, "'fortran_order': True"));
  EXPECT_TRUE(contains(header2, "'shape': (3, 4)"));
}

TEST_F(NpyTest, WriterRejectsBadShapesAndMissingFolder) {
  const std::vector<double> values(8, 1.0);
  EXPECT_THROW(write_npy(dir_.file("a.npy"), values.data(), {2, 2, 2}, false), InvalidArgument);
  EXPECT_THROW(write_npy(dir_.file("a.npy"), values.data(), {-1, 2}, false), InvalidArgument);
  EXPECT_THROW(write_npy(dir_.file("missing/a.npy"), values.data(), {8}, false), OutputError);
  EXPECT_TRUE(dir_.entries().empty());
}

// ---------------------------------------------------------------------------------------------
// Malformed files: each is rejected with InputError naming the file and the problem.

class NpyErrorTest : public NpyTest {
 protected:
  InputError matrix_error(const std::string& bytes) {
    write_bytes(path_, bytes);
    InputError error = expect_input_error([&] { read_matrix<double>(path_); });
    EXPECT_EQ(error.file(), path_);
    EXPECT_EQ(error.line(), 0);
    return error;
  }

  std::string valid_data(int count) { return encode(std::vector<double>(count, 1.0)); }

  std::string path_ = dir_.file("bad.npy");
};

TEST_F(NpyErrorTest, BadMagic) {
  std::string bytes =
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", valid_data(1));
  bytes[5] = 'Z';
  EXPECT_TRUE(contains(matrix_error(bytes).what(), "magic"));
  EXPECT_TRUE(contains(matrix_error("").what(), "magic"));
  EXPECT_TRUE(contains(matrix_error("1,2\n3,4\n").what(), "magic"));
}

TEST_F(NpyErrorTest, UnknownVersion) {
  std::string bytes =
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", valid_data(1));
  bytes[6] = 4;
  EXPECT_TRUE(contains(matrix_error(bytes).what(), "version 4.0"));
}

TEST_F(NpyErrorTest, HeaderLengthPastEndOfFile) {
  std::string bytes("\x93NUMPY\x01\x00\xff\x7f{'descr': '<f8'", 25);
  EXPECT_TRUE(contains(matrix_error(bytes).what(), "past the end of the file"));
  EXPECT_TRUE(contains(matrix_error(std::string("\x93NUMPY\x01\x00\x05", 9)).what(),
                       "truncated .npy header"));
}

TEST_F(NpyErrorTest, TruncatedDataSaysExpectedAndFoundBytes) {
  const std::vector<double> values(15, 2.0);
  write_npy(path_, values.data(), {3, 5}, false);
  std::string bytes = read_bytes(path_);
  bytes.resize(bytes.size() - 20);
  const std::string message = matrix_error(bytes).what();
  EXPECT_TRUE(contains(message, "truncated"));
  EXPECT_TRUE(contains(message, "120 bytes"));
  EXPECT_TRUE(contains(message, "100 bytes"));
}

TEST_F(NpyErrorTest, ShapeLargerThanData) {
  const std::string message =
      matrix_error(
          npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 5), }", valid_data(15)))
          .what();
  EXPECT_TRUE(contains(message, "160 bytes"));
  EXPECT_TRUE(contains(message, "120 bytes"));
}

TEST_F(NpyErrorTest, TrailingBytes) {
  const std::string message =
      matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                            valid_data(4) + "junk"))
          .what();
  EXPECT_TRUE(contains(message, "trailing"));
  EXPECT_TRUE(contains(message, "32 bytes"));
  EXPECT_TRUE(contains(message, "36 bytes"));
}

// Sizes that would exhaust memory or overflow must be rejected from the header alone; an
// attempted allocation would surface as std::bad_alloc or a crash instead of InputError.
TEST_F(NpyErrorTest, HugeShapeRejectedWithoutAllocating) {
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, "
                                             "'shape': (4611686018427387904, 1), }",
                                             valid_data(1)))
                           .what(),
                       "overflows 64 bits"));
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': '<f4', 'fortran_order': False, "
                                             "'shape': (2147483648, 2147483648), }",
                                             valid_data(1)))
                           .what(),
                       "overflows 64 bits"));
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': '<f8', 'fortran_order': True, "
                                             "'shape': (1099511627776, 1), }",
                                             valid_data(1)))
                           .what(),
                       "truncated"));
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': '<f8', 'fortran_order': True, "
                                             "'shape': (99999999999999999999, 1), }",
                                             valid_data(1)))
                           .what(),
                       "shape"));
  write_bytes(path_, npy_file("{'descr': '<f8', 'fortran_order': False, "
                              "'shape': (4611686018427387904,), }",
                              valid_data(1)));
  EXPECT_THROW(read_vector<double>(path_), InputError);
}

TEST_F(NpyErrorTest, WrongDimensionCount) {
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, "
                                             "'shape': (2, 2, 2), }",
                                             valid_data(8)))
                           .what(),
                       "2-D"));
  EXPECT_TRUE(
      contains(matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
                                     valid_data(4)))
                   .what(),
               "2-D"));
  EXPECT_TRUE(contains(
      matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", ""))
          .what(),
      "empty"));
}

TEST_F(NpyErrorTest, UnsupportedDtypes) {
  EXPECT_TRUE(
      contains(matrix_error(npy_file("{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }",
                                     valid_data(2)))
                   .what(),
               "unsupported dtype '<c16' (expected float32 or float64"));
  EXPECT_TRUE(
      contains(matrix_error(npy_file("{'descr': '|O', 'fortran_order': False, 'shape': (1, 1), }",
                                     valid_data(1)))
                   .what(),
               "unsupported dtype '|O'"));
  EXPECT_TRUE(
      contains(matrix_error(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }",
                                     valid_data(1)))
                   .what(),
               "unsupported dtype '<f2'"));
  EXPECT_TRUE(
      contains(matrix_error(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 1), }",
                                     std::string(2, '\x01')))
                   .what(),
               "unsupported dtype '|u1'"));
  EXPECT_TRUE(contains(matrix_error(npy_file("{'descr': [('a', '<f8'), ('b', '<f8')], "
                                             "'fortran_order': False, 'shape': (1, 1), }",
                                             valid_data(2)))
                           .what(),
                       "unsupported dtype [('a', '<f8'), ('b', '<f8')]"));
}

TEST_F(NpyErrorTest, MalformedHeaderDict) {
  const auto message = [&](const std::string& dict) {
    return std::string(matrix_error(npy_file(dict, valid_data(4))).what());
  };
  EXPECT_TRUE(
      contains(message("{'descr': '<f8', 'fortran_order': False, }"), "missing key 'shape'"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2) garbage}"),
                       "malformed .npy header"));
  EXPECT_TRUE(contains(message("garbage"), "malformed .npy header"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), } x"),
                       "after the closing"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2"),
                       "malformed .npy header"));
  EXPECT_TRUE(contains(message("{'descr': '<f8, 'fortran_order': False, 'shape': (2, 2)}"),
                       "malformed .npy header"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, -2), }"),
                       "non-negative integers"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0, 2), }"),
                       "non-negative integers"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': 4, }"),
                       "must be a tuple"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 2), }"),
                       "True or False"));
  EXPECT_TRUE(contains(message("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}"),
                       "unexpected key 'x'"));
  EXPECT_TRUE(
      contains(message("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)}"),
               "duplicate key"));
}

TEST_F(NpyErrorTest, NonFiniteEntriesReportTheirPosition) {
  std::vector<double> row_major(15, 1.0);
  row_major[1 * 5 + 3] = std::nan("");
  row_major[2 * 5 + 0] = std::numeric_limits<double>::infinity();
  std::string message =
      matrix_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }",
                            encode(row_major)))
          .what();
  EXPECT_TRUE(contains(message, "nan"));
  EXPECT_TRUE(contains(message, "row 1, column 3 (0-based)"));

  std::vector<float> column_major(15, 1.0f);
  column_major[4 * 3 + 2] = -std::numeric_limits<float>::infinity();
  message = matrix_error(npy_file("{'descr': '>f4', 'fortran_order': True, 'shape': (3, 5), }",
                                  encode(column_major, true)))
                .what();
  EXPECT_TRUE(contains(message, "-inf"));
  EXPECT_TRUE(contains(message, "row 2, column 4 (0-based)"));
}

TEST_F(NpyErrorTest, DoubleOutOfFloatRange) {
  std::vector<double> values = {1.0, 1e300, 1.0, 1.0};
  write_bytes(path_, npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                              encode(values)));
  const InputError error = expect_input_error([&] { read_matrix<float>(path_); });
  EXPECT_TRUE(contains(error.what(), "out of range for float32"));
  EXPECT_TRUE(contains(error.what(), "row 0, column 1 (0-based)"));
  EXPECT_EQ(read_matrix<double>(path_)(0, 1), 1e300);
}

TEST_F(NpyErrorTest, NonFiniteVectorEntry) {
  std::vector<double> values = {1.0, 2.0, std::nan(""), 4.0};
  write_bytes(
      path_, npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", encode(values)));
  const InputError error = expect_input_error([&] { read_vector<double>(path_); });
  EXPECT_TRUE(contains(error.what(), "index 2 (0-based)"));
}

TEST_F(NpyErrorTest, MissingFile) {
  const std::string path = dir_.file("absent.npy");
  const InputError error = expect_input_error([&] { read_matrix<double>(path); });
  EXPECT_EQ(error.file(), path);
  EXPECT_TRUE(contains(error.what(), "No such file or directory"));
}

}  // namespace
}  // namespace coreset::io
