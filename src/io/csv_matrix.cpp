#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "coreset/error.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"
#include "io/transpose.hpp"

namespace coreset::io::detail {
namespace {

constexpr std::size_t kReadBlock = std::size_t{1} << 20;
constexpr std::size_t kMaxQuotedCell = 40;

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "float32" : "float64";
}

// from_chars reports underflow and overflow alike; only overflow is an error, since a value too
// small to represent is, for every purpose here, zero (or a subnormal).
template <class T>
bool parse_underflow(const char* first, const char* last, T& value) {
  long double wide = 0;
  const auto [ptr, ec] = std::from_chars(first, last, wide);
  if (ec == std::errc() && ptr == last) {
    if (std::fabs(wide) >= 1) {
      return false;
    }
    value = static_cast<T>(wide);
    return true;
  }
  // Beyond even long double: the sign of the exponent tells which way it went.
  const std::string_view text(first, static_cast<std::size_t>(last - first));
  const std::size_t e = text.find_last_of("eE");
  if (e == std::string_view::npos || e + 1 >= text.size() || text[e + 1] != '-') {
    return false;
  }
  value = text.front() == '-' ? -T(0) : T(0);
  return true;
}

[[noreturn]] void throw_ragged(const std::string& path, std::string_view line, index_t line_number,
                               index_t expected, const char* shape_source) {
  const index_t fields = count_fields(line);
  throw InputError(path,
                   "row has " + std::to_string(fields) + " fields, expected " +
                       std::to_string(expected) + " (as in " + shape_source + ")",
                   line_number, std::min(fields, expected) + 1);
}

template <class T>
Matrix<T> read_csv_table(const std::string& path, const char* empty_message) {
  const std::string text = read_text_file(path);
  if (text.compare(0, 6, "\x93NUMPY") == 0) {
    throw InputError(path, "this is a .npy file; its name must end in .npy to be read as one");
  }
  LineReader lines(text);
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path, empty_message);
  }
  const index_t rows = lines.line_count();
  const index_t cols = count_fields(line);
  Matrix<T> matrix(rows, cols);
  parse_rows<T>(path, lines, line, cols, "line 1",
                [&](const T* band, index_t band_rows, index_t first_row) {
                  transpose_into(band, cols, band_rows, cols, matrix.data() + first_row, rows);
                });
  return matrix;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  InputFile file(path);
  std::string text;
  if (file.size() >= 0) {
    text.resize(static_cast<std::size_t>(file.size()));
    const std::size_t got = file.read_some(text.data(), text.size());
    if (got < text.size()) {
      text.resize(got);
      return text;
    }
  }
  // Pipes have no size, and a regular file may have grown since it was measured.
  std::vector<char> block(kReadBlock);
  while (const std::size_t got = file.read_some(block.data(), block.size())) {
    text.append(block.data(), got);
  }
  return text;
}

LineReader::LineReader(std::string_view text) : text_(text) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text_.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text_.remove_prefix(kByteOrderMark.size());
  }
  const std::size_t last = text_.find_last_not_of(" \t\r\n");
  text_ = last == std::string_view::npos ? std::string_view() : text_.substr(0, last + 1);
  if (!text_.empty()) {
    line_count_ = static_cast<index_t>(std::count(text_.begin(), text_.end(), '\n')) + 1;
  }
}

bool LineReader::next(std::string_view& line) {
  if (line_number_ >= line_count_) {
    return false;
  }
  const std::size_t newline = text_.find('\n', position_);
  if (newline == std::string_view::npos) {
    line = text_.substr(position_);
    position_ = text_.size();
  } else {
    line = text_.substr(position_, newline - position_);
    position_ = newline + 1;
  }
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  ++line_number_;
  return true;
}

std::string_view trim(std::string_view field) {
  const std::size_t first = field.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const std::size_t last = field.find_last_not_of(" \t");
  return field.substr(first, last - first + 1);
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

index_t count_fields(std::string_view line) {
  return static_cast<index_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

std::string quote_cell(std::string_view cell) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string quoted = "'";
  for (std::size_t i = 0; i < std::min(cell.size(), kMaxQuotedCell); ++i) {
    const auto byte = static_cast<unsigned char>(cell[i]);
    if (byte < 0x20 || byte >= 0x7f) {
      quoted += "\\x";
      quoted += kHex[byte >> 4];
      quoted += kHex[byte & 0xf];
    } else {
      quoted += static_cast<char>(byte);
    }
  }
  quoted += cell.size() > kMaxQuotedCell ? "'..." : "'";
  return quoted;
}

template <class T>
bool parse_real(std::string_view field, T& value, std::string& error) {
  if (field.empty()) {
    error = "empty cell (expected a number)";
    return false;
  }
  const char* first = field.data();
  const char* const last = first + field.size();
  // from_chars takes no '+'; a sign after the '+' must not sneak through.
  if (*first == '+') {
    ++first;
    if (first == last || *first == '-' || *first == '+') {
      error = "non-numeric cell " + quote_cell(field);
      return false;
    }
  }
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::invalid_argument || ptr != last) {
    error = "non-numeric cell " + quote_cell(field);
    return false;
  }
  if (ec == std::errc::result_out_of_range) {
    if (parse_underflow(first, last, value)) {
      return true;
    }
    error = "value " + quote_cell(field) + " is out of range for " + type_name<T>();
    return false;
  }
  if (!std::isfinite(value)) {
    error = "NaN or infinite value " + quote_cell(field) + " (every entry must be finite)";
    return false;
  }
  return true;
}

template bool parse_real<float>(std::string_view, float&, std::string&);
template bool parse_real<double>(std::string_view, double&, std::string&);

bool parse_index(std::string_view field, index_t& value, std::string& error) {
  if (field.empty()) {
    error = "empty cell (expected an index)";
    return false;
  }
  const char* first = field.data();
  const char* const last = first + field.size();
  if (*first == '+') {
    ++first;
  }
  if (first != last && *first == '-') {
    error = "negative index " + quote_cell(field) + " (indices must be >= 0)";
    return false;
  }
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::invalid_argument || ptr != last) {
    error = "invalid index " + quote_cell(field) + " (expected a non-negative integer)";
    return false;
  }
  if (ec == std::errc::result_out_of_range) {
    error = "index " + quote_cell(field) + " is too large";
    return false;
  }
  return true;
}

template <class T>
void parse_row(const std::string& path, std::string_view line, index_t line_number, index_t cols,
               const char* shape_source, T* row) {
  std::string error;
  index_t field = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::string_view cell = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (field == cols) {
      throw_ragged(path, line, line_number, cols, shape_source);
    }
    if (!parse_real(trim(cell), row[field], error)) {
      throw InputError(path, error, line_number, field + 1);
    }
    ++field;
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  if (field != cols) {
    throw_ragged(path, line, line_number, cols, shape_source);
  }
}

template void parse_row<float>(const std::string&, std::string_view, index_t, index_t, const char*,
                               float*);
template void parse_row<double>(const std::string&, std::string_view, index_t, index_t, const char*,
                                double*);

template <class T>
Matrix<T> read_csv_matrix(const std::string& path) {
  return read_csv_table<T>(path, "file is empty: expected S lines of n numbers");
}

template <class T>
std::vector<T> read_csv_vector(const std::string& path) {
  const Matrix<T> table =
      read_csv_table<T>(path, "file is empty: expected m numbers, one per line or all on one line");
  if (table.rows() != 1 && table.cols() != 1) {
    throw InputError(
        path, "expected a vector (m numbers, one per line or all on one line), found " +
                  std::to_string(table.rows()) + " lines of " + std::to_string(table.cols()) +
                  " numbers");
  }
  return std::vector<T>(table.data(), table.data() + table.rows() * table.cols());
}

template Matrix<float> read_csv_matrix<float>(const std::string&);
template Matrix<double> read_csv_matrix<double>(const std::string&);
template std::vector<float> read_csv_vector<float>(const std::string&);
template std::vector<double> read_csv_vector<double>(const std::string&);

}  // namespace coreset::io::detail
