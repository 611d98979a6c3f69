#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"

namespace coreset::io {
namespace {

constexpr std::string_view kHeader = "index,weight";

// The writer refuses what the reader would refuse, so every file it writes reads back.
void check_writable(const Coreset& coreset) {
  if (coreset.indices.size() != coreset.weights.size()) {
    throw InvalidArgument("coreset has " + std::to_string(coreset.indices.size()) +
                          " indices but " + std::to_string(coreset.weights.size()) + " weights");
  }
  for (std::size_t i = 0; i < coreset.indices.size(); ++i) {
    if (coreset.indices[i] < 0 || (i > 0 && coreset.indices[i] <= coreset.indices[i - 1])) {
      throw InvalidArgument("coreset indices must be non-negative and strictly ascending (entry " +
                            std::to_string(i) + " is " + std::to_string(coreset.indices[i]) + ")");
    }
    if (!std::isfinite(coreset.weights[i]) || coreset.weights[i] < 0) {
      throw InvalidArgument("coreset weights must be finite and non-negative (entry " +
                            std::to_string(i) + " is " + std::to_string(coreset.weights[i]) + ")");
    }
  }
}

// The first two trimmed fields of a line; returns how many fields the line has.
index_t split_pair(std::string_view line, std::string_view& first, std::string_view& second) {
  const std::size_t comma = line.find(',');
  first = detail::trim(line.substr(0, comma));
  if (comma == std::string_view::npos) {
    second = {};
    return 1;
  }
  const std::size_t next = line.find(',', comma + 1);
  second = detail::trim(
      line.substr(comma + 1, next == std::string_view::npos ? next : next - comma - 1));
  return next == std::string_view::npos ? 2 : detail::count_fields(line);
}

void check_header(const std::string& path, std::string_view line) {
  std::string_view first;
  std::string_view second;
  const index_t fields = split_pair(line, first, second);
  index_t column = 0;
  if (first != "index") {
    column = 1;
  } else if (fields < 2 || second != "weight") {
    column = 2;
  } else if (fields > 2) {
    column = 3;
  }
  if (column != 0) {
    throw InputError(
        path,
        "expected the header '" + std::string(kHeader) + "', found " + detail::quote_cell(line), 1,
        column);
  }
}

}  // namespace

void write_coreset_csv(const std::string& path, const Coreset& coreset) {
  check_writable(coreset);
  std::string text(kHeader);
  text += '\n';
  // Room for the longest index, a comma, the longest %.17g double and a newline.
  char line[20 + 1 + 24 + 1];
  for (std::size_t i = 0; i < coreset.indices.size(); ++i) {
    char* const end = line + sizeof(line);
    char* p = std::to_chars(line, end, coreset.indices[i]).ptr;
    *p++ = ',';
    // Same digits as printf("%.17g"), which round-trips every double, but locale-independent.
    p = std::to_chars(p, end, coreset.weights[i], std::chars_format::general, 17).ptr;
    *p++ = '\n';
    text.append(line, static_cast<std::size_t>(p - line));
  }
  write_file_atomic(path, text);
}

Coreset read_coreset_csv(const std::string& path) {
  const std::string text = detail::read_text_file(path);
  detail::LineReader lines(text);
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path,
                     "file is empty: expected the header line '" + std::string(kHeader) + "'");
  }
  check_header(path, line);

  Coreset coreset;
  std::string error;
  std::string_view index_field;
  std::string_view weight_field;
  while (lines.next(line)) {
    const index_t line_number = lines.line_number();
    if (detail::is_blank(line)) {
      throw InputError(path, "blank line (blank lines are allowed only at the end of the file)",
                       line_number);
    }
    const index_t fields = split_pair(line, index_field, weight_field);
    if (fields != 2) {
      throw InputError(path,
                       "row has " + std::to_string(fields) + " fields, expected 2 (index,weight)",
                       line_number, fields < 2 ? 2 : 3);
    }
    index_t index = 0;
    if (!detail::parse_index(index_field, index, error)) {
      throw InputError(path, error, line_number, 1);
    }
    if (!coreset.indices.empty() && index <= coreset.indices.back()) {
      throw InputError(path,
                       "index " + std::to_string(index) + " does not follow the previous index " +
                           std::to_string(coreset.indices.back()) +
                           " (indices must be strictly ascending)",
                       line_number, 1);
    }
    double weight = 0;
    if (!detail::parse_real(weight_field, weight, error)) {
      throw InputError(path, error, line_number, 2);
    }
    if (weight < 0) {
      throw InputError(
          path, "negative weight " + detail::quote_cell(weight_field) + " (weights must be >= 0)",
          line_number, 2);
    }
    coreset.indices.push_back(index);
    coreset.weights.push_back(weight);
  }
  return coreset;
}

}  // namespace coreset::io
