// The one message for sums of squares that left the floating-point range.
#pragma once

#include <cmath>

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

}  // namespace coreset::support
