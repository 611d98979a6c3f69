#include "io/line_shares.hpp"

#include <algorithm>

#include "coreset/error.hpp"
#include "io/input_file.hpp"
#include "support/collectives.hpp"

namespace coreset::io::detail {

FileLines::FileLines(const std::string& path, const Communicator& comm) : path_(path) {
  const int ranks = comm.size();
  LineEnds mine;
  on_every_rank(&comm, [&] {
    InputFile file(path);
    const std::int64_t size = file.size();
    if (size < 0) {
      throw InputError(path,
                       "not a regular file (a pipe or a device): the ranks of a job each read "
                       "their share of a text file by byte range, which needs a regular file");
    }
    const std::int64_t begin = byte_order_mark_length(file);
    const std::int64_t text = size - begin;
    for (int r = 0; r <= ranks; ++r) {
      range_begin_.push_back(begin + text / ranks * r + std::min<std::int64_t>(r, text % ranks));
    }
    const auto me = static_cast<std::size_t>(comm.rank());
    mine = line_ends(file, range_begin_[me], range_begin_[me + 1]);
  });
  ranges_ = support::all_gather_values(comm, std::vector<LineEnds>{mine});
  LineEnds whole;
  for (const LineEnds& range : ranges_) {
    whole = whole.then(range);
  }
  lines_ = whole.lines();
}

std::int64_t FileLines::line_start(index_t line) const {
  if (line <= 1) {
    return text_begin();
  }
  std::int64_t newline = line - 1;  // line L starts after the file's (L - 1)-th line end
  std::size_t r = 0;
  while (r + 1 < ranges_.size() && newline > ranges_[r].newlines) {
    newline -= ranges_[r].newlines;
    ++r;
  }
  InputFile file(path_);
  return byte_after_newline(file, range_begin_[r], range_begin_[r + 1], newline);
}

LineReader FileLines::read_lines(index_t first, index_t last, std::size_t chunk_bytes) const {
  return LineReader(path_, chunk_bytes, LineSpan{line_start(first), first, std::min(last, lines_)});
}

}  // namespace coreset::io::detail
