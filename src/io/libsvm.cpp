// LIBSVM / svmlight sparse text as a dataset: one datapoint per line, "LABEL [qid:Q] INDEX:VALUE
// ...", indices 1-based and strictly ascending, '#' starting a comment. The response is the label;
// the covariates are stored dense (absent entries are 0), D = the largest index unless given.
//
// The file is read twice, a chunk at a time (LineReader): the first pass checks every line and
// finds the number of rows and the largest index, so the dense matrix is allocated once at its
// final size; the second fills it. The ranks of a job read it by byte range (FileLines): each
// checks and fills only its share of the rows, and D, when not given, is the largest index over
// the ranks.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/line_shares.hpp"
#include "io/readers.hpp"
#include "support/collectives.hpp"
#include "support/memory.hpp"

namespace coreset::io {
namespace detail {
namespace {

bool is_separator(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The line without its comment.
std::string_view strip_comment(std::string_view line) {
  const std::size_t hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

// Splits a line into tokens separated by spaces and tabs, calling `token(text, number)` with
// 1-based token numbers.
template <class Token>
void for_each_token(std::string_view line, Token&& token) {
  index_t number = 0;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_separator(line[i])) {
      ++i;
    }
    if (i == line.size()) {
      return;
    }
    const std::size_t start = i;
    while (i < line.size() && !is_separator(line[i])) {
      ++i;
    }
    token(line.substr(start, i - start), ++number);
  }
}

// One data line, checked. `row` (when not null) receives the values, at index - 1, and must hold
// `features` zeros. Returns the largest index on the line (0 when none).
index_t parse_line(const std::string& path, std::string_view line, index_t line_number,
                   index_t features, double& label, double* row, index_t rows, index_t row_index) {
  std::string error;
  index_t previous = 0;
  bool seen_feature = false;
  for_each_token(line, [&](std::string_view token, index_t column) {
    if (column == 1) {
      if (!parse_real(token, label, error)) {
        throw InputError(path, "label: " + error, line_number, column);
      }
      return;
    }
    const std::size_t colon = token.find(':');
    if (colon == std::string_view::npos) {
      throw InputError(path, "expected INDEX:VALUE, found " + quote_cell(token) + " (no ':')",
                       line_number, column);
    }
    const std::string_view key = token.substr(0, colon);
    const std::string_view text = token.substr(colon + 1);
    if (key == "qid") {
      index_t query = 0;
      if (column != 2 || !parse_index(text, query, error)) {
        throw InputError(path,
                         column != 2 ? "qid:Q must come right after the label" : "qid: " + error,
                         line_number, column);
      }
      return;
    }
    index_t index = 0;
    if (!parse_index(key, index, error)) {
      throw InputError(path, error, line_number, column);
    }
    if (index == 0) {
      throw InputError(path, "index 0 in " + quote_cell(token) + " (LIBSVM indices start at 1)",
                       line_number, column);
    }
    if (seen_feature && index <= previous) {
      throw InputError(path,
                       "index " + std::to_string(index) + " does not follow the previous index " +
                           std::to_string(previous) + " (indices must be strictly ascending)",
                       line_number, column);
    }
    if (features > 0 && index > features) {
      throw InputError(path,
                       "index " + std::to_string(index) + " exceeds the number of features, " +
                           std::to_string(features) + " (--features)",
                       line_number, column);
    }
    double value = 0;
    if (!parse_real(text, value, error)) {
      throw InputError(path, error, line_number, column);
    }
    if (row != nullptr) {
      row[(index - 1) * rows + row_index] = value;
    }
    previous = index;
    seen_feature = true;
  });
  return previous;
}

const char* const kNoDataRows =
    "no data rows: expected lines 'LABEL INDEX:VALUE ...' (LIBSVM format)";
const char* const kGap =
    "blank or comment-only line between data rows (allowed only before the first row and after "
    "the last)";

// The covariate count: `features` when given, else the largest index over all rows; InputError
// when there is none, or when `rows` (this process's) x that many doubles exceed memory_limit.
index_t covariate_count(const std::string& path, index_t features, index_t largest, index_t rows,
                        std::int64_t memory_limit) {
  const index_t dims = features > 0 ? features : largest;
  if (dims == 0) {
    throw InputError(path,
                     "no INDEX:VALUE pair on any line, so there are no covariates (give the "
                     "number of features to read all-zero covariates)");
  }
  if (rows > 0 && dims > memory_limit / static_cast<std::int64_t>(sizeof(double)) / rows) {
    throw InputError(path, "the dense covariate matrix, " + std::to_string(rows) + " rows x " +
                               std::to_string(dims) +
                               " features (the largest index), would not fit in memory (" +
                               std::to_string(memory_limit >> 20) + " MiB)");
  }
  return dims;
}

// The dataset of `rows` rows (on lines first_data_line ...) and `dims` covariates, zeros.
Dataset allocate(const std::string& path, index_t rows, index_t dims, bool has_response,
                 index_t first_data_line) {
  Dataset data;
  data.source = path;
  data.first_data_line = first_data_line;
  data.covariates = Matrix<double>(rows, dims);
  // No names: the models call covariate j "x<j+1>", which is its LIBSVM index. Making them here
  // would cost a string per index, even for the millions a single token like "1 4000000:1" asks.
  if (has_response) {
    data.response.resize(static_cast<std::size_t>(rows));
    data.response_name = "label";
    data.response_column = 1;
  }
  return data;
}

// Pass 2: data's rows from `lines`, whose next line is the first row, every row already checked.
void fill(LineReader& lines, Dataset& data) {
  const index_t rows = data.rows();
  std::string_view line;
  double label = 0;
  for (index_t row = 0; row < rows && lines.next(line); ++row) {
    parse_line(lines.name(), strip_comment(line), lines.line_number(), data.dims(), label,
               data.covariates.data(), rows, row);
    if (!data.response.empty()) {
      data.response[static_cast<std::size_t>(row)] = label;
    }
  }
}

// The first line of `file` that holds data (0: none), reading from its start.
index_t find_first_data_line(const FileLines& file) {
  LineReader lines = file.read_lines(1, file.lines());
  std::string_view line;
  while (lines.next(line)) {
    if (!is_blank(strip_comment(line))) {
      return lines.line_number();
    }
  }
  return 0;
}

// The last line of `file` that holds data (the first is `first`): from the end, in windows of
// growing size, since only comment-only lines may follow it.
index_t find_last_data_line(const FileLines& file, index_t first) {
  for (index_t window = 64;; window *= 8) {
    const index_t from = std::max(first, file.lines() - window + 1);
    LineReader lines = file.read_lines(from, file.lines());
    index_t last = 0;
    std::string_view line;
    while (lines.next(line)) {
      if (!is_blank(strip_comment(line))) {
        last = lines.line_number();
      }
    }
    if (last != 0 || from == first) {
      return std::max(last, first);
    }
  }
}

}  // namespace

Dataset read_dataset_libsvm(LineReader& lines, bool has_response, index_t features,
                            std::int64_t memory_limit) {
  const std::string& path = lines.name();
  if (features < 0) {
    throw InvalidArgument("the number of LIBSVM features must be >= 0, got " +
                          std::to_string(features));
  }
  // Pass 1: check every line; count the rows; find the largest index.
  index_t first_data_line = 0;
  index_t rows = 0;
  index_t largest = 0;
  std::string_view line;
  double label = 0;
  index_t gap_line = 0;  // the first blank or comment-only line after a data row
  while (lines.next(line)) {
    const std::string_view data = strip_comment(line);
    const index_t line_number = lines.line_number();
    if (is_blank(data)) {
      if (first_data_line != 0 && gap_line == 0) {
        gap_line = line_number;
      }
      continue;  // before the first row, or at the end if no row follows
    }
    if (gap_line != 0) {
      throw InputError(path, kGap, gap_line);
    }
    if (first_data_line == 0) {
      first_data_line = line_number;
    }
    largest =
        std::max(largest, parse_line(path, data, line_number, features, label, nullptr, 0, 0));
    ++rows;
  }
  if (rows == 0) {
    throw InputError(path, kNoDataRows);
  }
  const index_t dims = covariate_count(path, features, largest, rows, memory_limit);
  Dataset data = allocate(path, rows, dims, has_response, first_data_line);
  lines.rewind();
  while (lines.line_number() + 1 < first_data_line && lines.next(line)) {
  }
  fill(lines, data);
  return data;
}

Dataset read_dataset_libsvm_by_byte_range(const std::string& path, bool has_response,
                                          index_t features, const Communicator& comm,
                                          std::size_t chunk_bytes) {
  if (features < 0) {
    throw InvalidArgument("the number of LIBSVM features must be >= 0, got " +
                          std::to_string(features));
  }
  const FileLines file(path, comm);
  // The rows are the lines first ... last: only blank and comment-only lines may come before
  // and after them, none between (checked below, in each rank's share). Every rank reads the
  // same few lines here and finds the same.
  // The last rank alone looks for the end (it reads the file's last lines) and tells the others.
  index_t first = 0;
  index_t last = 0;
  const bool finds_the_end = comm.rank() == comm.size() - 1;
  on_every_rank(&comm, [&] {
    first = find_first_data_line(file);
    if (first == 0) {
      throw InputError(path, kNoDataRows);
    }
    if (finds_the_end) {
      last = find_last_data_line(file, first);
    }
  });
  last = support::all_gather_values(comm, std::vector<index_t>{last}).back();
  const index_t all_rows = last - first + 1;
  const DatapointRange share = datapoint_range(all_rows, comm.rank(), comm.size());
  const index_t share_first_line = first + share.first;
  const index_t share_last_line = share_first_line + share.count - 1;
  // Pass 1 over the share: check every line, find its largest index. A bad line fails its rank
  // alone, as the first error in the file (the lowest rank's) for every rank.
  index_t largest = 0;
  std::unique_ptr<LineReader> lines;
  on_every_rank(&comm, [&] {
    if (share.count == 0) {
      return;
    }
    // Held for both passes: the second rewinds to the share's start, found once.
    lines = std::make_unique<LineReader>(
        path, chunk_bytes == 0 ? LineReader::kDefaultChunkBytes : chunk_bytes,
        LineSpan{file.line_start(share_first_line), share_first_line, share_last_line});
    std::string_view line;
    double label = 0;
    while (lines->next(line)) {
      const std::string_view data = strip_comment(line);
      if (is_blank(data)) {
        throw InputError(path, kGap, lines->line_number());
      }
      largest = std::max(
          largest, parse_line(path, data, lines->line_number(), features, label, nullptr, 0, 0));
    }
  });
  for (const index_t theirs : support::all_gather_values(comm, std::vector<index_t>{largest})) {
    largest = std::max(largest, theirs);
  }
  index_t dims = 0;
  on_every_rank(&comm, [&] {
    dims =
        covariate_count(path, features, largest, share.count, support::host_memory_limit().bytes);
  });
  Dataset data = allocate(path, share.count, dims, has_response, share_first_line);
  data.first_row = share.first;
  data.total_rows = all_rows;
  if (lines != nullptr) {
    lines->rewind();  // the share's start is known: no second search for it
    fill(*lines, data);
  }
  return data;
}

Dataset read_dataset_libsvm(LineReader& lines, bool has_response, index_t features) {
  return read_dataset_libsvm(lines, has_response, features, support::host_memory_limit().bytes);
}

}  // namespace detail

Dataset read_dataset_libsvm(const std::string& path, bool has_response, index_t features) {
  detail::LineReader lines(path);
  return detail::read_dataset_libsvm(lines, has_response, features);
}

}  // namespace coreset::io
