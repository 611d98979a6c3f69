// The parallel CSV dataset reader against the serial one (the reference): the same dataset bit
// for bit and the same first error, for every thread count and block size, on the test corpus,
// on the fuzzers' corpus and on random files seeded with errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "dataset_compare.hpp"
#include "io/csv_parse.hpp"
#include "io/read_phases.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

namespace fs = std::filesystem;
using test::outcome;

// Block sizes: tiny (a line or two per block, pieces often empty), middling, and the default
// (the chunk). Every block is two rounds of the threads: the tiniest are for the small files.
const std::vector<std::size_t> kAllBlockSizes = {1, 7, 64, 1000, 0};
const std::vector<std::size_t> kSomeBlockSizes = {64, 400, 0};

std::string serial_from_file(const std::string& path, std::size_t chunk) {
  return outcome([&] {
    detail::LineReader lines(path, chunk);
    return detail::read_dataset_csv(lines, "", true, 0);
  });
}

// Checks every thread count and block size, from a file (read in `chunk`-byte chunks) and from
// memory, against the serial reader.
void expect_same_as_serial(const std::string& path, const std::string& text,
                           const std::vector<std::size_t>& block_sizes) {
  const std::string expected = serial_from_file(path, 4096);
  for (int threads = 1; threads <= 4; ++threads) {
    for (const std::size_t block : block_sizes) {
      for (const std::size_t chunk : {std::size_t{16}, std::size_t{4096}}) {
        EXPECT_EQ(outcome([&] {
                    detail::LineReader lines(path, chunk);
                    return detail::read_dataset_csv(lines, "", true, 0, threads, block);
                  }),
                  expected)
            << path << " threads " << threads << " block " << block << " chunk " << chunk;
      }
      const std::string memory = outcome([&] {
        detail::LineReader lines(path, text);
        return detail::read_dataset_csv(lines, "", true, 0, threads, block);
      });
      EXPECT_EQ(memory, expected) << path << " (in memory) threads " << threads;
    }
    EXPECT_EQ(outcome([&] { return read_dataset_csv(path, "", true, 0, threads); }), expected)
        << path << " public, threads " << threads;
  }
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  const fs::path roots[] = {fs::path(CORESET_TEST_DATA_DIR),
                            fs::path(CORESET_FUZZ_DIR) / "corpus" / "dataset_csv",
                            fs::path(CORESET_FUZZ_DIR) / "regressions" / "dataset_csv"};
  for (const fs::path& root : roots) {
    if (!fs::is_directory(root)) {
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && entry.path().extension() != ".npy") {
        files.push_back(entry.path());
      }
    }
  }
  return files;
}

TEST(DatasetCsvParallel, SameAsSerialOnTheCorpus) {
  const std::vector<fs::path> files = corpus();
  ASSERT_GE(files.size(), 20u);
  for (const fs::path& file : files) {
    expect_same_as_serial(file.string(), test::read_bytes(file.string()), kAllBlockSizes);
  }
}

// A random cell: mostly numbers in assorted spellings, sometimes quoted or padded.
std::string random_cell(std::mt19937_64& random) {
  std::uniform_real_distribution<double> uniform(-1e3, 1e3);
  char text[64];
  switch (random() % 8) {
    case 0:
      std::snprintf(text, sizeof text, "%.17g", uniform(random));
      return text;
    case 1:
      std::snprintf(text, sizeof text, "%.3e", uniform(random) * 1e-200);
      return text;
    case 2:
      return "\"" + std::to_string(static_cast<int>(random() % 100)) + "\"";
    case 3:
      return " +" + std::to_string(random() % 7) + ".5 ";
    default:
      std::snprintf(text, sizeof text, "%.6g", uniform(random));
      return text;
  }
}

// A mistake to plant in a row, or none.
std::string damage(std::mt19937_64& random, std::string row) {
  switch (random() % 7) {
    case 0:
      return row + ",7";  // ragged
    case 1:
      return "abc," + row;  // non-numeric (and ragged)
    case 2:
      return "";  // blank line in the middle
    case 3:
      return "nan" + row.substr(row.find(','));
    case 4:
      return "\"1" + row;  // unterminated quote
    case 5:
      return "1e999" + row.substr(row.find(','));
    default:
      return row + "\"";
  }
}

TEST(DatasetCsvParallel, SameAsSerialOnRandomFilesWithErrors) {
  test::TempDir dir;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 random(seed);
    const int cols = 1 + static_cast<int>(random() % 5);
    const int rows = 1 + static_cast<int>(random() % 200);
    const char delimiter = ",;\t"[random() % 3];
    const std::string newline = random() % 2 ? "\n" : "\r\n";
    std::string text = random() % 4 == 0 ? "\xEF\xBB\xBF" : "";
    for (int c = 0; c <= cols; ++c) {
      text += (c ? std::string(1, delimiter) : "") + "c" + std::to_string(c);
    }
    text += newline;
    // Half the files are clean; the others get a few errors, anywhere.
    const int errors = seed % 2 == 0 ? 0 : 1 + static_cast<int>(random() % 3);
    std::vector<int> bad_rows;
    for (int e = 0; e < errors; ++e) {
      bad_rows.push_back(static_cast<int>(random() % static_cast<unsigned>(rows)));
    }
    for (int r = 0; r < rows; ++r) {
      std::string row;
      for (int c = 0; c <= cols; ++c) {
        row += (c ? std::string(1, ',') : "") + random_cell(random);
      }
      if (std::find(bad_rows.begin(), bad_rows.end(), r) != bad_rows.end()) {
        row = damage(random, row);
      }
      for (char& ch : row) {
        ch = ch == ',' ? delimiter : ch;
      }
      text += row + newline;
    }
    text += random() % 2 ? newline + "  " + newline : "";
    if (random() % 3 == 0) {
      text.resize(text.size() - newline.size());  // no newline after the last row
    }
    const std::string path = dir.write("random" + std::to_string(seed) + ".csv", text);
    expect_same_as_serial(path, text, kSomeBlockSizes);
  }
}

TEST(DatasetCsvParallel, TheFirstErrorInFileOrderWinsWhicheverThreadFindsIt) {
  // Errors on lines 3 and 900: with 4 threads the later one is in another piece and is found
  // as early; the reader must still report line 3.
  std::string text = "a,b\n";
  for (int line = 2; line <= 1000; ++line) {
    text += line == 3 ? "1,x\n" : line == 900 ? "1,2,3\n" : "1,2\n";
  }
  test::TempDir dir;
  const std::string path = dir.write("two_errors.csv", text);
  for (int threads = 1; threads <= 4; ++threads) {
    const std::string message = test::expect_input_error_at(
        path, 3, 2, [&] { read_dataset_csv(path, "", true, 0, threads); });
    EXPECT_TRUE(test::contains(message, "non-numeric cell 'x'"));
  }
}

TEST(DatasetCsvParallel, RowsLandInOrderAcrossBlocksAndThreads) {
  // Row i holds i: any row placed at the wrong index shows.
  std::string text = "x,y\n";
  for (int i = 0; i < 5000; ++i) {
    text += std::to_string(i) + "," + std::to_string(-i) + "\n";
  }
  detail::LineReader lines("rows.csv", text);
  const Dataset data = detail::read_dataset_csv(lines, "", true, 0, 3, 100);
  ASSERT_EQ(data.rows(), 5000);
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(data.covariates(i, 0), i);
    ASSERT_EQ(data.response[static_cast<std::size_t>(i)], -i);
  }
}

TEST(DatasetCsvParallel, AFileThatShrinksAfterItsLinesWereCountedFailsAsInTheSerialReader) {
  std::string text = "a,b\n";
  for (int i = 0; i < 200; ++i) {
    text += std::to_string(i) + ",1\n";
  }
  test::TempDir dir;
  const std::string path = dir.write("shrinks.csv", text);
  const auto read_after_truncation = [&](int threads) {
    test::write_bytes(path, text);
    return outcome([&] {
      detail::LineReader lines(path, 64);  // counts 201 lines
      std::filesystem::resize_file(path, text.find('\n', text.size() / 2) + 1);
      return detail::read_dataset_csv(lines, "", true, 0, threads, 100);
    });
  };
  const std::string serial = read_after_truncation(0);
  EXPECT_TRUE(test::contains(serial, "were counted (was it changed while being read?)"));
  for (int threads = 1; threads <= 3; ++threads) {
    EXPECT_EQ(read_after_truncation(threads), serial) << threads;
  }
}

// bench_parse splits the parallel reader's time by phase (io/read_phases.hpp): a read from a file
// larger than its chunk counts the file's lines first, then takes, counts and parses each block,
// each recorded once per block; the serial reader records no block.
TEST(DatasetCsvParallel, TheParallelReaderRecordsEachPhaseOfEachBlock) {
  std::string text = "x,y\n";
  for (int i = 0; i < 2000; ++i) {
    text += std::to_string(i) + "," + std::to_string(i % 2) + "\n";
  }
  test::TempDir dir;
  const std::string path = dir.write("phases.csv", text);
  const detail::ReadPhaseTotals before = detail::read_phase_totals();
  {
    detail::LineReader lines(path, 4096);
    const Dataset data = detail::read_dataset_csv(lines, "", true, 0, 2, 1000);
    ASSERT_EQ(data.rows(), 2000);
  }
  const detail::ReadPhaseTotals after = detail::read_phase_totals();
  // About 13 KB in blocks of about 1000 bytes (16 blocks when written).
  EXPECT_GE(after.blocks - before.blocks, 10);
  EXPECT_GT(after.line_count_ns, before.line_count_ns);
  EXPECT_GT(after.reading_ns, before.reading_ns);
  EXPECT_GT(after.counting_ns, before.counting_ns);
  EXPECT_GT(after.parsing_ns, before.parsing_ns);
  {
    detail::LineReader lines(path, 4096);
    ASSERT_EQ(detail::read_dataset_csv(lines, "", true, 0).rows(), 2000);
  }
  EXPECT_EQ(detail::read_phase_totals().blocks, after.blocks);
}

TEST(DatasetCsvParallel, NegativeThreadCountIsRefused) {
  test::TempDir dir;
  const std::string path = dir.write("d.csv", "a,y\n1,2\n");
  EXPECT_THROW(read_dataset_csv(path, "", true, 0, -1), InvalidArgument);
}

}  // namespace
}  // namespace coreset::io
