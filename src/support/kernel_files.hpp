// The kernel's small text files (sysfs, /proc, cgroupfs): read whole or by their first line,
// with an absent or unreadable file read as empty, since what the library asks of them is
// optional (a setting it falls back from).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace coreset::support {

/// The file's first line without its newline; "" when it is absent, unreadable or empty.
inline std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Every line of the file; none when it is absent or unreadable.
inline std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

}  // namespace coreset::support
