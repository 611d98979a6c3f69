// CSV matrices and vectors without a header: every line is a row of numbers.
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "io/csv_parse.hpp"
#include "support/transpose.hpp"

namespace coreset::io::detail {
namespace {

template <class T>
Matrix<T> read_csv_table(LineReader& lines, const char* empty_message) {
  const std::string& path = lines.name();
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path, empty_message);
  }
  if (line.compare(0, 6, "\x93NUMPY") == 0) {
    throw InputError(path, "this is a .npy file; its name must end in .npy to be read as one");
  }
  const char delimiter = detect_delimiter(path, line, 1, 0);
  const index_t rows = lines.line_count();
  const index_t cols = count_fields(line, delimiter);
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
  return read_csv_table<T>(lines, "file is empty: expected S lines of n numbers");
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

template Matrix<float> read_csv_matrix<float>(LineReader&);
template Matrix<double> read_csv_matrix<double>(LineReader&);
template std::vector<float> read_csv_vector<float>(LineReader&);
template std::vector<double> read_csv_vector<double>(LineReader&);

}  // namespace coreset::io::detail
