// The exceptions libcoreset throws. Each one says what was wrong and where; the `coreset` command
// turns each kind into a documented exit code (README, "Exit codes").
//
// Every entry point of the library reports failure by throwing one of these (their messages are
// meant for the user), or std::bad_alloc when memory runs out; none returns an
// error code (the command exits with code 5 for std::bad_alloc). Catch coreset::Error to handle
// them all. A writer that throws leaves no partial file. The exception objects are immutable
// after construction, so their const members may be called from any thread.
#pragma once

#include <stdexcept>
#include <string>

#include "coreset/export.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// Base of every error libcoreset throws on purpose. what() is the full message.
class CORESET_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parameter or option has a value outside its domain (k < 1, a negative tolerance, a prior
/// covariance that is not positive definite, ...), or arguments that do not fit together (a
/// vector whose length does not match a matrix). The message names the option and the value.
/// The `coreset` command exits with code 2 (usage error) for it.
class CORESET_API InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// An input file could not be read, or its contents (or a Dataset's values) are malformed or
/// outside the model's domain. The message starts with "FILE:LINE:COLUMN: " ("FILE:LINE: " or
/// "FILE: " when no column or line applies; FILE is Dataset::source for data built in memory,
/// possibly empty). The `coreset` command exits with code 3 for it.
class CORESET_API InputError : public Error {
 public:
  /// Composes the message "file:line:column: message", leaving out a line or column that is 0.
  InputError(std::string file, const std::string& message, index_t line = 0, index_t column = 0);

  /// The file (or Dataset::source) the error is in, as given to the constructor.
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
/// message says which and why, and usually what to change. Exit code 6 for the command.
class CORESET_API NumericalError : public Error {
 public:
  using Error::Error;
};

/// An output file could not be written (folder missing or not writable, disk full, ...). No
/// partial file is left behind, and an existing file of that name is left as it was. Exit code 4
/// for the command.
class CORESET_API OutputError : public Error {
 public:
  using Error::Error;
};

/// The computation was stopped because SolverOptions::progress asked it to
/// (ProgressObserver::stop_requested, e.g. on Ctrl-C). Nothing partial is returned or written. The
/// `coreset` command exits with 130 after SIGINT and 143 after SIGTERM.
class CORESET_API Cancelled : public Error {
 public:
  using Error::Error;
};

/// The GPU could not be used: it was asked for (Device::gpu) but none is usable (no driver, no
/// device, or a build without CUDA), Phi does not fit in its free memory (the message says how
/// much is needed and how much is free), or a CUDA or cuBLAS call failed (the message names the
/// call, its error and the source file and line). Exit code 7 for the command.
class CORESET_API DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace coreset
