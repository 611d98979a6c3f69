// A file that appears at its final path only once it is complete: writers stream into a
// temporary file beside the target and commit() renames it into place.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace coreset::io::detail {

class AtomicFile {
 public:
  /// Creates `<dir>/.<name>.tmp.<pid>.<counter>` beside the destination of `path`
  /// (io::output_destination), or opens the destination itself when it is written into. Throws
  /// OutputError.
  explicit AtomicFile(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Throws OutputError (and removes the temporary file) when the write fails.
  void write(const void* data, std::size_t size);
  /// Flushes, syncs and renames onto the target (a target written into: flushes and closes it).
  /// Throws OutputError.
  void commit();

 private:
  [[noreturn]] void fail(int error_number);

  std::string path_;         // as given, for the messages
  std::string destination_;  // what is renamed onto or written into
  std::string temp_path_;    // empty when the destination is written into
  std::FILE* file_ = nullptr;
  bool finished_ = false;  // renamed into place, or already cleaned up after a failure
};

}  // namespace coreset::io::detail
