// The exceptions libcoreset throws. Each one says what was wrong and where; the `coreset` command
// turns each kind into a documented exit code (README, "Exit codes").
#pragma once

#include <stdexcept>
#include <string>

#include "coreset/types.hpp"

namespace coreset {

/// Base of every error libcoreset throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parameter or option has a value outside its domain (k < 1, a negative tolerance, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// An input file could not be read or its contents are malformed or out of domain.
/// The message starts with "FILE:LINE:COLUMN: " (or "FILE: " when no position applies).
class InputError : public Error {
 public:
  InputError(std::string file, const std::string& message, index_t line = 0, index_t column = 0);

  const std::string& file() const noexcept { return file_; }
  /// 1-based line of the offending text, or 0 when the format has no lines (.npy).
  index_t line() const noexcept { return line_; }
  /// 1-based column (field number for CSV), or 0 when not applicable.
  index_t column() const noexcept { return column_; }

 private:
  std::string file_;
  index_t line_;
  index_t column_;
};

/// A numerical procedure failed on valid input (e.g. the Laplace fit did not converge); the
/// message says which and why.
class NumericalError : public Error {
 public:
  using Error::Error;
};

/// An output file could not be written. No partial file is left behind.
class OutputError : public Error {
 public:
  using Error::Error;
};

}  // namespace coreset
