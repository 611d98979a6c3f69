// The checks every consumer of a coreset against Phi makes, with one wording.
#pragma once

#include <string>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"

namespace coreset::support {

/// Throws InvalidArgument unless the coreset has a weight per index and every index is one of
/// Phi's `columns` (the first offender in the coreset's order is named).
inline void check_coreset_columns(const Coreset& coreset, index_t columns) {
  if (coreset.indices.size() != coreset.weights.size()) {
    throw InvalidArgument("coreset has " + std::to_string(coreset.indices.size()) +
                          " indices but " + std::to_string(coreset.weights.size()) + " weights");
  }
  for (const index_t j : coreset.indices) {
    if (j < 0 || j >= columns) {
      throw InvalidArgument("coreset index " + std::to_string(j) + " is outside Phi's " +
                            std::to_string(columns) + " columns");
    }
  }
}

}  // namespace coreset::support
