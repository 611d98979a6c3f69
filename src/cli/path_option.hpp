// The check every file and folder option takes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace coreset::cli {

/// An empty value (`--data "$UNSET"`) is a usage error naming the option. Taken as "not given",
/// it would run on the built-in data, or write nothing, and say nothing about it.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& value) {
        return value.empty() ? std::string("expected a path, got an empty value") : std::string();
      },
      "");
}

}  // namespace coreset::cli
