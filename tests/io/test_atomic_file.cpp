#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

using test::contains;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

class AtomicFileTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(AtomicFileTest, WritesExactBytesAndLeavesNoTemporaryFile) {
  const std::string path = dir_.file("out.bin");
  const std::string contents("a\0b\nc\r\n\xff", 8);
  write_file_atomic(path, contents);
  EXPECT_EQ(read_bytes(path), contents);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"out.bin"});
}

TEST_F(AtomicFileTest, EmptyContents) {
  const std::string path = dir_.file("empty.txt");
  write_file_atomic(path, "");
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

TEST_F(AtomicFileTest, OverwriteReplacesTheWholeFile) {
  const std::string path = dir_.file("out.txt");
  write_bytes(path, std::string(10000, 'x'));
  write_file_atomic(path, "short\n");
  EXPECT_EQ(read_bytes(path), "short\n");
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"out.txt"});
}

TEST_F(AtomicFileTest, MissingFolderThrowsAndLeavesNothing) {
  const std::string path = dir_.file("missing/out.txt");
  try {
    write_file_atomic(path, "data");
    FAIL() << "expected OutputError";
  } catch (const OutputError& error) {
    EXPECT_TRUE(contains(error.what(), path));
  }
  EXPECT_TRUE(dir_.entries().empty());
}

// The rename fails only after the temporary file was written in full; it must still go.
TEST_F(AtomicFileTest, FailedRenameRemovesTheTemporaryFile) {
  const std::string path = dir_.file("taken");
  std::filesystem::create_directory(path);
  write_bytes(dir_.file("taken/inside.txt"), "keep");
  EXPECT_THROW(write_file_atomic(path, "data"), OutputError);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"taken"});
  EXPECT_EQ(read_bytes(dir_.file("taken/inside.txt")), "keep");
}

TEST_F(AtomicFileTest, UnwritableFolderKeepsTheOldFile) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "permissions do not apply to root";
  }
  const std::string path = dir_.file("out.txt");
  write_bytes(path, "old");
  ::chmod(dir_.path().c_str(), 0555);
  EXPECT_THROW(write_file_atomic(path, "new"), OutputError);
  ::chmod(dir_.path().c_str(), 0755);
  EXPECT_EQ(read_bytes(path), "old");
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"out.txt"});
}

// A write that fails midway (here: the file-size limit, as a full disk would) must be reported
// and must leave the previous file untouched.
TEST_F(AtomicFileTest, FailedWriteKeepsTheOldFileAndRemovesTheTemporary) {
  const std::string path = dir_.file("out.txt");
  write_bytes(path, "old");
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 4096;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    write_file_atomic(path, std::string(1 << 20, 'x'));
  } catch (const OutputError& error) {
    threw = true;
    EXPECT_TRUE(contains(error.what(), path));
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(read_bytes(path), "old");
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"out.txt"});
}

// Concurrent writers of one target each use their own temporary file, so the result is one
// complete version, never a mixture, and nothing is left over.
TEST_F(AtomicFileTest, ConcurrentWritersNeverMix) {
  const std::string path = dir_.file("shared.txt");
  constexpr int kWriters = 8;
  std::vector<std::string> versions;
  for (int w = 0; w < kWriters; ++w) {
    versions.push_back(
        std::string(100000 + static_cast<std::size_t>(w), static_cast<char>('a' + w)));
  }
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < 10; ++round) {
        write_file_atomic(path, versions[static_cast<std::size_t>(w)]);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  const std::string result = read_bytes(path);
  bool is_one_version = false;
  for (const std::string& version : versions) {
    is_one_version = is_one_version || result == version;
  }
  EXPECT_TRUE(is_one_version);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"shared.txt"});
}

// A symbolic link is written through: the file it names gets the contents, the link stays.
TEST_F(AtomicFileTest, ASymbolicLinkIsWrittenThroughAndStaysALink) {
  const std::string real = dir_.file("real.csv");
  const std::string link = dir_.file("link.csv");
  write_bytes(real, "old\n");
  std::filesystem::create_symlink("real.csv", link);
  write_file_atomic(link, "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_bytes(real), "new\n");
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"link.csv", "real.csv"}));
}

TEST_F(AtomicFileTest, ALinkToAFileNotYetMadeMakesThatFile) {
  std::filesystem::create_directories(dir_.file("sub"));
  const std::string link = dir_.file("link.csv");
  std::filesystem::create_symlink("sub/made.csv", link);
  EXPECT_EQ(output_destination(link).path,
            std::filesystem::weakly_canonical(dir_.file("sub/made.csv")).string());
  write_file_atomic(link, "made\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_bytes(dir_.file("sub/made.csv")), "made\n");
}

// A FIFO (like /dev/null, which a test must not risk) is written into, not replaced: a rename
// onto it would leave a regular file where the reader waits.
TEST_F(AtomicFileTest, AFifoIsWrittenIntoAndStaysAFifo) {
  const std::string fifo = dir_.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(output_destination(fifo).write_into);
  std::future<std::string> read = std::async(std::launch::async, [&] { return read_bytes(fifo); });
  write_file_atomic(fifo, "through the pipe\n");
  EXPECT_EQ(read.get(), "through the pipe\n");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"pipe"});
}

TEST_F(AtomicFileTest, DevicesAreWrittenIntoRegularFilesReplaced) {
  if (std::filesystem::exists("/dev/null")) {
    EXPECT_TRUE(output_destination("/dev/null").write_into);  // asked, not written
  }
  const std::string path = dir_.file("plain.csv");
  EXPECT_FALSE(output_destination(path).write_into);
  write_bytes(path, "x");
  EXPECT_FALSE(output_destination(path).write_into);
  EXPECT_EQ(output_destination(path).path, path);
}

}  // namespace
}  // namespace coreset::io
