#include "cli/outputs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "cli/interrupt.hpp"
#include "coreset/error.hpp"

namespace coreset::cli {
namespace {

// `.<name>.staged.<pid>.<i>` beside the target; the name is cut to stay within 255 bytes.
std::string staging_path(const std::string& path, std::size_t i) {
  const std::filesystem::path target(path);
  std::string name = target.filename().string();
  if (name.size() > 180) {
    name.resize(180);
  }
  name = "." + name + ".staged." + std::to_string(::getpid()) + "." + std::to_string(i);
  return (target.parent_path() / name).string();
}

// Removes the staged files that were not renamed, whatever happens.
struct StagedFiles {
  std::vector<std::string> paths;  // staged, not yet renamed
  ~StagedFiles() {
    for (const std::string& path : paths) {
      if (!path.empty()) {
        std::remove(path.c_str());
      }
    }
  }
};

}  // namespace

void Outputs::add(const std::string& path, std::function<void(const std::string&)> write) {
  if (!path.empty()) {
    entries_.push_back({path, std::move(write)});
  }
}

void Outputs::commit() {
  const OutputDeferral deferral;
  throw_if_interrupted();
  StagedFiles staged;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const std::string path = staging_path(entries_[i].path, i);
    staged.paths.push_back(path);
    try {
      entries_[i].write(path);
    } catch (const OutputError& error) {
      // The writer names the staging file; the user knows the target.
      std::string message = error.what();
      const std::size_t at = message.find(path);
      if (at != std::string::npos) {
        message.replace(at, path.size(), entries_[i].path);
      }
      throw OutputError(message);
    }
  }
  throw_if_interrupted();  // the last moment at which nothing has appeared yet
  std::vector<std::string> renamed;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (std::rename(staged.paths[i].c_str(), entries_[i].path.c_str()) != 0) {
      const int error_number = errno;
      for (const std::string& done : renamed) {
        std::remove(done.c_str());
      }
      throw OutputError("cannot write " + entries_[i].path + ": " + std::strerror(error_number));
    }
    staged.paths[i].clear();
    renamed.push_back(entries_[i].path);
  }
}

}  // namespace coreset::cli
