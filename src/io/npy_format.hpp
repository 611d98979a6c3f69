// Internal entry points of the .npy reader (format: numpy.lib.format). The public readers in
// coreset/io.hpp choose between these and the CSV readers by file extension; the dataset reader
// (npy_dataset.cpp) shares the header parsing and the element conversion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "coreset/matrix.hpp"
#include "coreset/types.hpp"
#include "io/input_file.hpp"

namespace coreset::io::detail {

/// A 2-D .npy array of shape (S, n) as an S x n column-major matrix.
template <class T>
Matrix<T> read_npy_matrix(const std::string& path);

/// Rank `rank` of `ranks`'s block of a 2-D .npy array (io::read_matrix_share): only the block's
/// elements are read.
template <class T>
MatrixShare<T> read_npy_matrix_share(ByteSource& file, DatapointAxis axis, int rank, int ranks);

/// A .npy array of shape (m,), (m, 1) or (1, m).
template <class T>
std::vector<T> read_npy_vector(const std::string& path);

/// The element type of a .npy array.
struct NpyDtype {
  char kind = 'f';    // 'f' floating point, 'i' signed integer
  int size = 8;       // bytes per element
  bool swap = false;  // stored in the byte order opposite to this machine's
  std::string descr;
};

/// What a .npy header says, and where the data start.
struct NpyHeader {
  NpyDtype dtype;
  bool fortran_order = false;
  std::vector<index_t> shape;
  std::int64_t data_offset = 0;
};

/// Reads and checks the header (magic, version, dict, dtype, shape) and that exactly the
/// declared data follow it. Throws InputError as read_npy_matrix does.
NpyHeader read_npy_header(ByteSource& file);

/// "(3, 4)", "(5,)".
std::string npy_shape_text(const std::vector<index_t>& shape);

/// Converts `count` elements stored as `dtype` at `bytes` (any alignment) to double into `out`;
/// returns the index of the first value that is not finite, or -1.
index_t decode_npy_checked(const NpyDtype& dtype, const unsigned char* bytes, index_t count,
                           double* out);

/// InputError "non-finite value VALUE at WHERE (every entry must be finite)".
[[noreturn]] void throw_npy_nonfinite(const std::string& path, double value,
                                      const std::string& where);

}  // namespace coreset::io::detail
