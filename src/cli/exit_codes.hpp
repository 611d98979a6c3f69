// The exit codes of the `coreset` command; README's "Exit codes" table lists the same.
#pragma once

#include <stdexcept>
#include <string>

namespace coreset::cli {

enum ExitCode : int {
  kSuccess = 0,
  kInternalError = 1,     // a bug or an unexpected system failure
  kUsageError = 2,        // bad command line: unknown option, missing or out-of-range value
  kInputError = 3,        // an input file is missing, unreadable, malformed or out of domain
  kOutputError = 4,       // an output file could not be written (nothing partial is left)
  kOutOfMemory = 5,       // the problem does not fit in memory
  kNumericalError = 6,    // a numerical procedure failed (e.g. the Laplace fit did not converge)
  kDeviceError = 7,       // --device gpu without a usable GPU, Phi too large for it, a CUDA failure
  kTargetNotReached = 8,  // build -k auto: no budget k <= n reaches the target; nothing written
  kInterrupted = 130,     // stopped by Ctrl-C (SIGINT): 128 + 2; nothing written
  kTerminated = 143,      // stopped by SIGTERM: 128 + 15; nothing written
};

/// build -k auto found no budget that reaches the target (kTargetNotReached); the message names
/// the best value reached and where.
struct TargetNotReached : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace coreset::cli
