// Helpers shared by the io tests: a scratch folder per test and raw file access.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "coreset/error.hpp"

namespace coreset::test {

/// A fresh, uniquely named folder under the system temporary folder, removed with its contents.
class TempDir {
 public:
  TempDir() {
    static std::atomic<unsigned> counter{0};
    const std::string name = "coreset_io_test_" + std::to_string(::getpid()) + "_" +
                             std::to_string(counter++) + "_" +
                             std::to_string(std::random_device{}());
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directory(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// Writes `bytes` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& bytes) const;

  /// Names of everything in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write test file " << path;
}

inline std::string TempDir::write(const std::string& name, const std::string& bytes) const {
  const std::string path = file(name);
  write_bytes(path, bytes);
  return path;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Whether `text` contains `part`, with both shown on failure.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

/// Runs `action`, which must throw InputError, and returns the error for further checks.
template <class Action>
InputError expect_input_error(Action&& action) {
  try {
    std::forward<Action>(action)();
  } catch (const InputError& error) {
    return error;
  } catch (const std::exception& other) {
    ADD_FAILURE() << "expected InputError, got: " << other.what();
    return InputError("", "");
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return InputError("", "");
}

/// Runs `read`, which must throw InputError naming `path` at `line` and `column`; returns the
/// message.
template <class Read>
std::string expect_input_error_at(const std::string& path, index_t line, index_t column,
                                  Read&& read) {
  const InputError error = expect_input_error(std::forward<Read>(read));
  EXPECT_EQ(error.file(), path);
  EXPECT_EQ(error.line(), line) << error.what();
  EXPECT_EQ(error.column(), column) << error.what();
  return error.what();
}

}  // namespace coreset::test
