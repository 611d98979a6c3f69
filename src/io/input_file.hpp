// Reading side of the io layer: an input file opened for large unbuffered reads, with every
// failure reported as InputError naming the file, and the same random-access interface over bytes
// in memory (for the in-memory entry points the fuzz targets use).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "coreset/error.hpp"

namespace coreset::io::detail {

/// The bytes this thread has read from InputFiles so far: what tests check a rank's share of a
/// file costs (each rank a thread).
inline std::int64_t& thread_bytes_read() noexcept {
  thread_local std::int64_t bytes = 0;
  return bytes;
}

/// Bytes read by offset: a file or a buffer in memory.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// The name errors carry.
  virtual const std::string& path() const noexcept = 0;
  /// Size in bytes; -1 for pipes and devices.
  virtual std::int64_t size() const noexcept = 0;
  /// Reads exactly `size` bytes at byte `offset`; InputError when they are not there.
  virtual void read_at(std::int64_t offset, void* data, std::size_t size) = 0;
};

/// Bytes in memory (not copied: they must outlive the source), reported under `name`.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string name, std::string_view bytes) : name_(std::move(name)), bytes_(bytes) {}
  const std::string& path() const noexcept override { return name_; }
  std::int64_t size() const noexcept override { return static_cast<std::int64_t>(bytes_.size()); }
  void read_at(std::int64_t offset, void* data, std::size_t size) override {
    if (offset < 0 || static_cast<std::uint64_t>(offset) > bytes_.size() ||
        size > bytes_.size() - static_cast<std::size_t>(offset)) {
      throw InputError(name_, "unexpected end of data");
    }
    if (size > 0) {
      std::memcpy(data, bytes_.data() + offset, size);
    }
  }

 private:
  std::string name_;
  std::string_view bytes_;
};

class InputFile final : public ByteSource {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      const int error_number = errno;
      throw InputError(path_, std::string("cannot open file: ") + std::strerror(error_number));
    }
    struct stat info {};
    if (::fstat(::fileno(file_), &info) != 0) {
      const int error_number = errno;
      std::fclose(file_);
      throw InputError(path_, std::string("cannot open file: ") + std::strerror(error_number));
    }
    if (S_ISDIR(info.st_mode)) {
      std::fclose(file_);
      throw InputError(path_, std::string("cannot open file: ") + std::strerror(EISDIR));
    }
    size_ = S_ISREG(info.st_mode) ? static_cast<std::int64_t>(info.st_size) : -1;
    // Every read is large; stdio's buffer would only add a copy.
    std::setvbuf(file_, nullptr, _IONBF, 0);
  }
  ~InputFile() override { std::fclose(file_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const noexcept override { return path_; }
  /// Size in bytes of a regular file; -1 for pipes and devices.
  std::int64_t size() const noexcept override { return size_; }

  /// Reads up to `size` bytes from the current position; returns fewer only at end of file.
  std::size_t read_some(void* data, std::size_t size) {
    const std::size_t got = std::fread(data, 1, size, file_);
    if (got < size && std::ferror(file_)) {
      const int error_number = errno;
      throw InputError(path_, std::string("read error: ") + std::strerror(error_number));
    }
    position_ += static_cast<std::int64_t>(got);
    thread_bytes_read() += static_cast<std::int64_t>(got);
    return got;
  }

  /// The read position: the byte read_some reads next.
  std::int64_t position() const noexcept { return position_; }
  /// Moves the read position to byte `offset`.
  void seek(std::int64_t offset) {
    if (offset != position_) {
      if (::fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
        const int error_number = errno;
        throw InputError(path_, std::string("seek error: ") + std::strerror(error_number));
      }
      position_ = offset;
    }
  }

  /// Reads up to `size` bytes at byte `offset` (fewer only at the end of the file) without
  /// moving the read position: safe from several threads at once on one InputFile, every range
  /// read from the file that was opened (a file renamed over the path meanwhile is not seen).
  std::size_t read_some_at(std::int64_t offset, void* data, std::size_t size) const {
    auto* bytes = static_cast<char*>(data);
    std::size_t got = 0;
    while (got < size) {
      const ssize_t count = ::pread(::fileno(file_), bytes + got, size - got,
                                    static_cast<off_t>(offset + static_cast<std::int64_t>(got)));
      if (count < 0) {
        const int error_number = errno;
        if (error_number == EINTR) {
          continue;
        }
        throw InputError(path_, std::string("read error: ") + std::strerror(error_number));
      }
      if (count == 0) {
        break;
      }
      got += static_cast<std::size_t>(count);
    }
    thread_bytes_read() += static_cast<std::int64_t>(got);
    return got;
  }
  /// Reads exactly `size` bytes at byte `offset`, as read_some_at (the read position stays).
  void read_at(std::int64_t offset, void* data, std::size_t size) override {
    if (read_some_at(offset, data, size) != size) {
      throw InputError(path_, "unexpected end of file (was the file changed while being read?)");
    }
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::int64_t size_ = -1;
  std::int64_t position_ = 0;
};

}  // namespace coreset::io::detail
