// Every .npy form the reader accepts, built byte by byte: format versions 1-3 x dtypes float32,
// float64, int32, int64 x C and Fortran order x byte orders '<', '>', '=' and '|'; and the
// in-memory entry point the fuzz target uses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/input_file.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::expect_input_error;
using test::TempDir;
using test::write_bytes;

constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

// The preamble by the spec: magic, version, header length (2 bytes in 1.0, 4 later,
// little-endian), the dict padded with spaces to a multiple of 64 and ended by '\n'.
std::string npy_bytes(const std::string& dict, const std::string& data, int major) {
  const std::size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) {
    header += ' ';
  }
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

// One element's bytes, most significant first when `big_endian`.
template <class V>
std::string element_bytes(V value, bool big_endian) {
  using Bits = std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  std::string out;
  for (std::size_t i = 0; i < sizeof(V); ++i) {
    const std::size_t shift = 8 * (big_endian ? sizeof(V) - 1 - i : i);
    out += static_cast<char>((bits >> shift) & 0xff);
  }
  return out;
}

// Distinct integers, so that every dtype holds them exactly and a misplaced one shows.
double value_at(index_t i, index_t j) {
  return static_cast<double>(10 * i + j) - 7.0;
}

template <class V>
void check_forms(const TempDir& dir, const char* kind) {
  const index_t rows = 3;
  const index_t cols = 4;
  for (const int major : {1, 2, 3}) {
    for (const bool fortran : {false, true}) {
      for (const char order : {'<', '>', '=', '|'}) {
        const bool big = order == '>' || ((order == '=' || order == '|') && !kLittleEndianHost);
        std::string data;
        for (index_t a = 0; a < (fortran ? cols : rows); ++a) {
          for (index_t b = 0; b < (fortran ? rows : cols); ++b) {
            const double value = fortran ? value_at(b, a) : value_at(a, b);
            data += element_bytes(static_cast<V>(value), big);
          }
        }
        const std::string descr = std::string(1, order) + kind + std::to_string(sizeof(V));
        const std::string dict = "{'descr': '" + descr +
                                 "', 'fortran_order': " + (fortran ? "True" : "False") +
                                 ", 'shape': (3, 4), }";
        const std::string path = dir.file("m.npy");
        write_bytes(path, npy_bytes(dict, data, major));
        const std::string what = descr + " v" + std::to_string(major) + (fortran ? " F" : " C");
        const Matrix<double> d = read_matrix<double>(path);
        const Matrix<float> f = read_matrix<float>(path);
        ASSERT_EQ(d.rows(), rows) << what;
        ASSERT_EQ(d.cols(), cols) << what;
        for (index_t i = 0; i < rows; ++i) {
          for (index_t j = 0; j < cols; ++j) {
            ASSERT_EQ(d(i, j), value_at(i, j)) << what << " at " << i << "," << j;
            ASSERT_EQ(f(i, j), static_cast<float>(value_at(i, j))) << what;
          }
        }
      }
    }
  }
}

class NpyFormsTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(NpyFormsTest, Float32) {
  check_forms<float>(dir_, "f");
}
TEST_F(NpyFormsTest, Float64) {
  check_forms<double>(dir_, "f");
}
TEST_F(NpyFormsTest, Int32) {
  check_forms<std::int32_t>(dir_, "i");
}
TEST_F(NpyFormsTest, Int64) {
  check_forms<std::int64_t>(dir_, "i");
}

TEST_F(NpyFormsTest, InMemorySource) {
  std::string data;
  for (const double value : {1.0, 2.0, 3.0, 4.0}) {
    data += element_bytes(value, true);
  }
  const std::string bytes =
      npy_bytes("{'descr': '>f8', 'fortran_order': True, 'shape': (2, 2), }", data, 2);
  detail::MemorySource source("memory.npy", bytes);
  const Matrix<double> m = detail::read_npy_matrix<double>(source);
  EXPECT_EQ(m(1, 0), 2.0);
  EXPECT_EQ(m(0, 1), 3.0);
  detail::MemorySource vector_source("memory.npy", bytes);
  EXPECT_THROW(detail::read_npy_vector<double>(vector_source), InputError);

  // Truncated anywhere: a clean error, never a read past the end.
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    detail::MemorySource cut("cut.npy", std::string_view(bytes.data(), size));
    const InputError error = expect_input_error([&] { detail::read_npy_matrix<double>(cut); });
    EXPECT_EQ(error.file(), "cut.npy");
  }
}

TEST_F(NpyFormsTest, HugeDeclaredShapeIsCheckedAgainstTheFileSize) {
  const std::string path = dir_.file("huge.npy");
  write_bytes(path, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, "
                              "100000), }",
                              element_bytes(1.0, false), 3));
  const InputError error = expect_input_error([&] { read_matrix<double>(path); });
  EXPECT_TRUE(contains(error.what(), "truncated data")) << error.what();
  EXPECT_TRUE(contains(error.what(), "80000000000000 bytes")) << error.what();
}

}  // namespace
}  // namespace coreset::io
