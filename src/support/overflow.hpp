// The messages for sums of squares that left the floating-point range, in one place.
#pragma once

#include <cmath>
#include <string>

#include "coreset/error.hpp"

namespace coreset::support {

/// Throws InvalidArgument when `value` (a squared norm, e.g. ||y - Phi w||^2) is not finite.
inline void throw_if_overflowed(double value) {
  if (!std::isfinite(value)) {
    throw InvalidArgument(
        "||y - Phi w||^2 overflowed: the entries of Phi and y are too large for this "
        "precision; rescale them (every step is scale-free, so the coreset is unchanged)");
  }
}

/// Throws InvalidArgument for a nonzero y whose squared norm (`what`, e.g. "||y||^2") fell below
/// the smallest normal double: its digits are gone, and the solvers, which square Phi's and y's
/// entries, would stop at once at an empty coreset reported as exact.
[[noreturn]] inline void throw_underflowed(const char* what) {
  throw InvalidArgument(std::string(what) +
                        " underflowed: the entries of Phi and y are too small for double "
                        "precision (below about 1e-154); rescale them, by a power of 2 to keep "
                        "every bit (every step is scale-free, so the coreset is unchanged)");
}

}  // namespace coreset::support
