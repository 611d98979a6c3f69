// ||y||^2, f(0) of every solver and the scale of its relative error, and the one check that y
// is in range.
#pragma once

#include <cmath>
#include <limits>

#include "support/overflow.hpp"

namespace coreset::solvers {

/// The backend's ||y||^2 (a double scalar on every backend), as it computed it, refusing a y
/// outside double's range: a squared norm that overflowed, or one below the smallest normal double
/// while y != 0 (support/overflow.hpp; InvalidArgument). A y whose entries are all below about
/// 1e-154 has ||y||^2 = 0 exactly; 2^1000 y tells it from y = 0 (the smallest subnormal becomes
/// 5e-23, and no entry below 1.5e-154 overflows when squared), at the cost of one more pass over
/// its S entries, taken only then. (In float, ||y||^2 < DBL_MIN only for y = 0: sums are double.)
template <class Backend>
double target_squared_norm(Backend& be, const typename Backend::SampleVector& y) {
  const double squared = be.read(be.dot(y, y));
  support::throw_if_overflowed(squared);
  if (squared < std::numeric_limits<double>::min()) {
    auto scaled = be.make_sample_vector();
    be.axpby(0x1p1000, y, 0.0, y, scaled);
    if (be.read(be.dot(scaled, scaled)) != 0.0) {
      support::throw_underflowed("||y||^2");
    }
  }
  return squared;
}

/// ||y||: the square root of target_squared_norm, for the solvers that need only the norm.
template <class Backend>
double target_norm(Backend& be, const typename Backend::SampleVector& y) {
  return std::sqrt(target_squared_norm(be, y));
}

}  // namespace coreset::solvers
