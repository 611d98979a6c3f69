// Text-side helpers shared by the CSV readers: whole-file reads, line and field splitting, and
// strict number parsing that reports what is wrong with a cell.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset::io::detail {

/// The whole contents of a file. Throws InputError (with the system's reason) when unreadable.
std::string read_text_file(const std::string& path);

/// Yields the lines of a text without their "\n" or "\r\n". Skips a UTF-8 byte-order mark and
/// stops at the last non-blank line, so trailing empty lines are not seen.
class LineReader {
 public:
  explicit LineReader(std::string_view text);

  /// True when the text holds nothing but whitespace.
  bool empty() const noexcept { return text_.empty(); }
  /// Number of lines next() will yield in all.
  index_t line_count() const noexcept { return line_count_; }
  /// The next line, or false after the last one.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned by next().
  index_t line_number() const noexcept { return line_number_; }

 private:
  std::string_view text_;
  std::size_t position_ = 0;
  index_t line_count_ = 0;
  index_t line_number_ = 0;
};

/// Removes spaces and tabs around a field.
std::string_view trim(std::string_view field);
/// True when the line holds only spaces, tabs or a carriage return.
bool is_blank(std::string_view line);
/// Number of comma-separated fields of a line (at least 1).
index_t count_fields(std::string_view line);
/// The cell quoted for a message: 'text', cut to about 40 characters, odd bytes escaped.
std::string quote_cell(std::string_view cell);

/// Parses a whole trimmed field as a finite T (a leading '+' is fine; "nan" and "inf" are not).
/// On failure returns false and sets `error` to what is wrong with the cell.
template <class T>
bool parse_real(std::string_view field, T& value, std::string& error);
/// Parses a whole trimmed field as a non-negative integer.
bool parse_index(std::string_view field, index_t& value, std::string& error);

/// Parses a line of exactly `cols` comma-separated numbers into row[0], ..., row[cols - 1].
/// Throws InputError at the offending cell (see parse_real), or for a row with another number of
/// fields "row has F fields, expected `cols` (as in `shape_source`)" at the first extra or missing
/// field.
template <class T>
void parse_row(const std::string& path, std::string_view line, index_t line_number, index_t cols,
               const char* shape_source, T* row);

/// Parses `line`, the line `lines` returned last, and every line after it as rows of `cols`
/// numbers (see parse_row; a blank line is an error). The rows are gathered in row-major bands of
/// about 2^16 values; each full band and the last one go to
/// `store(const T* band, index_t band_rows, index_t first_row)`, row r of the band (leading
/// dimension `cols`) being row `first_row + r` of the table, counted from `line`.
template <class T, class Store>
void parse_rows(const std::string& path, LineReader& lines, std::string_view line, index_t cols,
                const char* shape_source, Store&& store) {
  constexpr index_t kBandElements = index_t{1} << 16;
  const index_t rows = lines.line_count() - lines.line_number() + 1;
  const index_t band = std::clamp<index_t>(kBandElements / cols, 1, std::max<index_t>(rows, 1));
  std::vector<T> buffer(static_cast<std::size_t>(band * cols));
  index_t band_start = 0;
  index_t in_band = 0;
  do {
    const index_t line_number = lines.line_number();
    if (is_blank(line)) {
      throw InputError(path, "blank line (blank lines are allowed only at the end of the file)",
                       line_number);
    }
    parse_row(path, line, line_number, cols, shape_source, buffer.data() + in_band * cols);
    if (++in_band == band) {
      store(static_cast<const T*>(buffer.data()), in_band, band_start);
      band_start += in_band;
      in_band = 0;
    }
  } while (lines.next(line));
  if (in_band > 0) {
    store(static_cast<const T*>(buffer.data()), in_band, band_start);
  }
}

/// S lines of n comma-separated numbers; row r of the file becomes row r of the matrix.
template <class T>
Matrix<T> read_csv_matrix(const std::string& path);
/// m numbers, one per line or all on one line.
template <class T>
std::vector<T> read_csv_vector(const std::string& path);

}  // namespace coreset::io::detail
