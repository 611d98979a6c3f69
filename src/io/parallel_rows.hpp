// Parsing the rows of a CSV table on several threads. The text is taken a block of whole lines
// at a time (LineReader::next_block, about one chunk: the text is never held whole); each block
// is cut at line ends into one piece per thread, the pieces' lines are counted in parallel, so
// every line knows its row and line number, and then parsed in parallel with the serial reader's
// own parse_row. Quoted fields cannot span lines (csv_fields.cpp), so a line end is always a row
// end and any cut at one is safe. Every piece stops at its first error; the error on the
// smallest line is rethrown, which is the one the serial reader would have met first.
//
// A block has a few pieces per thread, handed out dynamically: on a shared machine a thread
// that loses its core then delays the block by one small piece, not by a whole share. The
// threads are a WorkerTeam (worker_team.hpp), started once per read, whose helpers block when
// idle, not an OpenMP team: OpenMP's waiting threads spin, and with two synchronisations per
// block a spinning thread on a busy machine takes the core its peer needs (measured: 2 threads
// 1.75x slower than 1 on the shared 2-core build VM with OpenMP, as fast as 1 with
// std::thread).
#pragma once

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/types.hpp"
#include "io/csv_parse.hpp"
#include "io/read_phases.hpp"
#include "io/worker_team.hpp"

namespace coreset::io::detail {

/// One thread's share of a block: whole lines, and where they sit in the table.
struct RowPiece {
  std::string_view text;
  index_t lines = 0;      // lines in `text`
  index_t first_row = 0;  // 0-based index in the block of its first line
  index_t error_line = 0;
  std::exception_ptr error;
};

/// Cuts `block` into pieces.size() runs of whole lines of about equal size (some may be empty)
/// and sets each one's text.
void split_at_line_ends(std::string_view block, std::vector<RowPiece>& pieces);
/// Lines in `text`: its newlines, plus one for a last line without one.
index_t count_lines(std::string_view text);

/// Splits off the next line of `text` (up to '\n', which is dropped, as is a '\r' before it).
inline std::string_view take_line(std::string_view& text) {
  const void* newline = std::memchr(text.data(), '\n', text.size());
  std::size_t length =
      newline == nullptr
          ? text.size()
          : static_cast<std::size_t>(static_cast<const char*>(newline) - text.data());
  std::string_view line = text.substr(0, length);
  text.remove_prefix(std::min(text.size(), length + 1));
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

/// As parse_rows (csv_parse.hpp), with the same values stored for every row and the same first
/// error, on `threads` threads (>= 1), taking blocks of about `block_bytes`. `store` is called
/// from several threads at once, for disjoint rows, with bands of any size up to about 2^16
/// values (row 0, `line`, alone).
template <class T, class Store>
void parse_rows_parallel(LineReader& lines, std::string_view line, index_t cols, char delimiter,
                         const char* shape_source, int threads, std::size_t block_bytes,
                         Store&& store) {
  constexpr index_t kBandElements = index_t{1} << 16;
  const std::string& path = lines.name();
  if (is_blank(line)) {
    throw InputError(path, "blank line (blank lines are allowed only at the end of the file)",
                     lines.line_number());
  }
  std::vector<T> first(static_cast<std::size_t>(cols));
  parse_row(path, line, lines.line_number(), cols, delimiter, shape_source, first.data());
  store(static_cast<const T*>(first.data()), index_t{1}, index_t{0});

  constexpr int kPiecesPerThread = 4;
  WorkerTeam team(threads);  // its helpers started once, for every block's count and parse
  const index_t band = std::max<index_t>(kBandElements / cols, 1);
  std::vector<std::vector<T>> bands(static_cast<std::size_t>(threads));
  const int piece_count = threads == 1 ? 1 : threads * kPiecesPerThread;
  std::vector<RowPiece> pieces(static_cast<std::size_t>(piece_count));
  index_t next_row = 1;  // row of the block's first line
  std::string_view block;
  index_t lines_left = 0;
  while (lines.next_block(block, lines_left, block_bytes)) {  // its reads: ReadPhase::reading
    index_t in_block = 0;
    {
      const ReadPhaseTimer timer(ReadPhase::counting);
      split_at_line_ends(block, pieces);
      team.for_each(piece_count, [&](int i, int) {
        RowPiece& piece = pieces[static_cast<std::size_t>(i)];
        piece.lines = count_lines(piece.text);
      });
      for (RowPiece& piece : pieces) {
        piece.first_row = in_block;
        in_block += piece.lines;
        piece.error = nullptr;
      }
    }
    const index_t taken = std::min(in_block, lines_left);  // trailing blank lines stay unread
    const index_t first_line = lines.line_number() + 1;
    const ReadPhaseTimer parsing(ReadPhase::parsing);
    team.for_each(piece_count, [&](int i, int worker) {
      RowPiece& piece = pieces[static_cast<std::size_t>(i)];
      std::vector<T>& buffer = bands[static_cast<std::size_t>(worker)];
      std::string_view text = piece.text;
      const index_t end = std::min(piece.first_row + piece.lines, taken);
      index_t band_start = piece.first_row;
      index_t in_band = 0;
      index_t row = piece.first_row;
      try {
        buffer.resize(static_cast<std::size_t>(band * cols));
        for (; row < end; ++row) {
          const std::string_view current = take_line(text);
          if (is_blank(current)) {
            throw InputError(path,
                             "blank line (blank lines are allowed only at the end of the file)",
                             first_line + row);
          }
          parse_row(path, current, first_line + row, cols, delimiter, shape_source,
                    buffer.data() + in_band * cols);
          if (++in_band == band) {
            store(static_cast<const T*>(buffer.data()), in_band, next_row + band_start);
            band_start += in_band;
            in_band = 0;
          }
        }
        if (in_band > 0) {
          store(static_cast<const T*>(buffer.data()), in_band, next_row + band_start);
        }
      } catch (...) {
        piece.error = std::current_exception();
        piece.error_line = first_line + row;
      }
    });
    const RowPiece* failed = nullptr;
    for (const RowPiece& piece : pieces) {
      if (piece.error && (failed == nullptr || piece.error_line < failed->error_line)) {
        failed = &piece;
      }
    }
    if (failed != nullptr) {
      std::rethrow_exception(failed->error);
    }
    lines.advance(taken);
    next_row += taken;
  }
}

}  // namespace coreset::io::detail
