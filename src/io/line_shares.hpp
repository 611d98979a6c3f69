// The lines of a text file split among the ranks of a job without any rank reading all of it:
// each rank counts the line ends of its 1/R of the bytes, the ranks exchange the counts, and then
// every rank knows the file's line count and can find where any line starts by scanning at most
// one 1/R. The CSV dataset and matrix readers read a rank's share of rows this way
// (io::DatasetReadOptions::communicator, io::read_matrix_share).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/types.hpp"
#include "io/csv_parse.hpp"

namespace coreset::io::detail {

class FileLines {
 public:
  /// Counts the lines of the file at `path` together with the other ranks of `comm` (a
  /// collective). A file that cannot be opened or read, or is not a regular file (a pipe cannot
  /// be split), fails on every rank alike (on_every_rank).
  FileLines(const std::string& path, const Communicator& comm);

  /// The file's lines, as LineReader counts them (up to the last one that is not blank).
  index_t lines() const noexcept { return lines_; }
  /// Where line 1 starts: after a UTF-8 byte-order mark, if any.
  std::int64_t text_begin() const noexcept { return range_begin_.front(); }
  /// The byte where line `line` (1-based, at most lines()) starts; reads at most one rank's
  /// range of the file.
  std::int64_t line_start(index_t line) const;
  /// A chunk that suits a line or two (a LineReader grows it for a longer line).
  static constexpr std::size_t kFewLinesBytes = std::size_t{4} << 10;
  /// A reader of lines first ... last (1-based; last at most lines()) of the file, in chunks of
  /// `chunk_bytes`; it reads nothing before the first.
  LineReader read_lines(index_t first, index_t last,
                        std::size_t chunk_bytes = kFewLinesBytes) const;

 private:
  std::string path_;
  index_t lines_ = 0;
  std::vector<std::int64_t> range_begin_;  // the ranks' byte ranges: R + 1 bounds
  std::vector<LineEnds> ranges_;           // the line ends in each
};

}  // namespace coreset::io::detail
