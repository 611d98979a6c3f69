#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

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

void check_header(const std::string& path, std::string_view line, char delimiter) {
  const std::vector<std::string> fields = detail::split_fields(path, line, 1, delimiter);
  index_t column = 0;
  if (fields[0] != "index") {
    column = 1;
  } else if (fields.size() < 2 || fields[1] != "weight") {
    column = 2;
  } else if (fields.size() > 2) {
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

namespace detail {

Coreset read_coreset_csv(LineReader& lines, index_t dataset_rows) {
  const std::string& path = lines.name();
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path,
                     "file is empty: expected the header line '" + std::string(kHeader) + "'");
  }
  const char delimiter = detect_delimiter(path, line, 1, 0);
  check_header(path, line, delimiter);

  Coreset coreset;
  coreset.indices.reserve(static_cast<std::size_t>(lines.line_count() - 1));
  coreset.weights.reserve(static_cast<std::size_t>(lines.line_count() - 1));
  std::string error;
  while (lines.next(line)) {
    const index_t line_number = lines.line_number();
    if (is_blank(line)) {
      throw InputError(path, "blank line (blank lines are allowed only at the end of the file)",
                       line_number);
    }
    const std::vector<std::string> fields = split_fields(path, line, line_number, delimiter);
    if (fields.size() != 2) {
      throw InputError(
          path, "row has " + std::to_string(fields.size()) + " fields, expected 2 (index,weight)",
          line_number, fields.size() < 2 ? 2 : 3);
    }
    index_t index = 0;
    if (!parse_index(fields[0], index, error)) {
      throw InputError(path, error, line_number, 1);
    }
    if (dataset_rows >= 0 && index >= dataset_rows) {
      throw InputError(path,
                       "index " + std::to_string(index) + " is outside the dataset's " +
                           std::to_string(dataset_rows) + " rows (0-based indices)",
                       line_number, 1);
    }
    if (!coreset.indices.empty() && index <= coreset.indices.back()) {
      throw InputError(path,
                       "index " + std::to_string(index) + " does not follow the previous index " +
                           std::to_string(coreset.indices.back()) +
                           " (indices must be strictly ascending)",
                       line_number, 1);
    }
    double weight = 0;
    if (!parse_real(fields[1], weight, error)) {
      throw InputError(path, error, line_number, 2);
    }
    if (weight < 0) {
      throw InputError(path, "negative weight " + quote_cell(fields[1]) + " (weights must be >= 0)",
                       line_number, 2);
    }
    coreset.indices.push_back(index);
    coreset.weights.push_back(weight);
  }
  return coreset;
}

}  // namespace detail

Coreset read_coreset_csv(const std::string& path) {
  detail::LineReader lines(path);
  return detail::read_coreset_csv(lines);
}

Coreset read_coreset_csv(const std::string& path, index_t dataset_rows) {
  if (dataset_rows < 0) {
    throw InvalidArgument("read_coreset_csv: dataset_rows must be >= 0 (got " +
                          std::to_string(dataset_rows) + ")");
  }
  detail::LineReader lines(path);
  return detail::read_coreset_csv(lines, dataset_rows);
}

}  // namespace coreset::io
