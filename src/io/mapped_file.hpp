// A file mapped into memory read-only (mmap), for formats read without parsing text (.npy
// datasets): the data are converted straight from the page cache, with no read into a buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/input_file.hpp"

namespace coreset::io::detail {

/// The whole file, mapped. A file that is not a regular one (a pipe, a device) is not mapped:
/// size() is then -1 and bytes() empty, so that the .npy header reader reports it. Failures to
/// open throw InputError as InputFile does. If another process truncates the file while it is
/// mapped, reading past the new end raises SIGBUS: a mapped file must not shrink while read.
class MappedFile final : public ByteSource {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile() override;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const noexcept override { return path_; }
  std::int64_t size() const noexcept override { return size_; }
  void read_at(std::int64_t offset, void* data, std::size_t size) override;
  /// The mapped bytes (empty for an empty or irregular file).
  std::string_view bytes() const noexcept { return {static_cast<const char*>(map_), length_}; }

 private:
  std::string path_;
  void* map_ = nullptr;
  std::size_t length_ = 0;
  std::int64_t size_ = -1;
};

}  // namespace coreset::io::detail
