#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::io {
namespace detail {
namespace {

// Distinguishes temporary files of concurrent writers within one process; the pid separates
// processes.
std::atomic<unsigned long> temp_counter{0};

// Leaves room for the ".tmp.<pid>.<counter>" suffix within the usual 255-byte name limit.
constexpr std::size_t kMaxNameInTempName = 200;

std::string make_temp_path(const std::string& path) {
  const std::filesystem::path target(path);
  std::string name = target.filename().string();
  if (name.size() > kMaxNameInTempName) {
    name.resize(kMaxNameInTempName);
  }
  name = "." + name + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(temp_counter.fetch_add(1));
  return (target.parent_path() / name).string();
}

// Makes the rename itself durable. Best effort: some filesystems cannot sync directories, and
// the data is already safe in the renamed file.
void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) {
    dir = ".";
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const std::filesystem::path target(path_);
  if (path_.empty() || !target.has_filename()) {
    throw OutputError("cannot write '" + path_ + "': not a file name");
  }
  const OutputDestination where = io::output_destination(path_);
  destination_ = where.path;
  if (where.write_into) {
    file_ = std::fopen(destination_.c_str(), "wb");
  } else {
    temp_path_ = make_temp_path(destination_);
    // "x": never clobber a file another writer happens to be using under the same name.
    file_ = std::fopen(temp_path_.c_str(), "wbx");
  }
  if (file_ == nullptr) {
    const int error_number = errno;
    throw OutputError("cannot write " + path_ + ": " + std::strerror(error_number));
  }
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
  if (!finished_ && !temp_path_.empty()) {
    std::remove(temp_path_.c_str());
  }
}

void AtomicFile::fail(int error_number) {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!temp_path_.empty()) {
    std::remove(temp_path_.c_str());
  }
  finished_ = true;
  throw OutputError("cannot write " + path_ + ": " + std::strerror(error_number));
}

void AtomicFile::write(const void* data, std::size_t size) {
  if (file_ == nullptr) {
    throw OutputError("cannot write " + path_ + ": file already closed");
  }
  errno = 0;
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    fail(errno != 0 ? errno : EIO);
  }
}

void AtomicFile::commit() {
  if (file_ == nullptr) {
    throw OutputError("cannot write " + path_ + ": file already closed");
  }
  // Buffered data and close() are where a full disk is usually first reported.
  if (std::fflush(file_) != 0) {
    fail(errno);
  }
  // A device or a FIFO has nothing to sync (fsync fails there with EINVAL) and nothing to rename.
  if (!temp_path_.empty() && ::fsync(::fileno(file_)) != 0) {
    fail(errno);
  }
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) {
    fail(errno);
  }
  if (temp_path_.empty()) {
    finished_ = true;
    return;
  }
  if (std::rename(temp_path_.c_str(), destination_.c_str()) != 0) {
    fail(errno);
  }
  finished_ = true;
  sync_directory_of(destination_);
}

}  // namespace detail

OutputDestination output_destination(const std::string& path) {
  namespace fs = std::filesystem;
  OutputDestination where{path, false};
  std::error_code error;
  if (fs::is_symlink(path, error)) {
    // The file the link names, even one that does not exist yet; a relative target is relative
    // to the link's folder.
    fs::path target = fs::read_symlink(path, error);
    if (!error) {
      if (target.is_relative()) {
        target = fs::path(path).parent_path() / target;
      }
      const fs::path resolved = fs::weakly_canonical(target, error);
      if (!error) {
        where.path = resolved.string();
      }
    }
  }
  const fs::file_status status = fs::status(where.path, error);
  where.write_into =
      fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
  return where;
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  detail::AtomicFile file(path);
  file.write(contents.data(), contents.size());
  file.commit();
}

}  // namespace coreset::io
