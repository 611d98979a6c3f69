// Checks that several options take, with messages that name the option and the value.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdlib>
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

/// A number >= 0 (CLI::NonNegativeNumber prints its range as 0 to 1.8e308 in full).
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& value) {
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        return end != value.c_str() && number >= 0.0 ? std::string()
                                                     : "expected a number >= 0, got " + value;
      },
      "NONNEGATIVE");
}

}  // namespace coreset::cli
