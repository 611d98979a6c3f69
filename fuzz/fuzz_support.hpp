// Shared by the libFuzzer targets: what counts as a clean rejection, and the input as a file.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"

namespace coreset::fuzz {

/// The fuzzer's bytes as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `read`; a coreset::Error (InputError, InvalidArgument) is the reader rejecting the input
/// cleanly and is returned as its message. Anything else (another exception, a crash, a
/// sanitizer report, a hang) escapes and is a finding.
template <class Read>
std::string outcome(Read&& read) {
  try {
    read();
  } catch (const coreset::Error& error) {
    return error.what();
  }
  return "accepted";
}

/// The bytes in an anonymous in-memory file, readable by path (/proc/self/fd/N) like any other
/// file; closed when the object goes.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) {
    fd_ = ::memfd_create("fuzz", 0);
    if (fd_ < 0) {
      std::abort();
    }
    std::size_t done = 0;
    while (done < size) {
      const ssize_t wrote = ::write(fd_, data + done, size - done);
      if (wrote <= 0) {
        std::abort();
      }
      done += static_cast<std::size_t>(wrote);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

/// A dataset's shape, response column and every number's bytes: equal means bit-identical.
inline std::string fingerprint(const Dataset& data) {
  std::string text = std::to_string(data.rows()) + "x" + std::to_string(data.dims()) + "/" +
                     std::to_string(data.response_column) + "/" +
                     std::to_string(data.first_data_line) + ":";
  text.append(reinterpret_cast<const char*>(data.covariates.data()),
              static_cast<std::size_t>(data.rows() * data.dims()) * sizeof(double));
  text.append(reinterpret_cast<const char*>(data.response.data()),
              data.response.size() * sizeof(double));
  return text;
}

/// The message with the file name replaced, so that outcomes from a file and from memory compare.
inline std::string without_name(std::string message, const std::string& name) {
  if (message.compare(0, name.size(), name) == 0) {
    message.erase(0, name.size());
  }
  return message;
}

}  // namespace coreset::fuzz
