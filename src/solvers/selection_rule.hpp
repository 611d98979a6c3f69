// Which entries a top-k selection ranks, and how (spec 2.1).
#pragma once

namespace coreset::solvers {

enum class SelectionRule {
  /// Ranks strictly positive entries by value: the support of Pi_{C_k and R+}.
  largest_positive,
  /// Ranks non-zero entries by absolute value: the support of Pi_{C_k}.
  largest_magnitude,
};

// Both rules order by key descending, then index ascending, so every selection is deterministic;
// zeros, -0.0 and NaN are never selected (a zero entry is outside any support).

}  // namespace coreset::solvers
