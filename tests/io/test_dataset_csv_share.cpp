// A rank's share of a CSV file found by byte range (DatasetReadOptions::communicator): the same
// Dataset as the share that scans the whole file (rank and ranks), in every dialect the reader
// takes and however the byte ranges cut the lines; errors in a rank's own rows on that rank
// alone, with the whole file's line and column; errors of the file itself on every rank alike;
// and no rank reads all of the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "dataset_compare.hpp"
#include "helpers/thread_communicator.hpp"
#include "io/input_file.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::digest;
using test::outcome;
using test::share_outcome;

// `rows` lines of `cols` numbers of assorted lengths under a header, in a given dialect.
struct Dialect {
  std::string name;
  std::string bom;      // "" or a UTF-8 byte-order mark
  std::string newline;  // "\n" or "\r\n"
  char delimiter;       // ',', ';' or '\t'
  std::string tail;     // after the last row's line end: "" or blank lines and spaces
  bool final_newline = true;
};

const Dialect kPlain{"plain", "", "\n", ',', "", true};

std::string make_csv(const Dialect& dialect, index_t rows, index_t cols, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string text = dialect.bom;
  for (index_t c = 0; c < cols; ++c) {
    text += (c ? std::string(1, dialect.delimiter) : "") + "\"col " + std::to_string(c) + "\"";
  }
  for (index_t r = 0; r < rows; ++r) {
    text += dialect.newline;
    for (index_t c = 0; c < cols; ++c) {
      // 1 to 17 significant digits, so that line lengths vary and the ranges cut lines anywhere.
      const int digits = 1 + static_cast<int>(random() % 17);
      char cell[40];
      std::snprintf(cell, sizeof cell, "%.*g", digits,
                    std::ldexp(static_cast<double>(random() % 100000) - 50000.0, -7));
      text += (c ? std::string(1, dialect.delimiter) : "") + cell;
    }
  }
  if (dialect.final_newline) {
    text += dialect.newline;
  }
  return text + dialect.tail;
}

// What each of `ranks` ranks reads of `path` by byte range.
std::vector<std::string> byte_range_shares(const std::string& path, int ranks, int threads,
                                           std::size_t chunk_bytes) {
  std::vector<std::string> shares(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    shares[static_cast<std::size_t>(comm->rank())] = share_outcome([&] {
      return detail::read_dataset_csv_by_byte_range(path, "", true, 0, threads, *comm, chunk_bytes);
    });
  });
  return shares;
}

// The same shares as rank and ranks read them (the whole file scanned on each rank).
std::vector<std::string> scanned_shares(const std::string& path, int ranks) {
  std::vector<std::string> shares;
  for (int r = 0; r < ranks; ++r) {
    DatasetReadOptions options;
    options.rank = r;
    options.ranks = ranks;
    shares.push_back(share_outcome([&] { return read_dataset(path, options); }));
  }
  return shares;
}

class CsvShareTest : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

TEST_F(CsvShareTest, ByteRangeSharesEqualTheScannedSharesInEveryDialect) {
  const std::vector<Dialect> dialects = {
      kPlain,
      {"byte-order mark", "\xEF\xBB\xBF", "\n", ',', "", true},
      {"CRLF", "", "\r\n", ',', "", true},
      {"semicolons and trailing blank lines", "", "\n", ';', "\n  \n\t\n", true},
      {"tabs, no final line end", "", "\n", '\t', "", false},
      {"CRLF, trailing spaces, no final line end", "", "\r\n", ',', "   ", false},
  };
  const index_t rows = 3 * kReductionBlock + 20;  // 4 blocks: 5 ranks leave one without rows
  for (const Dialect& dialect : dialects) {
    SCOPED_TRACE(dialect.name);
    const std::string path = dir_.write("d.csv", make_csv(dialect, rows, 3, 7));
    for (int ranks = 2; ranks <= 5; ++ranks) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::vector<std::string> expected = scanned_shares(path, ranks);
      ASSERT_TRUE(contains(expected.back(), "of " + std::to_string(rows))) << expected.back();
      // Tiny chunks make lines span chunks; 1 and 2 threads take the serial and parallel parse.
      for (const std::size_t chunk : {std::size_t{16}, std::size_t{0}}) {
        for (const int threads : {1, 2}) {
          EXPECT_EQ(byte_range_shares(path, ranks, threads, chunk), expected);
        }
      }
    }
  }
}

// Through the public option, also for files with fewer rows than ranks, and a single row.
TEST_F(CsvShareTest, TheCommunicatorOptionReadsTheSameSharesAsRankAndRanks) {
  for (const index_t rows : {index_t{1}, index_t{2}, kReductionBlock, kReductionBlock + 1}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const std::string path = dir_.write("r.csv", make_csv(kPlain, rows, 2, rows));
    for (int ranks = 2; ranks <= 3; ++ranks) {
      std::vector<std::string> got(static_cast<std::size_t>(ranks));
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        DatasetReadOptions options;
        options.communicator = comm;
        got[static_cast<std::size_t>(comm->rank())] =
            share_outcome([&] { return read_dataset(path, options); });
      });
      EXPECT_EQ(got, scanned_shares(path, ranks));
    }
  }
}

// A bad cell in one rank's rows: that rank alone fails, naming the whole file's line and column;
// the others read their shares.
TEST_F(CsvShareTest, ABadCellFailsOnlyTheRankWhoseRowsHoldIt) {
  const index_t rows = 3 * kReductionBlock;
  std::string text = make_csv(kPlain, rows, 3, 11);
  // Row 2 * 256 + 5 (rank 2's of 3) is line 2 * 256 + 7; its second cell becomes a word.
  const index_t bad_line = 2 * kReductionBlock + 7;
  std::size_t at = 0;
  for (index_t line = 1; line < bad_line; ++line) {
    at = text.find('\n', at) + 1;
  }
  text.insert(text.find(',', at) + 1, "oops");
  const std::string path = dir_.write("bad.csv", text);
  const std::vector<std::string> shares = byte_range_shares(path, 3, 1, 0);
  EXPECT_EQ(shares, scanned_shares(path, 3));
  EXPECT_FALSE(contains(shares[0], "InputError")) << shares[0];
  EXPECT_FALSE(contains(shares[1], "InputError")) << shares[1];
  EXPECT_TRUE(contains(shares[2], "@" + std::to_string(bad_line) + ":2")) << shares[2];
}

// What is wrong with the file itself (its header, no rows, no file) is found by every rank, which
// all throw the same error; one that needs the exchange names the rank it came from.
TEST_F(CsvShareTest, ErrorsOfTheWholeFileAreTheSameOnEveryRank) {
  const std::map<std::string, std::string> files = {
      {"empty", ""},
      {"blank", "  \n\n"},
      {"header only", "a,b\n"},
      {"duplicate names", "a,a\n1,2\n"},
      {"blank header", "\n1,2\n"},
  };
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    const std::string path = dir_.write("e.csv", text);
    const std::vector<std::string> shares = byte_range_shares(path, 3, 1, 0);
    const std::string serial = digest(outcome([&] { return read_dataset(path); }));
    ASSERT_TRUE(contains(serial, "InputError")) << serial;
    for (const std::string& share : shares) {
      EXPECT_EQ(share, serial);
    }
  }
  const std::vector<std::string> missing = byte_range_shares(dir_.file("none.csv"), 3, 1, 0);
  for (const std::string& share : missing) {
    EXPECT_EQ(share, missing[0]);
  }
  EXPECT_TRUE(contains(missing[0], "cannot open file")) << missing[0];
  EXPECT_TRUE(contains(missing[0], "(rank 0 of 3)")) << missing[0];
}

// A read inside a command's own on_every_rank step: the error agreed on inside is passed on as it
// is, its rank named once.
TEST_F(CsvShareTest, AnErrorAgreedInsideAStepIsNotNamedTwice) {
  const std::string path = dir_.file("none.csv");
  std::vector<std::string> messages(3);
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    DatasetReadOptions options;
    options.communicator = comm;
    try {
      on_every_rank(comm.get(), [&] { read_dataset(path, options); });
    } catch (const InputError& error) {
      messages[static_cast<std::size_t>(comm->rank())] = error.what();
    }
  });
  for (const std::string& message : messages) {
    EXPECT_EQ(message, messages[0]);
    EXPECT_EQ(message.find("(rank"), message.rfind("(rank")) << message;
  }
  EXPECT_TRUE(contains(messages[0], "(rank 0 of 3)")) << messages[0];
}

// No rank reads the whole file: each reads its 1/R for line ends, at most one other 1/R to find
// where its share starts, its share's text and a chunk beyond; scanning the whole file, as rank
// and ranks do, reads all of it at least once.
TEST_F(CsvShareTest, EachRankReadsAboutItsPartOfTheFile) {
  const int ranks = 4;
  const index_t rows = 64 * kReductionBlock;
  const std::string text = make_csv(kPlain, rows, 4, 3);
  const std::string path = dir_.write("big.csv", text);
  const auto size = static_cast<std::int64_t>(text.size());
  const std::size_t chunk = 4096;
  std::vector<std::int64_t> read(ranks);
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    const std::int64_t before = detail::thread_bytes_read();
    detail::read_dataset_csv_by_byte_range(path, "", true, 0, 1, *comm, chunk);
    read[static_cast<std::size_t>(comm->rank())] = detail::thread_bytes_read() - before;
  });
  for (int r = 0; r < ranks; ++r) {
    // Its own quarter, one more quarter at most, its share (about a quarter), the header's chunk
    // and one chunk read ahead.
    EXPECT_LE(read[static_cast<std::size_t>(r)], 3 * size / ranks + 2 * 4096 + 2 * chunk)
        << "rank " << r << " of a " << size << "-byte file";
  }
  DatasetReadOptions options;
  options.rank = 1;
  options.ranks = ranks;
  const std::int64_t before = detail::thread_bytes_read();
  read_dataset(path, options);
  EXPECT_GE(detail::thread_bytes_read() - before, size);
}

TEST_F(CsvShareTest, ACommunicatorTogetherWithRankAndRanksIsRefused) {
  const std::string path = dir_.write("x.csv", make_csv(kPlain, 4, 2, 1));
  test::run_ranks(2, [&](const std::shared_ptr<Communicator>& comm) {
    DatasetReadOptions options;
    options.communicator = comm;
    options.ranks = 2;
    options.rank = comm->rank();
    EXPECT_THROW(read_dataset(path, options), InvalidArgument);
  });
}

}  // namespace
}  // namespace coreset::io
