#include "cli/output_paths.hpp"

#include <unistd.h>

#include <filesystem>

#include "coreset/error.hpp"

namespace coreset::cli {

void check_writable_destination(const std::string& path, const char* option) {
  if (path.empty()) {
    return;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path folder =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw OutputError(std::string(option) + " " + path + ": folder '" + folder.string() +
                      "' does not exist");
  }
  if (std::filesystem::is_directory(target, error)) {
    throw OutputError(std::string(option) + " " + path + ": is a folder, expected a file path");
  }
}

void check_output_folder(const std::string& folder, const char* option) {
  namespace fs = std::filesystem;
  std::error_code error;
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
