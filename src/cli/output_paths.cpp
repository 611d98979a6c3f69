#include "cli/output_paths.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::cli {
namespace {

namespace fs = std::filesystem;
using io::output_destination;
using io::OutputDestination;

// Whether a and b name one file: the same file through any links when both exist, the same
// absolute path (links in the existing part resolved) when neither does.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  const bool a_exists = fs::exists(a, error);
  if (a_exists != fs::exists(b, error)) {
    return false;
  }
  if (a_exists) {
    return fs::equivalent(a, b, error) && !error;
  }
  // Absolute first: weakly_canonical leaves a relative path whose first part does not exist
  // as it is, so "dup.csv" and "./dup.csv" would differ.
  const fs::path a_path = fs::weakly_canonical(fs::absolute(a, error), error);
  if (error) {
    return false;
  }
  const fs::path b_path = fs::weakly_canonical(fs::absolute(b, error), error);
  return !error && a_path == b_path;
}

}  // namespace

void check_writable_destination(const std::string& path, const char* option) {
  if (path.empty()) {
    return;
  }
  const std::string named = std::string(option) + " " + path;
  const OutputDestination where = output_destination(path);
  if (where.write_into) {
    if (::access(where.path.c_str(), W_OK) != 0) {
      throw OutputError(named + ": cannot be written: " + std::strerror(errno));
    }
    return;
  }
  const fs::path target(where.path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw OutputError(named + ": folder '" + folder.string() + "' does not exist");
  }
  if (fs::is_directory(target, error)) {
    throw OutputError(named + ": is a folder, expected a file path");
  }
  // The file is staged in its folder and renamed into place there.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(named + ": folder '" + folder.string() + "' is not writable");
  }
}

void check_distinct_files(const std::vector<FileArgument>& outputs,
                          const std::vector<FileArgument>& inputs) {
  // Outputs are compared where they land (a link's file, even before it exists); those written
  // into (devices, FIFOs: empty here) may repeat.
  std::vector<std::string> landing;
  for (const FileArgument& output : outputs) {
    const OutputDestination where =
        output.path.empty() ? OutputDestination{} : output_destination(output.path);
    landing.push_back(where.write_into ? std::string() : where.path);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (landing[i].empty()) {
      continue;
    }
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (!landing[j].empty() && same_file(landing[i], landing[j])) {
        throw InvalidArgument(std::string(outputs[i].option) + " " + outputs[i].path + " and " +
                              outputs[j].option + " " + outputs[j].path +
                              " name the same file: give each output its own");
      }
    }
    for (const FileArgument& input : inputs) {
      if (!input.path.empty() && same_file(landing[i], input.path)) {
        throw InvalidArgument(std::string(outputs[i].option) + " " + outputs[i].path +
                              " would overwrite the input " + input.option + " " + input.path);
      }
    }
  }
}

void check_output_folder(const std::string& folder, const char* option,
                         const std::vector<std::string>& files) {
  std::error_code error;
  for (const std::string& file : files) {
    const fs::path target = fs::path(folder) / file;
    if (fs::is_directory(target, error)) {
      throw OutputError(std::string(option) + " " + folder + ": '" + target.string() +
                        "' is a folder, where the run writes a file");
    }
  }
  fs::path existing = folder;
  while (!existing.empty() && !fs::exists(existing, error)) {
    existing = existing.parent_path();
  }
  if (existing.empty()) {
    existing = ".";
  }
  if (!fs::is_directory(existing, error)) {
    throw OutputError(std::string(option) + " " + folder + ": '" + existing.string() +
                      "' exists and is not a folder");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw OutputError(std::string(option) + " " + folder + ": folder '" + existing.string() +
                      "' is not writable");
  }
}

void create_output_folder(const std::string& folder, const char* option) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    throw OutputError(std::string(option) + " " + folder +
                      ": cannot create the folder: " + error.message());
  }
}

}  // namespace coreset::cli
