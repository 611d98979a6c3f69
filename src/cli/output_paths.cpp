#include "cli/output_paths.hpp"

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

}  // namespace coreset::cli
