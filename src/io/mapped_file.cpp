#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "coreset/error.hpp"

namespace coreset::io::detail {
namespace {

[[noreturn]] void throw_open_error(const std::string& path, int error_number) {
  throw InputError(path, std::string("cannot open file: ") + std::strerror(error_number));
}

}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw_open_error(path_, errno);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    throw_open_error(path_, error_number);
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw_open_error(path_, EISDIR);
  }
  if (S_ISREG(info.st_mode)) {
    size_ = static_cast<std::int64_t>(info.st_size);
    length_ = static_cast<std::size_t>(info.st_size);
  }
  if (length_ > 0) {
    map_ = ::mmap(nullptr, length_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      const int error_number = errno;
      map_ = nullptr;
      ::close(fd);
      throw InputError(
          path_, std::string("cannot map the file into memory: ") + std::strerror(error_number));
    }
    // The data are read once, front to back (or column by column): read ahead generously.
    ::madvise(map_, length_, MADV_SEQUENTIAL);
  }
  ::close(fd);  // the mapping keeps the file
}

MappedFile::~MappedFile() {
  if (map_ != nullptr) {
    ::munmap(map_, length_);
  }
}

void MappedFile::read_at(std::int64_t offset, void* data, std::size_t size) {
  if (offset < 0 || static_cast<std::uint64_t>(offset) > length_ ||
      size > length_ - static_cast<std::size_t>(offset)) {
    throw InputError(path_, "unexpected end of file");
  }
  if (size > 0) {
    std::memcpy(data, static_cast<const char*>(map_) + offset, size);
  }
}

}  // namespace coreset::io::detail
