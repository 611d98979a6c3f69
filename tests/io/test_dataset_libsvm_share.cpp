// A rank's share of a LIBSVM file found by byte range (DatasetReadOptions::communicator): the
// same Dataset as the whole file's cut to the share (rank and ranks), with the rows' place found
// past leading and trailing comments and blank lines, D the largest index over every rank's rows;
// errors, found in one rank's share or in the file as a whole, the same on every rank; and no
// rank reads all of the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
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

struct Layout {
  std::string name;
  std::string bom;      // "" or a UTF-8 byte-order mark
  std::string newline;  // "\n" or "\r\n"
  std::string head;     // lines before the first row
  std::string tail;     // after the last row's line end
  bool final_newline = true;
};

const Layout kPlain{"plain", "", "\n", "", "", true};

// `rows` rows "LABEL [qid:Q] I:V ..." with ascending indices below `max_index`, some with a
// comment after them, of assorted lengths so that the byte ranges cut lines anywhere; the
// largest index appears on one row only (row `widest`), so D is found on one rank.
std::string make_libsvm(const Layout& layout, index_t rows, index_t max_index, index_t widest,
                        std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string text = layout.bom + layout.head;
  for (index_t r = 0; r < rows; ++r) {
    if (r > 0) {
      text += layout.newline;
    }
    text += (random() % 2 ? "1" : "-1");
    if (r % 7 == 3) {
      text += " qid:" + std::to_string(random() % 5);
    }
    for (index_t i = 1 + static_cast<index_t>(random() % 3); i < max_index;
         i += 1 + static_cast<index_t>(random() % 4)) {
      char cell[40];
      std::snprintf(cell, sizeof cell, " %ld:%.*g", static_cast<long>(i),
                    1 + static_cast<int>(random() % 17),
                    std::ldexp(static_cast<double>(random() % 100000) - 50000.0, -7));
      text += cell;
    }
    if (r == widest) {
      text += " " + std::to_string(max_index) + ":0.5";
    }
    if (r % 11 == 5) {
      text += "  # a comment, with 3:4 in it";
    }
  }
  if (layout.final_newline) {
    text += layout.newline;
  }
  return text + layout.tail;
}

// What each of `ranks` ranks reads of `path` by byte range.
std::vector<std::string> byte_range_shares(const std::string& path, int ranks, index_t features,
                                           std::size_t chunk_bytes) {
  std::vector<std::string> shares(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    shares[static_cast<std::size_t>(comm->rank())] = share_outcome([&] {
      return detail::read_dataset_libsvm_by_byte_range(path, true, features, *comm, chunk_bytes);
    });
  });
  return shares;
}

// The same shares as rank and ranks read them (the whole file read on each rank, then cut).
std::vector<std::string> scanned_shares(const std::string& path, int ranks, index_t features) {
  std::vector<std::string> shares;
  for (int r = 0; r < ranks; ++r) {
    DatasetReadOptions options;
    options.rank = r;
    options.ranks = ranks;
    options.features = features;
    shares.push_back(share_outcome([&] { return read_dataset(path, options); }));
  }
  return shares;
}

class LibsvmShareTest : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

TEST_F(LibsvmShareTest, ByteRangeSharesEqualTheScannedSharesInEveryLayout) {
  std::string many_comments;  // more than the first window of lines looked at from the end
  for (int i = 0; i < 150; ++i) {
    many_comments += "# trailing comment " + std::to_string(i) + "\n";
  }
  const std::vector<Layout> layouts = {
      kPlain,
      {"byte-order mark, CRLF", "\xEF\xBB\xBF", "\r\n", "", "", true},
      {"comments and blank lines around the rows", "", "\n", "# head\n\n  # more\n",
       "\n# tail\n  \n", true},
      {"150 trailing comment lines", "", "\n", "", many_comments, true},
      {"no final line end", "", "\n", "\n", "", false},
  };
  const index_t rows = 3 * kReductionBlock + 20;  // 4 blocks: 5 ranks leave one without rows
  for (const Layout& layout : layouts) {
    SCOPED_TRACE(layout.name);
    // The widest row is rank 1's of 2 ... 5: the others learn D from it.
    const std::string path =
        dir_.write("d.svm", make_libsvm(layout, rows, 40, 2 * kReductionBlock + 30, 7));
    for (int ranks = 2; ranks <= 5; ++ranks) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      for (const index_t features : {index_t{0}, index_t{45}}) {
        const std::vector<std::string> expected = scanned_shares(path, ranks, features);
        ASSERT_TRUE(contains(expected.back(), "of " + std::to_string(rows))) << expected.back();
        for (const std::size_t chunk : {std::size_t{16}, std::size_t{0}}) {
          EXPECT_EQ(byte_range_shares(path, ranks, features, chunk), expected);
        }
      }
    }
  }
}

// Through the public option, also for files with fewer rows than ranks, and a single row.
TEST_F(LibsvmShareTest, TheCommunicatorOptionReadsTheSameSharesAsRankAndRanks) {
  for (const index_t rows : {index_t{1}, index_t{2}, kReductionBlock, kReductionBlock + 1}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const std::string path =
        dir_.write("r.svm", make_libsvm({"head", "", "\n", "# h\n", "#t\n", true}, rows, 6,
                                        rows - 1, static_cast<std::uint64_t>(rows)));
    for (int ranks = 2; ranks <= 3; ++ranks) {
      std::vector<std::string> got(static_cast<std::size_t>(ranks));
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        DatasetReadOptions options;
        options.communicator = comm;
        got[static_cast<std::size_t>(comm->rank())] =
            share_outcome([&] { return read_dataset(path, options); });
      });
      EXPECT_EQ(got, scanned_shares(path, ranks, 0));
    }
  }
}

// An error in one rank's rows (a gap between rows, a bad pair, an index beyond --features) is
// the serial reader's error, line and column, on every rank, which names the rank that found it:
// D needs every rank's rows, so none goes on alone.
TEST_F(LibsvmShareTest, AnErrorInOneSharesRowsIsTheSerialErrorOnEveryRank) {
  const index_t rows = 3 * kReductionBlock;
  const std::string text = make_libsvm(kPlain, rows, 12, 0, 11);
  // Row 2 * 256 + 5 (rank 2's of 3) is line 2 * 256 + 6.
  const index_t bad_line = 2 * kReductionBlock + 6;
  std::size_t at = 0;
  for (index_t line = 1; line < bad_line; ++line) {
    at = text.find('\n', at) + 1;
  }
  const std::size_t end = text.find('\n', at);
  struct Case {
    std::string name;
    std::string line;  // the bad line's new text
    index_t features;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"gap", "  # nothing here", 0, "blank or comment-only line between data rows"},
      {"bad pair", "1 3:x", 0, "@" + std::to_string(bad_line) + ":2"},
      {"beyond --features", "1 20:1", 15, "exceeds the number of features"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string bad = text;
    bad.replace(at, end - at, c.line);
    const std::string path = dir_.write("bad.svm", bad);
    const std::string serial = digest(outcome([&] {
      DatasetReadOptions options;
      options.features = c.features;
      return read_dataset(path, options);
    }));
    ASSERT_TRUE(contains(serial, c.expected)) << serial;
    ASSERT_TRUE(contains(serial, "@" + std::to_string(bad_line) + ":")) << serial;
    for (const std::string& share : byte_range_shares(path, 3, c.features, 0)) {
      // The serial message with the finding rank named, then the same line and column.
      const std::string message = serial.substr(0, serial.find(" @"));
      EXPECT_TRUE(contains(share, message + " (rank 2 of 3)")) << share << "\nvs " << serial;
      EXPECT_TRUE(contains(share, serial.substr(serial.find(" @")))) << share;
    }
  }
}

// What is wrong with the file as a whole is found by every rank alike.
TEST_F(LibsvmShareTest, ErrorsOfTheWholeFileAreTheSameOnEveryRank) {
  const std::vector<std::string> files = {"", "  \n\n", "# only\n# comments\n",
                                          "1\n-1 # no pairs\n"};
  for (const std::string& text : files) {
    SCOPED_TRACE(text);
    const std::string path = dir_.write("e.svm", text);
    const std::string serial = digest(outcome([&] { return read_dataset(path); }));
    ASSERT_TRUE(contains(serial, "InputError")) << serial;
    const std::vector<std::string> shares = byte_range_shares(path, 3, 0, 0);
    for (const std::string& share : shares) {
      EXPECT_EQ(share, shares[0]);
      EXPECT_TRUE(contains(share, serial.substr(0, serial.find(" @"))))
          << share << " vs " << serial;
    }
  }
}

// No rank reads the whole file: each reads its 1/R for line ends, at most one other 1/R to find
// where its share starts, the first lines, and its share's text twice (checked, then filled),
// with a chunk read ahead each time; the last rank also looks for the end (at most one more 1/R).
TEST_F(LibsvmShareTest, EachRankReadsAboutItsPartOfTheFile) {
  const int ranks = 4;
  const index_t rows = 64 * kReductionBlock;
  const std::string text = make_libsvm(kPlain, rows, 10, 5, 3);
  const std::string path = dir_.write("big.svm", text);
  const auto size = static_cast<std::int64_t>(text.size());
  const std::size_t chunk = 4096;
  std::vector<std::int64_t> read(ranks);
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    const std::int64_t before = detail::thread_bytes_read();
    detail::read_dataset_libsvm_by_byte_range(path, true, 0, *comm, chunk);
    read[static_cast<std::size_t>(comm->rank())] = detail::thread_bytes_read() - before;
  });
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t most = (r == ranks - 1 ? 5 : 4) * size / ranks + 4 * 4096 + 4 * chunk;
    EXPECT_LE(read[static_cast<std::size_t>(r)], most)
        << "rank " << r << " of a " << size << "-byte file";
  }
}

}  // namespace
}  // namespace coreset::io
