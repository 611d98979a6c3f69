// CSV matrices and vectors without a header: every line is a row of numbers.
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/line_shares.hpp"
#include "io/readers.hpp"
#include "support/transpose.hpp"

namespace coreset::io::detail {
namespace {

constexpr const char* kEmptyMatrix = "file is empty: expected S lines of n numbers";

// What line 1 of a table says: the delimiter and the number of columns.
struct TableLine {
  char delimiter = 0;
  index_t cols = 0;
};

TableLine read_first_line(const std::string& path, std::string_view line) {
  if (line.compare(0, 6, "\x93NUMPY") == 0) {
    throw InputError(path, "this is a .npy file; its name must end in .npy to be read as one");
  }
  TableLine table;
  table.delimiter = detect_delimiter(path, line, 1, 0);
  table.cols = count_fields(line, table.delimiter);
  return table;
}

template <class T>
Matrix<T> read_csv_table(LineReader& lines, const char* empty_message) {
  const std::string& path = lines.name();
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path, empty_message);
  }
  // Not a structured binding: the lambdas below capture these (C++17 forbids capturing one).
  const TableLine table = read_first_line(path, line);
  const char delimiter = table.delimiter;
  const index_t cols = table.cols;
  const index_t rows = lines.line_count();
  check_table_fits<T>(lines, line, rows, cols, delimiter, "line 1");
  Matrix<T> matrix(rows, cols);
  parse_rows<T>(lines, line, cols, delimiter, "line 1",
                [&](const T* band, index_t band_rows, index_t first_row) {
                  support::transpose_into(band, cols, band_rows, cols, matrix.data() + first_row,
                                          rows);
                });
  return matrix;
}

}  // namespace

template <class T>
Matrix<T> read_csv_matrix(LineReader& lines) {
  return read_csv_table<T>(lines, kEmptyMatrix);
}

template <class T>
MatrixShare<T> read_csv_matrix_rows_share(const std::string& path, const Communicator& comm,
                                          std::size_t chunk_bytes) {
  const FileLines file(path, comm);
  if (file.lines() == 0) {
    throw InputError(path, kEmptyMatrix);
  }
  std::string_view line;
  LineReader first = file.read_lines(1, 1);
  first.next(line);
  // Not a structured binding: the lambdas below capture these (C++17 forbids capturing one).
  const TableLine table = read_first_line(path, line);
  const char delimiter = table.delimiter;
  const index_t cols = table.cols;
  MatrixShare<T> share;
  share.rows = file.lines();
  share.cols = cols;
  const DatapointRange range = datapoint_range(share.rows, comm.rank(), comm.size());
  share.first = range.first;
  share.values = Matrix<T>(range.count, cols);
  if (range.count == 0) {
    return share;
  }
  // Row i of the table is line i + 1.
  LineReader lines =
      file.read_lines(range.first + 1, range.first + range.count,
                      chunk_bytes == 0 ? LineReader::kDefaultChunkBytes : chunk_bytes);
  lines.next(line);
  check_table_fits<T>(lines, line, range.count, cols, delimiter, "line 1");
  T* const values = share.values.data();
  parse_rows<T>(lines, line, cols, delimiter, "line 1",
                [&](const T* band, index_t band_rows, index_t first_row) {
                  support::transpose_into(band, cols, band_rows, cols, values + first_row,
                                          range.count);
                });
  return share;
}

template <class T>
MatrixShare<T> read_csv_matrix_columns_share(LineReader& lines, int rank, int ranks) {
  const std::string& path = lines.name();
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path, kEmptyMatrix);
  }
  // Not a structured binding: the lambda below captures these (C++17 forbids capturing one).
  const TableLine table = read_first_line(path, line);
  const char delimiter = table.delimiter;
  const index_t cols = table.cols;
  MatrixShare<T> share;
  share.rows = lines.line_count();
  share.cols = cols;
  check_table_fits<T>(lines, line, share.rows, cols, delimiter, "line 1");
  const DatapointRange range = datapoint_range(cols, rank, ranks);
  share.first = range.first;
  share.values = Matrix<T>(share.rows, range.count);
  T* const values = share.values.data();
  const index_t rows = share.rows;
  parse_rows<T>(
      lines, line, cols, delimiter, "line 1",
      [&](const T* band, index_t band_rows, index_t first_row) {
        support::transpose_into(band, range.count, band_rows, range.count, values + first_row,
                                rows);
      },
      FieldBlock{range.first, range.count});
  return share;
}

template <class T>
std::vector<T> read_csv_vector(LineReader& lines) {
  const Matrix<T> table = read_csv_table<T>(
      lines, "file is empty: expected m numbers, one per line or all on one line");
  if (table.rows() != 1 && table.cols() != 1) {
    throw InputError(lines.name(),
                     "expected a vector (m numbers, one per line or all on one line), found " +
                         std::to_string(table.rows()) + " lines of " +
                         std::to_string(table.cols()) + " numbers");
  }
  return std::vector<T>(table.data(), table.data() + table.rows() * table.cols());
}

template MatrixShare<float> read_csv_matrix_rows_share<float>(const std::string&,
                                                              const Communicator&, std::size_t);
template MatrixShare<double> read_csv_matrix_rows_share<double>(const std::string&,
                                                                const Communicator&, std::size_t);
template MatrixShare<float> read_csv_matrix_columns_share<float>(LineReader&, int, int);
template MatrixShare<double> read_csv_matrix_columns_share<double>(LineReader&, int, int);
template Matrix<float> read_csv_matrix<float>(LineReader&);
template Matrix<double> read_csv_matrix<double>(LineReader&);
template std::vector<float> read_csv_vector<float>(LineReader&);
template std::vector<double> read_csv_vector<double>(LineReader&);

}  // namespace coreset::io::detail
