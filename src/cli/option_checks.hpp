// Checks that several options take, with messages that name the option and the value.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "coreset/solver.hpp"

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

/// A seed: a decimal integer from 0 to 2^64 - 1. Under CLI11's own conversion (strtoull) "-1"
/// would be 2^64 - 1, and a number above the range would become 2^64 - 1: both are refused.
inline CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& value) {
        const std::size_t first = value.find_first_not_of(" \t");
        const bool digits = first != std::string::npos && value[first] >= '0' &&
                            value[first] <= '9' &&
                            value.find_first_not_of("0123456789", first) == std::string::npos;
        errno = 0;
        if (digits) {
          std::strtoull(value.c_str() + first, nullptr, 10);
        }
        return digits && errno != ERANGE ? std::string()
                                         : "expected a seed from 0 to 2^64 - 1, got " + value;
      },
      "");
}

/// The ranges of SolverSettings' max_iterations and sync_every, as the library checks them, for
/// the options that set them: a value outside is refused by the option's name.
inline CLI::Range max_iterations_range() {
  return CLI::Range(1, kMaxIterationsLimit);
}
inline CLI::Range sync_every_range() {
  return CLI::Range(0, kSyncEveryLimit);
}

}  // namespace coreset::cli
