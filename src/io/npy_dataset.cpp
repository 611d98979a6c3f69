// Reading a dataset from a 2-D .npy array (N, D + 1): the file is mapped (mapped_file.hpp) and
// its elements converted straight into the covariate matrix and the response, on every thread;
// no text is parsed. The header is read by the .npy matrix reader's parser (npy.cpp).
//
// Whatever the layout, the error for a non-finite value names the first one in row-major order
// (row, then column): the one the CSV reader would report for the same numbers.
#include <omp.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/input_file.hpp"
#include "io/mapped_file.hpp"
#include "io/npy_format.hpp"
#include "io/readers.hpp"
#include "support/transpose.hpp"

namespace coreset::io {
namespace detail {
namespace {

// A C-order array is converted a band of rows at a time, then transposed into place.
constexpr index_t kBandElements = index_t{1} << 16;

// The first non-finite value found so far, in row-major order.
struct BadValue {
  index_t row = -1;
  index_t col = -1;
  double value = 0;

  bool before(const BadValue& other) const {
    return other.row < 0 || row < other.row || (row == other.row && col < other.col);
  }
  void keep_first(const BadValue& other) {
    if (other.row >= 0 && other.before(*this)) {
      *this = other;
    }
  }
};

// Where column c of the array goes: covariate column, or -1 for the response.
index_t destination(index_t c, index_t skip) {
  return c < skip ? c : c == skip ? -1 : c - 1;
}

// Fortran order: every column is contiguous; each is converted on its own, in parallel. Rows
// first_row ... first_row + rows - 1 of the array's `all_rows`.
BadValue read_columns(const NpyHeader& header, const unsigned char* data, index_t all_rows,
                      index_t first_row, index_t rows, index_t cols, index_t skip, int threads,
                      Dataset& out) {
  const auto element = static_cast<index_t>(header.dtype.size);
  std::vector<BadValue> bad(static_cast<std::size_t>(cols));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (index_t c = 0; c < cols; ++c) {
    const index_t target = destination(c, skip);
    double* const column = target < 0 ? out.response.data() : out.covariates.data() + target * rows;
    const index_t row =
        decode_npy_checked(header.dtype, data + (c * all_rows + first_row) * element, rows, column);
    if (row >= 0) {
      bad[static_cast<std::size_t>(c)] = {row, c, column[row]};
    }
  }
  BadValue first;
  for (const BadValue& found : bad) {
    first.keep_first(found);
  }
  return first;
}

// C order: bands of whole rows, converted into a staging band and scattered as the CSV reader
// does; bands in parallel. `data` points at the first row read.
BadValue read_rows(const NpyHeader& header, const unsigned char* data, index_t rows, index_t cols,
                   index_t skip, int threads, Dataset& out) {
  const auto element = static_cast<index_t>(header.dtype.size);
  const index_t band = std::clamp<index_t>(kBandElements / cols, 1, rows);
  const index_t bands = (rows + band - 1) / band;
  std::vector<BadValue> bad(static_cast<std::size_t>(bands));
  double* const covariates = out.covariates.data();
  double* const labels = out.response.data();
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> staging(static_cast<std::size_t>(band * cols));
#pragma omp for schedule(dynamic, 4)
    for (index_t b = 0; b < bands; ++b) {
      const index_t first_row = b * band;
      const index_t band_rows = std::min(band, rows - first_row);
      const index_t found = decode_npy_checked(header.dtype, data + first_row * cols * element,
                                               band_rows * cols, staging.data());
      if (found >= 0) {
        bad[static_cast<std::size_t>(b)] = {first_row + found / cols, found % cols,
                                            staging[static_cast<std::size_t>(found)]};
        continue;
      }
      const double* const values = staging.data();
      support::store_dataset_band(values, cols, band_rows, skip, first_row, rows, covariates,
                                  labels);
    }
  }
  BadValue first;
  for (const BadValue& found : bad) {
    first.keep_first(found);
  }
  return first;
}

}  // namespace

Dataset read_dataset_npy(ByteSource& file, std::string_view bytes, index_t response_column,
                         bool has_response, int threads, int rank, int ranks) {
  const std::string& path = file.path();
  const NpyHeader header = read_npy_header(file);
  const std::vector<index_t>& shape = header.shape;
  const char* const expected = has_response
                                   ? "a 2-D array of shape (N, D + 1): N datapoints, each D "
                                     "covariates and the response"
                                   : "a 2-D array of shape (N, D): N datapoints of D covariates";
  if (shape.size() != 2) {
    throw InputError(path,
                     std::string("expected ") + expected + ", got shape " + npy_shape_text(shape));
  }
  const index_t all_rows = shape[0];
  const index_t cols = shape[1];
  if (all_rows == 0) {
    throw InputError(path, "no data rows: the array has shape " + npy_shape_text(shape));
  }
  if (cols < (has_response ? 2 : 1)) {
    throw InputError(path, "the array has " + std::to_string(cols) + " columns (shape " +
                               npy_shape_text(shape) + "), but " +
                               (has_response ? "a response and at least one covariate are "
                                               "needed (at least 2 columns)"
                                             : "at least one covariate is needed"));
  }
  if (response_column < -1) {
    throw InvalidArgument("the response column must be a 0-based index, or -1 for the last, got " +
                          std::to_string(response_column));
  }
  if (!has_response && response_column >= 0) {
    throw InvalidArgument("a response column was given, but the model takes no response: " + path);
  }
  if (response_column >= cols) {
    throw InputError(path, "no column " + std::to_string(response_column) +
                               " for the response: the array has " + std::to_string(cols) +
                               " columns (0-based indices 0 to " + std::to_string(cols - 1) + ")");
  }
  // 0-based column of the response; without one, past the last column.
  const index_t skip = !has_response ? cols : response_column < 0 ? cols - 1 : response_column;
  const index_t dims = has_response ? cols - 1 : cols;
  // A rank's share (datapoint_range): only its rows of the mapped file are read.
  const DatapointRange share =
      ranks > 1 ? datapoint_range(all_rows, rank, ranks) : DatapointRange{0, all_rows};
  const index_t rows = share.count;

  Dataset data;
  data.source = path;
  if (ranks > 1) {
    data.first_row = share.first;
    data.total_rows = all_rows;
  }
  data.covariates = Matrix<double>(rows, dims);
  for (index_t c = 1; c <= dims; ++c) {
    data.covariate_names.push_back("x" + std::to_string(c));
  }
  if (has_response) {
    data.response.resize(static_cast<std::size_t>(rows));
    data.response_name = "y";
    data.response_column = skip + 1;
  }
  threads = resolve_threads(threads);
  const auto* const values =
      reinterpret_cast<const unsigned char*>(bytes.data()) + header.data_offset;
  // A single row or column is laid out the same way in either order.
  const auto element = static_cast<index_t>(header.dtype.size);
  const BadValue bad =
      header.fortran_order || all_rows == 1
          ? read_columns(header, values, all_rows, share.first, rows, cols, skip, threads, data)
          : read_rows(header, values + share.first * cols * element, rows, cols, skip, threads,
                      data);
  if (bad.row >= 0) {
    throw_npy_nonfinite(path, bad.value,
                        "row " + std::to_string(share.first + bad.row) + ", column " +
                            std::to_string(bad.col) + " (0-based)");
  }
  return data;
}

}  // namespace detail

Dataset read_dataset_npy(const std::string& path, index_t response_column, bool has_response,
                         int threads) {
  detail::MappedFile file(path);
  return detail::read_dataset_npy(file, file.bytes(), response_column, has_response, threads);
}

namespace detail {

Dataset read_dataset_npy_share(const std::string& path, index_t response_column, bool has_response,
                               int threads, int rank, int ranks) {
  MappedFile file(path);
  return read_dataset_npy(file, file.bytes(), response_column, has_response, threads, rank, ranks);
}

}  // namespace detail

}  // namespace coreset::io
