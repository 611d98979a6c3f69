// LineReader: lines of a file read a chunk at a time, or of text in memory.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"
#include "io/newlines.hpp"
#include "io/parallel_rows.hpp"
#include "io/read_phases.hpp"
#include "io/worker_team.hpp"

namespace coreset::io::detail {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr std::size_t kMinChunkBytes = 16;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Blocks of this many bytes when a range of a file is scanned for its line ends.
constexpr std::size_t kScanBlockBytes = std::size_t{1} << 20;

std::string_view skip_byte_order_mark(std::string_view text) {
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text.remove_prefix(kByteOrderMark.size());
  }
  return text;
}

// `length` bytes from `begin`, cut to be read on up to `threads` threads: a range per thread,
// but none shorter than a scan block (a thread would cost more than it saves there), and at least
// one. Range i is [start(i), start(i + 1)); the last takes the remainder.
struct ByteRanges {
  ByteRanges(std::int64_t first_byte, std::int64_t bytes, int threads)
      : begin(first_byte),
        length(bytes),
        count(static_cast<int>(std::clamp<std::int64_t>(
            bytes / static_cast<std::int64_t>(kScanBlockBytes), 1, std::max(threads, 1)))) {}
  std::int64_t start(int i) const {
    return i == count ? begin + length : begin + length / count * i;
  }
  std::int64_t size(int i) const { return start(i + 1) - start(i); }

  std::int64_t begin;
  std::int64_t length;
  int count;
};

// Calls read(i) for every i in [0, ranges) on `team`'s threads, and rethrows the first range's
// error. The bytes the helper threads read count as the calling thread's (thread_bytes_read), as
// if it had read them all.
template <class Read>
void for_each_range(WorkerTeam& team, int ranges, const Read& read) {
  struct Outcome {
    std::int64_t bytes_read = 0;
    bool by_caller = false;
    std::exception_ptr error;
  };
  std::vector<Outcome> outcomes(static_cast<std::size_t>(ranges));
  team.for_each(ranges, [&](int i, int worker) {
    Outcome& outcome = outcomes[static_cast<std::size_t>(i)];
    const std::int64_t before = thread_bytes_read();
    try {
      read(i);
    } catch (...) {
      outcome.error = std::current_exception();
    }
    outcome.bytes_read = thread_bytes_read() - before;
    outcome.by_caller = worker == 0;
  });
  for (const Outcome& outcome : outcomes) {
    if (outcome.error) {
      std::rethrow_exception(outcome.error);
    }
    thread_bytes_read() += outcome.by_caller ? 0 : outcome.bytes_read;
  }
}

}  // namespace

LineEnds line_ends(std::string_view bytes) {
  std::size_t last = bytes.size();
  while (last > 0 && is_space(bytes[last - 1])) {
    --last;
  }
  const index_t newlines = count_newlines(bytes.data(), bytes.data() + bytes.size());
  if (last == 0) {
    return {newlines, -1};
  }
  // The line ends before the last content byte: all but those in the blank tail after it, which
  // is short, so the bytes are scanned once rather than twice.
  return {newlines, newlines - count_newlines(bytes.data() + last, bytes.data() + bytes.size())};
}

LineEnds line_ends(InputFile& file, std::int64_t begin, std::int64_t end) {
  std::string block(static_cast<std::size_t>(std::min<std::int64_t>(
                        std::max<std::int64_t>(end - begin, 0), kScanBlockBytes)),
                    '\0');
  LineEnds ends;
  for (std::int64_t at = begin; at < end;) {
    const auto size = static_cast<std::size_t>(std::min<std::int64_t>(end - at, kScanBlockBytes));
    file.read_at(at, block.data(), size);
    ends = ends.then(line_ends(std::string_view(block.data(), size)));
    at += static_cast<std::int64_t>(size);
  }
  return ends;
}

std::int64_t byte_after_newline(InputFile& file, std::int64_t begin, std::int64_t end,
                                std::int64_t nth) {
  std::string block(kScanBlockBytes, '\0');
  for (std::int64_t at = begin; at < end && nth > 0;) {
    const auto size = static_cast<std::size_t>(std::min<std::int64_t>(end - at, kScanBlockBytes));
    file.read_at(at, block.data(), size);
    for (const char* p = block.data(); nth > 0;) {
      const auto* found = static_cast<const char*>(
          std::memchr(p, '\n', static_cast<std::size_t>(block.data() + size - p)));
      if (found == nullptr) {
        break;
      }
      p = found + 1;
      if (--nth == 0) {
        return at + (p - block.data());
      }
    }
    at += static_cast<std::int64_t>(size);
  }
  throw InputError(file.path(),
                   "fewer line ends than were counted (was the file changed while "
                   "being read?)");
}

std::int64_t byte_order_mark_length(InputFile& file) {
  if (file.size() < static_cast<std::int64_t>(kByteOrderMark.size())) {
    return 0;
  }
  char start[3] = {};
  file.read_at(0, start, sizeof start);
  return std::string_view(start, sizeof start) == kByteOrderMark ? sizeof start : 0;
}

LineReader::LineReader(std::string name, std::string_view text) : name_(std::move(name)) {
  window_ = skip_byte_order_mark(text);
  count_lines_in_memory();
}

LineReader::LineReader(const std::string& path, std::size_t chunk_bytes, int threads)
    : name_(path),
      file_(std::make_unique<InputFile>(path)),
      chunk_bytes_(std::max(chunk_bytes, kMinChunkBytes)),
      read_threads_(std::max(threads, 1)) {
  const std::int64_t size = file_->size();
  if (size >= 0 && static_cast<std::uint64_t>(size) <= chunk_bytes_) {
    // Small enough to hold: one read, then as from memory. A file that grew since it was
    // measured is caught by the short read below and read to its end.
    buffer_.resize(static_cast<std::size_t>(size) + 1);
    std::size_t got = file_->read_some(buffer_.data(), buffer_.size());
    if (got == buffer_.size()) {
      buffer_.resize(chunk_bytes_);
      got += file_->read_some(buffer_.data() + got, buffer_.size() - got);
    }
    if (got < buffer_.size()) {
      buffer_.resize(got);
      file_.reset();
    }
  }
  if (size < 0) {
    // A pipe cannot be read twice: hold it.
    char block[1 << 16];
    while (const std::size_t got = file_->read_some(block, sizeof block)) {
      buffer_.append(block, got);
    }
    file_.reset();
  }
  if (file_ == nullptr) {
    window_ = skip_byte_order_mark(buffer_);
    count_lines_in_memory();
  } else {
    std::string().swap(buffer_);  // its memory too: the chunk is chunk_
    {
      const ReadPhaseTimer timer(ReadPhase::line_count);
      count_lines_in_file();
    }
    rewind();
  }
}

LineReader::~LineReader() = default;

LineReader::LineReader(const std::string& path, std::size_t chunk_bytes, const LineSpan& span)
    : name_(path),
      file_(std::make_unique<InputFile>(path)),
      chunk_bytes_(std::max(chunk_bytes, kMinChunkBytes)),
      line_count_(span.last_line),
      byte_count_(std::max<std::int64_t>(file_->size() - span.first_byte, 0)),
      start_(span) {
  rewind();
}

void LineReader::count_lines_in_memory() {
  byte_count_ = static_cast<std::int64_t>(window_.size());
  line_count_ = line_ends(window_).lines();
  position_ = 0;
  line_number_ = 0;
  at_end_ = true;
}

void LineReader::count_lines_in_file() {
  // The ranges' line ends, each counted on its own thread when there are several (reads at an
  // offset on the one handle), then joined in order (LineEnds::then is associative): the count
  // a single pass gives. Scanning a block at a time also keeps the bytes in cache between the
  // read and the count, where a chunk of many MiB would be read back from memory.
  const std::int64_t begin = byte_order_mark_length(*file_);
  const ByteRanges ranges(begin, file_->size() - begin, read_threads_);
  std::vector<LineEnds> counted(static_cast<std::size_t>(ranges.count));
  for_each_range(team(), ranges.count, [&](int i) {
    counted[static_cast<std::size_t>(i)] = line_ends(*file_, ranges.start(i), ranges.start(i + 1));
  });
  LineEnds ends;
  for (const LineEnds& range : counted) {
    ends = ends.then(range);
  }
  byte_count_ = ranges.length;
  line_count_ = ends.lines();
}

WorkerTeam& LineReader::team() {
  if (team_ == nullptr) {
    team_ = std::make_unique<WorkerTeam>(read_threads_);
  }
  return *team_;
}

void LineReader::rewind() {
  position_ = 0;
  line_number_ = start_.first_line - 1;
  if (file_ != nullptr) {
    file_->seek(start_.first_byte);
    window_ = {};
    at_end_ = false;
    at_start_ = start_.first_byte == 0;  // only then is a byte-order mark ahead
  }
}

std::size_t LineReader::read_from_file(char* data, std::size_t size) {
  const std::int64_t at = file_->position();
  // The bytes the file held when it was opened, in ranges on a thread each, at their offsets on
  // the one handle.
  const ByteRanges ranges(
      at, std::clamp<std::int64_t>(file_->size() - at, 0, static_cast<std::int64_t>(size)),
      read_threads_);
  if (ranges.count == 1) {
    return file_->read_some(data, size);
  }
  std::vector<std::size_t> got_in(static_cast<std::size_t>(ranges.count));
  for_each_range(team(), ranges.count, [&](int i) {
    got_in[static_cast<std::size_t>(i)] = file_->read_some_at(
        ranges.start(i), data + (ranges.start(i) - at), static_cast<std::size_t>(ranges.size(i)));
  });
  // The bytes up to the first short range: a file that shrank since it was opened ends there,
  // as a single read would have found, and the next read meets its end.
  std::size_t got = 0;
  bool whole = true;
  for (int i = 0; i < ranges.count && whole; ++i) {
    got += got_in[static_cast<std::size_t>(i)];
    whole = got_in[static_cast<std::size_t>(i)] == static_cast<std::size_t>(ranges.size(i));
  }
  file_->seek(at + static_cast<std::int64_t>(got));
  if (whole && got < size) {
    got += file_->read_some(data + got, size - got);  // bytes appended since it was opened
  }
  return got;
}

bool LineReader::refill() {
  if (at_end_) {
    return false;
  }
  const std::size_t kept = window_.size() - position_;
  // A line longer than half the chunk: double it, so that every line fits whole. The chunk is
  // not zeroed (new char[], not a std::string's resize): the reads that fill it first touch its
  // pages, on their threads. Zeroing a fresh 64 MiB string, the chunk of 16 threads, took 27 ms
  // on the 2-vCPU build VM, on the reader's one thread before any parse.
  const std::size_t wanted =
      std::max(chunk_bytes_, kept > chunk_capacity_ / 2 ? 2 * chunk_capacity_ : 0);
  if (chunk_capacity_ < wanted) {
    std::unique_ptr<char[]> larger(new char[wanted]);
    if (kept > 0) {
      std::memcpy(larger.get(), window_.data() + position_, kept);
    }
    chunk_ = std::move(larger);
    chunk_capacity_ = wanted;
  } else if (kept > 0) {
    std::memmove(chunk_.get(), window_.data() + position_, kept);
  }
  std::size_t got = 0;
  {
    // Every chunk's read, the first (which the header's line brings about) included.
    const ReadPhaseTimer timer(ReadPhase::reading);
    got = read_from_file(chunk_.get() + kept, chunk_capacity_ - kept);
  }
  if (got == 0) {
    at_end_ = true;
  }
  window_ = std::string_view(chunk_.get(), kept + got);
  position_ = 0;
  if (at_start_ && got > 0) {
    at_start_ = false;
    if (window_.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
      position_ = kByteOrderMark.size();
    }
  }
  return got > 0;
}

bool LineReader::next_block(std::string_view& block, index_t& lines_left, std::size_t max_bytes) {
  if (line_number_ >= line_count_) {
    return false;
  }
  while (true) {
    const std::string_view unread = window_.substr(position_);
    // The last newline within max_bytes, or else the first one after (a longer line).
    std::size_t end = unread.substr(0, std::max<std::size_t>(max_bytes, 1)).rfind('\n');
    if (end == std::string_view::npos && unread.size() > max_bytes) {
      end = unread.find('\n', max_bytes);
    }
    if (end != std::string_view::npos) {
      block = unread.substr(0, end + 1);
      break;
    }
    if (!refill()) {
      // No newline in the rest of the file: it is the last line.
      block = window_.substr(position_);
      if (block.empty()) {
        throw InputError(name_, "the file ended after " + std::to_string(line_number_) +
                                    " lines, but " + std::to_string(line_count_) +
                                    " were counted (was it changed while being read?)");
      }
      break;
    }
  }
  position_ += block.size();
  lines_left = line_count_ - line_number_;
  return true;
}

bool LineReader::next(std::string_view& line) {
  if (line_number_ >= line_count_) {
    return false;
  }
  while (true) {
    const char* const start = window_.data() + position_;
    const std::size_t left = window_.size() - position_;
    const void* newline = left == 0 ? nullptr : std::memchr(start, '\n', left);
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
      line = std::string_view(start, length);
      position_ += length + 1;
      break;
    }
    if (!refill()) {
      const char* const rest = window_.data() + position_;
      const std::size_t rest_size = window_.size() - position_;
      if (rest_size == 0) {
        throw InputError(name_, "the file ended after " + std::to_string(line_number_) +
                                    " lines, but " + std::to_string(line_count_) +
                                    " were counted (was it changed while being read?)");
      }
      line = std::string_view(rest, rest_size);
      position_ = window_.size();
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  ++line_number_;
  return true;
}

}  // namespace coreset::io::detail
