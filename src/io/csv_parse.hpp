// Text-side helpers shared by the CSV and LIBSVM readers: a line reader over a file (read in
// chunks, never whole) or over text in memory, CSV field splitting (delimiter detection, RFC 4180
// quotes) and strict number parsing that reports what is wrong with a cell.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset::io::detail {

class InputFile;
class WorkerTeam;

/// The line ends in a run of bytes, as LineReader counts lines (up to the last line that is not
/// blank). Runs combine in file order, so the ranks of a job can each count one part of a file
/// and add up the whole file's lines without any of them reading all of it.
struct LineEnds {
  std::int64_t newlines = 0;  ///< '\n' bytes
  /// The '\n' bytes before the run's last byte that is not whitespace; -1 when there is none.
  std::int64_t newlines_before_content = -1;

  /// This run followed by `next`.
  LineEnds then(const LineEnds& next) const noexcept {
    return {newlines + next.newlines, next.newlines_before_content >= 0
                                          ? newlines + next.newlines_before_content
                                          : newlines_before_content};
  }
  /// The lines of the run when it is a whole text: those up to its last non-blank one.
  index_t lines() const noexcept { return newlines_before_content + 1; }
};

/// The line ends of `bytes` (a byte-order mark counts as content: skip it first).
LineEnds line_ends(std::string_view bytes);
/// The line ends of bytes [begin, end) of `file`, read a block at a time.
LineEnds line_ends(InputFile& file, std::int64_t begin, std::int64_t end);
/// The offset of the byte after the `nth` (1-based) '\n' in bytes [begin, end) of `file`: where
/// a line starts. InputError when the range holds fewer (the file changed since it was counted).
std::int64_t byte_after_newline(InputFile& file, std::int64_t begin, std::int64_t end,
                                std::int64_t nth);
/// The length of the UTF-8 byte-order mark at the start of `file` (0 or 3).
std::int64_t byte_order_mark_length(InputFile& file);

/// Lines first_line ... last_line (1-based) of a file, the first starting at byte first_byte:
/// what a LineReader yields of a rank's share of a file it never reads whole.
struct LineSpan {
  std::int64_t first_byte = 0;
  index_t first_line = 1;
  index_t last_line = 0;
};

/// Yields the lines of a text without their "\n" or "\r\n". Skips a UTF-8 byte-order mark and
/// stops at the last non-blank line, so trailing blank lines are not seen.
///
/// A file larger than one chunk is read twice: once to count its lines (so that readers can
/// allocate their result once, at its final size), by byte ranges on one or more threads, and
/// once to yield them, a chunk at a time. Only the chunk (grown to the longest line if need be)
/// and each counting thread's block are held, never the whole text. Pipes and
/// files of at most one chunk are read whole into memory, once.
class LineReader {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{4} << 20;

  /// The lines of `text`, which must outlive the reader; errors name `name`.
  LineReader(std::string name, std::string_view text);
  /// The lines of the file at `path` (InputError when it cannot be opened or read). A file
  /// larger than a chunk is counted and read on `threads` threads, each reading its own range
  /// of the bytes: the copies out of the page cache are then no longer one thread's work.
  explicit LineReader(const std::string& path, std::size_t chunk_bytes = kDefaultChunkBytes,
                      int threads = 1);
  /// Lines `span` of the file at `path`, which is neither read before span.first_byte nor
  /// scanned for its line count (the caller knows it): line_number() counts from
  /// span.first_line, and byte_count() is the bytes from span.first_byte to the end.
  LineReader(const std::string& path, std::size_t chunk_bytes, const LineSpan& span);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The file name errors should carry.
  const std::string& name() const noexcept { return name_; }
  /// True when the text holds nothing but whitespace (and perhaps a byte-order mark).
  bool empty() const noexcept { return line_count_ == 0; }
  /// Number of lines next() will yield in all.
  index_t line_count() const noexcept { return line_count_; }
  /// The next line, or false after the last one. The view stays valid until the next call.
  /// Throws InputError if the file has become shorter since its lines were counted.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned by next().
  index_t line_number() const noexcept { return line_number_; }
  /// Bytes of text in all (the byte-order mark excluded).
  std::int64_t byte_count() const noexcept { return byte_count_; }
  /// The size of the chunks a file is read in.
  std::size_t chunk_bytes() const noexcept { return chunk_bytes_; }
  /// Starts again from the first line (of the span).
  void rewind();

  /// For parsing many lines at once: the lines after the last one returned, as one run of text
  /// holding whole lines (each ending in '\n' except perhaps the file's last; "\r" not removed),
  /// of at most about `max_bytes` (more when one line is longer), and in `lines_left` how many
  /// lines remain to be read in all (the run may hold more: trailing blank lines, or lines
  /// appended since the count). Returns false when no lines remain. The caller parses at most
  /// `lines_left` lines of the run, then calls advance() with the number it parsed; the view
  /// stays valid until the next call of next() or next_block(). Throws as next() does.
  bool next_block(std::string_view& block, index_t& lines_left, std::size_t max_bytes);
  /// Counts `lines` more lines as read (after next_block).
  void advance(index_t lines) noexcept { line_number_ += lines; }
  /// Yields no line after the 1-based line `last` (a rank's share of a file's rows).
  void stop_after(index_t last) noexcept { line_count_ = std::min(line_count_, last); }

 private:
  void count_lines_in_memory();
  void count_lines_in_file();
  // Keeps the unread bytes and appends the next chunk of the file; false at end of file.
  bool refill();
  // Reads up to `size` bytes from the file's position into `data`, as InputFile::read_some
  // does, in ranges on up to read_threads_ threads; returns the bytes read.
  std::size_t read_from_file(char* data, std::size_t size);
  // The read_threads_ threads that count and read the file's ranges, made on first use and kept
  // for every chunk (its helpers start when a read has ranges for them).
  WorkerTeam& team();

  std::string name_;
  std::unique_ptr<InputFile> file_;   // null when reading from memory
  std::unique_ptr<WorkerTeam> team_;  // null until a read is shared (team())
  std::string buffer_;                // whole contents (pipes, small files)
  std::unique_ptr<char[]> chunk_;     // the current chunk of a larger file (refill)
  std::size_t chunk_capacity_ = 0;    // chunk_'s bytes
  std::string_view window_;           // the bytes available now
  std::size_t position_ = 0;          // next unread byte of window_
  bool at_end_ = true;                // no more bytes beyond window_
  bool at_start_ = true;              // nothing read from the file yet (the BOM is still ahead)
  std::size_t chunk_bytes_ = kDefaultChunkBytes;
  int read_threads_ = 1;
  index_t line_count_ = 0;
  index_t line_number_ = 0;
  std::int64_t byte_count_ = 0;
  LineSpan start_;  // where rewind() goes back to
};

/// Removes spaces and tabs around a field.
std::string_view trim(std::string_view field);
/// True when the line holds only spaces, tabs or a carriage return.
bool is_blank(std::string_view line);
/// The cell quoted for a message: 'text', cut to about 40 characters, odd bytes escaped.
std::string quote_cell(std::string_view cell);
/// The delimiter for messages: "','", "';'" or "tab".
std::string delimiter_name(char delimiter);

/// The delimiter of a CSV file from its first line: the one of ',', ';' and tab found outside
/// quotes (a tab next to a comma or semicolon is padding, not a delimiter), ',' when none is
/// (a single column). `forced` (',', ';' or '\t'; 0: detect) is returned as is. Throws
/// InputError at line `line_number` when two candidates occur, naming both.
char detect_delimiter(const std::string& path, std::string_view line, index_t line_number,
                      char forced);

/// Splits a line into fields on `delimiter` outside double quotes. A field whose first non-blank
/// character is '"' is quoted: it runs to the closing quote, "" stands for one quote, and only
/// blanks may follow the closing quote. Fields are trimmed (outside and inside the quotes).
/// Throws InputError (line_number, field) for an unterminated quote or text after one.
std::vector<std::string> split_fields(const std::string& path, std::string_view line,
                                      index_t line_number, char delimiter);
/// Number of fields of a line (at least 1), quotes respected as far as they are well formed.
index_t count_fields(std::string_view line, char delimiter);

/// Parses a whole trimmed field as a finite T (a leading '+' is fine; "nan" and "inf" are not).
/// On failure returns false and sets `error` to what is wrong with the cell.
template <class T>
bool parse_real(std::string_view field, T& value, std::string& error);
/// Parses a whole trimmed field as a non-negative integer.
bool parse_index(std::string_view field, index_t& value, std::string& error);

/// The fields first ... first + count - 1 of a row (count < 0: all of them).
struct FieldBlock {
  index_t first = 0;
  index_t count = -1;
};

/// Parses a line of exactly `cols` numbers separated by `delimiter` (quoted or not) into
/// row[0], ..., row[cols - 1]. Throws InputError at the offending cell (see parse_real), or for
/// a row with another number of fields "row has F fields, expected `cols` (as in
/// `shape_source`)" at the first extra or missing field. With `kept`, only those fields are
/// parsed, into row[0], ..., row[kept.count - 1]; the others are only delimited (a rank's
/// columns of a CSV Phi: the rank holding a column checks its cells).
template <class T>
void parse_row(const std::string& path, std::string_view line, index_t line_number, index_t cols,
               char delimiter, const char* shape_source, T* row, FieldBlock kept = {});

/// Parses `line`, the line `lines` returned last, and every line after it as rows of `cols`
/// numbers (see parse_row; a blank line is an error), keeping the fields `kept` (all by
/// default). The rows are gathered in row-major bands of about 2^16 values; each full band and
/// the last one go to `store(const T* band, index_t band_rows, index_t first_row)`, row r of the
/// band (leading dimension: the kept field count) being row `first_row + r` of the table,
/// counted from `line`.
template <class T, class Store>
void parse_rows(LineReader& lines, std::string_view line, index_t cols, char delimiter,
                const char* shape_source, Store&& store, FieldBlock kept = {}) {
  constexpr index_t kBandElements = index_t{1} << 16;
  const std::string& path = lines.name();
  const index_t rows = lines.line_count() - lines.line_number() + 1;
  const index_t width = kept.count < 0 ? cols : kept.count;
  const index_t band = std::clamp<index_t>(kBandElements / std::max<index_t>(width, 1), 1,
                                           std::max<index_t>(rows, 1));
  std::vector<T> buffer(static_cast<std::size_t>(band * width));
  index_t band_start = 0;
  index_t in_band = 0;
  do {
    const index_t line_number = lines.line_number();
    if (is_blank(line)) {
      throw InputError(path, "blank line (blank lines are allowed only at the end of the file)",
                       line_number);
    }
    parse_row(path, line, line_number, cols, delimiter, shape_source,
              buffer.data() + in_band * width, kept);
    if (++in_band == band) {
      store(static_cast<const T*>(buffer.data()), in_band, band_start);
      band_start += in_band;
      in_band = 0;
    }
  } while (lines.next(line));
  if (in_band > 0) {
    store(static_cast<const T*>(buffer.data()), in_band, band_start);
  }
}

/// Checks, before a table of `rows` x `cols` numbers is allocated, that the text is long enough
/// to hold one (every cell takes a character and a delimiter or newline): a short line 1 or
/// header followed by many lines, or a long one followed by short ones, must not make the reader
/// allocate far more than the file could fill. When the text is too short, parses `line` and the
/// lines after it without storing them, which throws at the first bad row.
template <class T>
void check_table_fits(LineReader& lines, std::string_view line, index_t rows, index_t cols,
                      char delimiter, const char* shape_source) {
  if (rows <= 0 || 2 * cols - 1 <= lines.byte_count() / rows) {
    return;
  }
  parse_rows<T>(lines, line, cols, delimiter, shape_source, [](const T*, index_t, index_t) {});
  throw InputError(lines.name(), "the file is too short for " + std::to_string(rows) + " rows of " +
                                     std::to_string(cols) + " numbers");
}

/// S lines of n numbers; row r of the text becomes row r of the matrix.
template <class T>
Matrix<T> read_csv_matrix(LineReader& lines);
/// Rank `rank` of `ranks`'s block of the columns of that matrix (datapoint_range of n): every
/// line is scanned, only the block's fields are parsed (a bad cell elsewhere is the rank's that
/// holds it), and only the block is stored.
template <class T>
MatrixShare<T> read_csv_matrix_columns_share(LineReader& lines, int rank, int ranks);
/// m numbers, one per line or all on one line.
template <class T>
std::vector<T> read_csv_vector(LineReader& lines);

}  // namespace coreset::io::detail
