#include "cli/outputs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "cli/interrupt.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::cli {
namespace {

// `.<name>.<what>.<pid>.<i>` beside `path`; the name is cut to stay within 255 bytes.
std::string beside(const std::string& path, const char* what, std::size_t i) {
  const std::filesystem::path target(path);
  std::string name = target.filename().string();
  if (name.size() > 180) {
    name.resize(180);
  }
  name = "." + name + "." + what + "." + std::to_string(::getpid()) + "." + std::to_string(i);
  return (target.parent_path() / name).string();
}

// Removes the files it holds (staged and not renamed, or the previous versions kept until the
// run's outputs are all in place), whatever happens.
struct TemporaryFiles {
  std::vector<std::string> paths;
  ~TemporaryFiles() {
    for (const std::string& path : paths) {
      if (!path.empty()) {
        std::remove(path.c_str());
      }
    }
  }
};

// Runs `write` for `entry_path` into `into`, with the target's name in the error message.
void write_entry(const std::function<void(const std::string&)>& write,
                 const std::string& entry_path, const std::string& into) {
  try {
    write(into);
  } catch (const OutputError& error) {
    // The writer names the staging file; the user knows the target.
    std::string message = error.what();
    const std::size_t at = message.find(into);
    if (at != std::string::npos && into != entry_path) {
      message.replace(at, into.size(), entry_path);
    }
    throw OutputError(message);
  }
}

}  // namespace

void Outputs::add(const std::string& path, std::function<void(const std::string&)> write) {
  if (!path.empty()) {
    entries_.push_back({path, std::move(write)});
  }
}

void Outputs::commit() {
  const OutputDeferral deferral;
  throw_if_interrupted();
  const std::size_t count = entries_.size();
  // Where each output lands: a link's file (the link stays), or a device or FIFO written into.
  std::vector<io::OutputDestination> destinations;
  for (const Entry& entry : entries_) {
    destinations.push_back(io::output_destination(entry.path));
  }
  TemporaryFiles staged;
  staged.paths.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!destinations[i].write_into) {
      staged.paths[i] = beside(destinations[i].path, "staged", i);
      write_entry(entries_[i].write, entries_[i].path, staged.paths[i]);
    }
  }
  throw_if_interrupted();  // the last moment at which nothing has appeared yet

  // The renames. A file about to be replaced is kept under a second name (a hard link: the
  // target never goes missing) until every output is in place, so that a failure part way puts
  // back what was there instead of leaving the folder without it.
  TemporaryFiles previous;
  previous.paths.resize(count);
  std::vector<std::size_t> renamed;
  const auto undo = [&] {
    for (auto it = renamed.rbegin(); it != renamed.rend(); ++it) {
      const std::string& target = destinations[*it].path;
      std::string& kept = previous.paths[*it];
      if (kept.empty() || std::rename(kept.c_str(), target.c_str()) != 0) {
        std::remove(target.c_str());
      } else {
        kept.clear();
      }
    }
  };
  for (std::size_t i = 0; i < count; ++i) {
    if (destinations[i].write_into) {
      continue;
    }
    const std::string& target = destinations[i].path;
    const std::string kept = beside(target, "previous", i);
    if (::link(target.c_str(), kept.c_str()) == 0) {
      previous.paths[i] = kept;
    }
    if (std::rename(staged.paths[i].c_str(), target.c_str()) != 0) {
      const int error_number = errno;
      undo();
      throw OutputError("cannot write " + entries_[i].path + ": " + std::strerror(error_number));
    }
    staged.paths[i].clear();
    renamed.push_back(i);
  }
  // Devices and FIFOs last: what is written into them cannot be taken back.
  for (std::size_t i = 0; i < count; ++i) {
    if (destinations[i].write_into) {
      try {
        write_entry(entries_[i].write, entries_[i].path, entries_[i].path);
      } catch (const OutputError&) {
        undo();
        throw;
      }
    }
  }
}

}  // namespace coreset::cli
