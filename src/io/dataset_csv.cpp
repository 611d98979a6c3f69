// Reading a dataset from CSV with a header row: the header names the columns (and fixes the
// delimiter), every other line is one datapoint. Rows are parsed with the CSV matrix reader's
// machinery (csv_parse.hpp) a band at a time and scattered straight into the covariate matrix and
// the response vector: the text is read in chunks, so only the numbers are ever held whole. The
// rows of each chunk are parsed on every thread (parallel_rows.hpp), with the serial reader's
// results and errors.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/line_shares.hpp"
#include "io/parallel_rows.hpp"
#include "io/readers.hpp"
#include "support/transpose.hpp"

namespace coreset::io {
namespace {

using detail::is_blank;
using detail::quote_cell;
using detail::split_fields;

// An unknown response name lists the columns; beyond this many the list is cut.
constexpr std::size_t kMaxListedColumns = 20;

// The trimmed, non-empty, distinct column names of the header line (line 1).
std::vector<std::string> parse_header(const std::string& path, std::string_view header,
                                      char delimiter) {
  if (is_blank(header)) {
    throw InputError(path, "line 1 is blank (expected the header: column names)", 1);
  }
  std::vector<std::string> names = split_fields(path, header, 1, delimiter);
  std::unordered_map<std::string_view, index_t> column_of;  // views into `names`
  for (std::size_t i = 0; i < names.size(); ++i) {
    const index_t column = static_cast<index_t>(i) + 1;
    if (names[i].empty()) {
      throw InputError(path, "empty column name in the header (every column needs a name)", 1,
                       column);
    }
    const auto [previous, inserted] = column_of.emplace(names[i], column);
    if (!inserted) {
      throw InputError(path,
                       "duplicate column name " + quote_cell(names[i]) + " (also column " +
                           std::to_string(previous->second) + ")",
                       1, column);
    }
  }
  return names;
}

// "a, b, c", cut after kMaxListedColumns names.
std::string list_columns(const std::vector<std::string>& names) {
  std::string list;
  for (std::size_t i = 0; i < std::min(names.size(), kMaxListedColumns); ++i) {
    list += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kMaxListedColumns) {
    list += ", ... (" + std::to_string(names.size()) + " columns in all)";
  }
  return list;
}

// 0-based index of the response column among `names`.
std::size_t response_index(const std::string& path, const std::vector<std::string>& names,
                           const std::string& response) {
  if (names.size() < 2) {
    throw InputError(path,
                     "the header names 1 column, but a response and at least one covariate are "
                     "needed (at least 2 columns)",
                     1);
  }
  const std::string_view wanted = detail::trim(response);
  if (wanted.empty()) {
    return names.size() - 1;
  }
  const auto found = std::find(names.begin(), names.end(), wanted);
  if (found == names.end()) {
    throw InputError(
        path, "no column named " + quote_cell(wanted) + " (columns: " + list_columns(names) + ")",
        1, 0);
  }
  return static_cast<std::size_t>(found - names.begin());
}

}  // namespace

namespace detail {
namespace {

constexpr const char* kEmptyFile =
    "file is empty: expected a header line of column names, then one line of numbers per "
    "datapoint";
constexpr const char* kNoRows = "no data rows after the header";

// How the numbers of a row are laid out: the header's columns, the response's among them.
struct RowLayout {
  char delimiter = 0;
  index_t cols = 0;
  index_t skip = 0;  // 0-based column of the response; `cols` (none skipped) without one
};

// Reads the header (the next line of `lines`) into `data`'s names and response column.
RowLayout read_header(LineReader& lines, const std::string& response, bool has_response,
                      char delimiter, Dataset& data) {
  const std::string& path = lines.name();
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(path, kEmptyFile);
  }
  // A line reader ends lines at LF (and drops a CR before it): lines ending in CR alone (classic
  // Mac text) arrive as one header line, which would end as "no data rows after the header".
  // (Line 1 only: a column here counts fields, and the delimiter is not known yet.)
  if (line.find('\r') != std::string_view::npos) {
    throw InputError(path,
                     "a carriage return inside the header line: lines that end in CR alone "
                     "(classic Mac text) are not read; convert them to LF or CRLF",
                     1);
  }
  RowLayout layout;
  layout.delimiter = detect_delimiter(path, line, 1, delimiter);
  std::vector<std::string> names = parse_header(path, line, layout.delimiter);
  layout.cols = static_cast<index_t>(names.size());
  data.source = path;
  layout.skip = layout.cols;
  if (has_response) {
    const std::size_t r = response_index(path, names, response);
    data.response_name = std::move(names[r]);
    names.erase(names.begin() + static_cast<std::ptrdiff_t>(r));
    layout.skip = static_cast<index_t>(r);
    data.response_column = layout.skip + 1;
  }
  data.covariate_names = std::move(names);
  return layout;
}

// Parses `rows` rows, the first being `line` (already read), into `data`'s covariates and
// response, which this allocates.
void read_rows(LineReader& lines, std::string_view line, index_t rows, const RowLayout& layout,
               int threads, std::size_t block_bytes, Dataset& data) {
  const index_t dims = static_cast<index_t>(data.covariate_names.size());
  check_table_fits<double>(lines, line, rows, layout.cols, layout.delimiter, "the header");
  // Every element is written by the parse (or the read fails and the dataset is dropped), by
  // the threads that parse its rows: they, not this one, first touch its pages.
  data.covariates = Matrix<double>::uninitialized(rows, dims);
  if (data.response_column != 0) {
    data.response.resize(static_cast<std::size_t>(rows));
  }
  double* const covariates = data.covariates.data();
  double* const labels = data.response.data();
  // Writes only the band's rows: safe from several threads at once for disjoint bands.
  const auto store = [&](const double* band, index_t band_rows, index_t first_row) {
    support::store_dataset_band(band, layout.cols, band_rows, layout.skip, first_row, rows,
                                covariates, labels);
  };
  if (threads == 0) {
    parse_rows<double>(lines, line, layout.cols, layout.delimiter, "the header", store);
  } else {
    parse_rows_parallel<double>(lines, line, layout.cols, layout.delimiter, "the header", threads,
                                block_bytes == 0 ? lines.chunk_bytes() : block_bytes, store);
  }
}

// The reader's chunk: a few MiB per thread keeps every thread busy on one block, while still
// holding only a bounded part of the text.
std::size_t chunk_bytes_for(int threads) {
  return std::max(LineReader::kDefaultChunkBytes,
                  static_cast<std::size_t>(threads) * kParallelBytesPerThread);
}

// An empty share of the rows: no datapoint, the columns named.
void make_empty(Dataset& data) {
  data.covariates = Matrix<double>(0, static_cast<index_t>(data.covariate_names.size()));
}

}  // namespace

Dataset read_dataset_csv(LineReader& lines, const std::string& response, bool has_response,
                         char delimiter, int threads, std::size_t block_bytes, int rank,
                         int ranks) {
  Dataset data;
  const RowLayout layout = read_header(lines, response, has_response, delimiter, data);
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(lines.name(), kNoRows);
  }
  data.first_data_line = lines.line_number();
  index_t rows = lines.line_count() - 1;
  if (ranks > 1) {
    // A rank's share: skip to its first row (line ends only, no parsing), and stop after its
    // last. Row i of the file is on line first_data_line + i.
    const index_t all_rows = rows;
    const DatapointRange share = datapoint_range(all_rows, rank, ranks);
    data.first_row = share.first;
    data.total_rows = all_rows;
    data.first_data_line += share.first;
    rows = share.count;
    if (rows == 0) {
      make_empty(data);
      return data;
    }
    for (index_t skipped = 0; skipped < share.first; ++skipped) {
      lines.next(line);
    }
    lines.stop_after(data.first_data_line + rows - 1);
  }
  read_rows(lines, line, rows, layout, threads, block_bytes, data);
  return data;
}

Dataset read_dataset_csv_by_byte_range(const std::string& path, const std::string& response,
                                       bool has_response, char delimiter, int threads,
                                       const Communicator& comm, std::size_t chunk_bytes) {
  check_delimiter(delimiter);
  threads = detail::resolve_threads(threads);
  if (chunk_bytes == 0) {
    chunk_bytes = chunk_bytes_for(threads);
  }
  const FileLines file(path, comm);
  Dataset data;
  if (file.lines() == 0) {
    throw InputError(path, kEmptyFile);
  }
  LineReader header = file.read_lines(1, 1);
  const RowLayout layout = read_header(header, response, has_response, delimiter, data);
  if (file.lines() == 1) {
    throw InputError(path, kNoRows);
  }
  // Row i of the file is on line i + 2.
  const index_t all_rows = file.lines() - 1;
  const DatapointRange share = datapoint_range(all_rows, comm.rank(), comm.size());
  data.first_row = share.first;
  data.total_rows = all_rows;
  data.first_data_line = 2 + share.first;
  if (share.count == 0) {
    make_empty(data);
    return data;
  }
  LineReader body =
      file.read_lines(data.first_data_line, data.first_data_line + share.count - 1, chunk_bytes);
  std::string_view line;
  if (!body.next(line)) {
    throw InputError(path, "the file ended before line " + std::to_string(data.first_data_line) +
                               " (was it changed while being read?)");
  }
  read_rows(body, line, share.count, layout, threads, 0, data);
  return data;
}

}  // namespace detail

Dataset detail::read_dataset_csv_share(const std::string& path, const std::string& response,
                                       bool has_response, char delimiter, int threads, int rank,
                                       int ranks) {
  check_delimiter(delimiter);
  threads = detail::resolve_threads(threads);
  detail::LineReader lines(path, detail::chunk_bytes_for(threads), threads);
  return detail::read_dataset_csv(lines, response, has_response, delimiter, threads, 0, rank,
                                  ranks);
}

Dataset read_dataset_csv(const std::string& path, const std::string& response, bool has_response,
                         char delimiter, int threads) {
  return detail::read_dataset_csv_share(path, response, has_response, delimiter, threads, 0, 1);
}

}  // namespace coreset::io
