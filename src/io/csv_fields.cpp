// CSV fields: delimiter detection, RFC 4180 quotes, and strict number parsing with std::from_chars
// (no locale, no iostreams; libstdc++ 12 implements it with the fast_float algorithm).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "coreset/error.hpp"
#include "io/csv_parse.hpp"

namespace coreset::io::detail {
namespace {

constexpr std::size_t kMaxQuotedCell = 40;

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "float32" : "float64";
}

// Blanks around a field: spaces, and tabs unless the tab is the delimiter.
inline bool is_blank_in(char c, char delimiter) {
  return c == ' ' || (c == '\t' && delimiter != '\t');
}

inline const char* skip_blanks(const char* p, const char* end, char delimiter) {
  while (p < end && is_blank_in(*p, delimiter)) {
    ++p;
  }
  return p;
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
                               index_t expected, char delimiter, const char* shape_source) {
  const index_t fields = count_fields(line, delimiter);
  throw InputError(path,
                   "row has " + std::to_string(fields) + " fields, expected " +
                       std::to_string(expected) + " (as in " + shape_source + ")",
                   line_number, std::min(fields, expected) + 1);
}

// A quoted field starting at `p` (on the opening quote): its contents with "" undone go to
// `out`; returns the position after the closing quote. Throws when there is none.
const char* read_quoted(const std::string& path, const char* p, const char* end,
                        index_t line_number, index_t field, std::string& out) {
  out.clear();
  ++p;
  while (true) {
    const char* quote = std::find(p, end, '"');
    if (quote == end) {
      throw InputError(path,
                       "unterminated quoted field (expected a closing '\"'; a quoted field "
                       "cannot span lines)",
                       line_number, field);
    }
    out.append(p, quote);
    if (quote + 1 < end && quote[1] == '"') {
      out += '"';
      p = quote + 2;
    } else {
      return quote + 1;
    }
  }
}

// After a quoted field: blanks, then the delimiter or the end of the line.
const char* after_quoted(const std::string& path, const char* p, const char* end,
                         index_t line_number, index_t field, char delimiter) {
  p = skip_blanks(p, end, delimiter);
  if (p < end && *p != delimiter) {
    throw InputError(path,
                     "unexpected " + quote_cell(std::string_view(p, 1)) +
                         " after the closing quote (expected " + delimiter_name(delimiter) +
                         " or the end of the line)",
                     line_number, field);
  }
  return p;
}

}  // namespace

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

std::string delimiter_name(char delimiter) {
  return delimiter == '\t' ? std::string("tab") : "'" + std::string(1, delimiter) + "'";
}

char detect_delimiter(const std::string& path, std::string_view line, index_t line_number,
                      char forced) {
  if (forced != 0) {
    return forced;
  }
  index_t commas = 0;
  index_t semicolons = 0;
  index_t tabs = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      quoted = !quoted;  // "" inside quotes toggles twice: no change
    } else if (quoted) {
      continue;
    } else if (c == ',') {
      ++commas;
    } else if (c == ';') {
      ++semicolons;
    } else if (c == '\t') {
      // Padding when the nearest non-blank character on either side is a comma, a semicolon or
      // the end of the line.
      std::size_t before = i;
      while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) {
        --before;
      }
      std::size_t after = i + 1;
      while (after < line.size() && (line[after] == ' ' || line[after] == '\t')) {
        ++after;
      }
      const bool padding = before == 0 || after == line.size() || line[before - 1] == ',' ||
                           line[before - 1] == ';' || line[after] == ',' || line[after] == ';';
      tabs += padding ? 0 : 1;
    }
  }
  std::vector<std::string> found;
  if (commas > 0) {
    found.push_back("',' (" + std::to_string(commas) + " times)");
  }
  if (semicolons > 0) {
    found.push_back("';' (" + std::to_string(semicolons) + " times)");
  }
  if (tabs > 0) {
    found.push_back("tab (" + std::to_string(tabs) + " times)");
  }
  if (found.size() > 1) {
    std::string list;
    for (std::size_t i = 0; i < found.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == found.size() ? " and " : ", ") + found[i];
    }
    throw InputError(path,
                     "cannot tell the delimiter: the line holds " + list +
                         " outside quotes; choose one (coreset build: --delimiter)",
                     line_number);
  }
  return semicolons > 0 ? ';' : tabs > 0 ? '\t' : ',';
}

std::vector<std::string> split_fields(const std::string& path, std::string_view line,
                                      index_t line_number, char delimiter) {
  std::vector<std::string> fields;
  const char* p = line.data();
  const char* const end = p + line.size();
  std::string quoted;
  while (true) {
    const index_t field = static_cast<index_t>(fields.size()) + 1;
    p = skip_blanks(p, end, delimiter);
    if (p < end && *p == '"') {
      p = read_quoted(path, p, end, line_number, field, quoted);
      p = after_quoted(path, p, end, line_number, field, delimiter);
      fields.emplace_back(trim(quoted));
    } else {
      const char* stop = std::find(p, end, delimiter);
      fields.emplace_back(trim(std::string_view(p, static_cast<std::size_t>(stop - p))));
      p = stop;
    }
    if (p == end) {
      return fields;
    }
    ++p;  // the delimiter
  }
}

index_t count_fields(std::string_view line, char delimiter) {
  index_t fields = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == delimiter && !quoted) {
      ++fields;
    }
  }
  return fields;
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
               char delimiter, const char* shape_source, T* row, FieldBlock kept) {
  const char* p = line.data();
  const char* const end = p + line.size();
  const index_t kept_end = kept.count < 0 ? cols : kept.first + kept.count;
  std::string error;
  std::string quoted;
  for (index_t field = 0;; ++field) {
    if (field == cols) {
      throw_ragged(path, line, line_number, cols, delimiter, shape_source);
    }
    p = skip_blanks(p, end, delimiter);
    T value{};
    const char* after = nullptr;
    if (field < kept.first || field >= kept_end) {
      // Not kept: only where the field ends (its quotes still well formed).
      if (p < end && *p == '"') {
        after = read_quoted(path, p, end, line_number, field + 1, quoted);
        after = after_quoted(path, after, end, line_number, field + 1, delimiter);
      } else {
        after = std::find(p, end, delimiter);
      }
    } else if (p < end && *p != '"' && *p != '+') {
      // The common case: one pass of from_chars over an unquoted number.
      const auto [ptr, ec] = std::from_chars(p, end, value);
      if (ec == std::errc() && std::isfinite(value)) {
        after = skip_blanks(ptr, end, delimiter);
        if (after < end && *after != delimiter) {
          after = nullptr;  // more text in the cell: reported below
        }
      }
    }
    const bool keep = field >= kept.first && field < kept_end;
    if (keep && after == nullptr) {
      // Quoted, signed with '+', malformed or out of range: the careful path.
      std::string_view cell;
      if (p < end && *p == '"') {
        after = read_quoted(path, p, end, line_number, field + 1, quoted);
        after = after_quoted(path, after, end, line_number, field + 1, delimiter);
        cell = trim(quoted);
      } else {
        after = std::find(p, end, delimiter);
        cell = trim(std::string_view(p, static_cast<std::size_t>(after - p)));
      }
      if (!parse_real(cell, value, error)) {
        throw InputError(path, error, line_number, field + 1);
      }
    }
    if (keep) {
      row[field - kept.first] = value;
    }
    if (after == end) {
      if (field + 1 != cols) {
        throw_ragged(path, line, line_number, cols, delimiter, shape_source);
      }
      return;
    }
    p = after + 1;  // past the delimiter
  }
}

template void parse_row<float>(const std::string&, std::string_view, index_t, index_t, char,
                               const char*, float*, FieldBlock);
template void parse_row<double>(const std::string&, std::string_view, index_t, index_t, char,
                                const char*, double*, FieldBlock);

}  // namespace coreset::io::detail
