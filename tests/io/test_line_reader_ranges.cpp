// LineReader over a file of several MiB, where the line count and the chunks are read in byte
// ranges on several threads (each range at least a MiB): the lines, their count, the bytes
// counted as read and the errors of a file that shrinks must be those of one thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "coreset/io.hpp"
#include "dataset_compare.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::digest;
using test::outcome;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// About `bytes` of CSV: a header, then rows "i,i/2" with CRLF line ends on every third row,
// a few long rows (padded with spaces, which the parser trims) so that lines straddle the range
// boundaries in every way, and what `start` and `end` add.
std::string table(std::size_t bytes, std::string_view start, std::string_view end) {
  std::string text(start);
  text += "x,y\n";
  for (int i = 0; text.size() < bytes; ++i) {
    text += std::to_string(i);
    if (i % 997 == 0) {
      text += std::string(static_cast<std::size_t>(40000 + i % 5000), ' ');
    }
    text += "," + std::to_string(i / 2.0) + (i % 3 == 0 ? "\r\n" : "\n");
  }
  text += end;
  return text;
}

// Every line next() yields, then the count and the bytes.
std::string lines_of(detail::LineReader& lines) {
  std::string all;
  std::string_view line;
  while (lines.next(line)) {
    all.append(line);
    all += '|';
  }
  return all + " count " + std::to_string(lines.line_count()) + " bytes " +
         std::to_string(lines.byte_count());
}

struct Variant {
  const char* name;
  std::string_view start;
  std::string_view end;
};
const Variant kVariants[] = {
    {"plain", "", ""},
    {"byte-order mark, trailing blank lines", "\xEF\xBB\xBF", "\n  \n\t\r\n\n"},
    {"no newline at the end", "", "123,4"},
    // A range that lost the file's last bytes would count 6 lines fewer.
    {"blank lines, then a one-byte last line", "", "\n\n\n\n\n\n9"},
};

TEST(LineReaderRanges, LinesAndCountsMatchTheTextInMemoryOnEveryThreadCount) {
  test::TempDir dir;
  for (const Variant& variant : kVariants) {
    const std::string text = table(3 * kMiB + 12345, variant.start, variant.end);
    const std::string path = dir.write("table.csv", text);
    detail::LineReader in_memory("table.csv", text);
    const std::string expected = lines_of(in_memory);
    // Chunks of 64 KiB are read in one piece; of 2.5 MiB, in ranges on up to `threads` threads.
    for (const std::size_t chunk : {64 * std::size_t{1024}, 5 * kMiB / 2}) {
      for (const int threads : {1, 2, 3, 4, 7}) {
        detail::LineReader lines(path, chunk, threads);
        EXPECT_TRUE(lines_of(lines) == expected)
            << variant.name << ", chunk " << chunk << ", threads " << threads;
      }
    }
  }
}

TEST(LineReaderRanges, TheDatasetIsTheSerialReadersOnEveryThreadCount) {
  test::TempDir dir;
  const std::string text = table(5 * kMiB, "\xEF\xBB\xBF", "\n\n");
  const std::string path = dir.write("table.csv", text);
  const std::string serial = outcome([&] {
    detail::LineReader lines(path, 4096);
    return detail::read_dataset_csv(lines, "", true, 0);
  });
  ASSERT_EQ(digest(serial).rfind("dataset", 0), 0u) << digest(serial);
  for (const int threads : {2, 3, 5}) {
    const std::string parallel =
        outcome([&] { return read_dataset_csv(path, "", true, 0, threads); });
    EXPECT_TRUE(parallel == serial) << threads << ": " << digest(parallel);
  }
}

TEST(LineReaderRanges, TheBytesReadCountAsTheCallersWhicheverThreadReadThem) {
  test::TempDir dir;
  const std::string text = table(4 * kMiB, "", "");
  const std::string path = dir.write("table.csv", text);
  const auto bytes_read = [&](int threads) {
    const std::int64_t before = detail::thread_bytes_read();
    detail::LineReader lines(path, 3 * kMiB, threads);
    lines_of(lines);
    return detail::thread_bytes_read() - before;
  };
  const std::int64_t one = bytes_read(1);
  // Counted once, read once.
  EXPECT_GE(one, 2 * static_cast<std::int64_t>(text.size()));
  for (const int threads : {2, 4}) {
    EXPECT_EQ(bytes_read(threads), one) << threads;
  }
}

TEST(LineReaderRanges, AFileRenamedOverThePathWhileReadIsNotSeen) {
  // Every range is read from the file that was opened, as one thread reads it: a dataset
  // replaced by an atomic rename during the read must not mix two files' rows.
  test::TempDir dir;
  const std::string text = table(6 * kMiB, "", "");
  // The same shape, other digits: rows read from it would show.
  std::string other = text;
  std::replace(other.begin(), other.end(), '1', '7');
  const std::string path = dir.write("table.csv", text);
  const std::string replacement = dir.write("replacement.csv", other);
  detail::LineReader in_memory("table.csv", text);
  const std::string expected = lines_of(in_memory);
  for (const int threads : {1, 2, 3}) {
    test::write_bytes(path, text);
    test::write_bytes(replacement, other);
    detail::LineReader lines(path, 5 * kMiB / 2, threads);
    std::filesystem::rename(replacement, path);
    EXPECT_TRUE(lines_of(lines) == expected) << threads;
  }
}

TEST(LineReaderRanges, AFileThatShrinksWhileReadInRangesFailsAsWithOneThread) {
  test::TempDir dir;
  const std::string text = table(6 * kMiB, "", "");
  const std::string path = dir.write("shrinks.csv", text);
  const auto read_after_truncation = [&](int threads) {
    test::write_bytes(path, text);
    return outcome([&] {
      detail::LineReader lines(path, 5 * kMiB / 2, threads);  // counted whole
      // Cut inside the second chunk's first range: that range comes back short.
      std::filesystem::resize_file(path, text.find('\n', 3 * kMiB) + 1);
      return detail::read_dataset_csv(lines, "", true, 0, threads);
    });
  };
  const std::string one = read_after_truncation(1);
  EXPECT_NE(one.find("were counted (was it changed while being read?)"), std::string::npos) << one;
  for (const int threads : {2, 3}) {
    EXPECT_EQ(read_after_truncation(threads), one) << threads;
  }
}

}  // namespace
}  // namespace coreset::io
