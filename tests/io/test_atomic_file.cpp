#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
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

}  // namespace
}  // namespace coreset::io
