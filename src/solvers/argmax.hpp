// The result of a backend's fused score-and-argmax pass (the greedy selection of GIGA and
// Frank-Wolfe): which entry scored highest, and its score.
#pragma once

#include <limits>

#include "coreset/types.hpp"
#include "support/host_device.hpp"

namespace coreset::solvers {

struct ArgMax {
  index_t index = -1;  ///< -1: no entry had a score above -infinity
  double score = -std::numeric_limits<double>::infinity();
};

/// The better of two candidates: the larger score, then the lower index. Associative and
/// commutative, so any reduction order (threads, blocks, device warps) gives the same winner.
/// A NaN score never wins, and nothing wins with -infinity.
CORESET_HOST_DEVICE inline ArgMax better(const ArgMax& a, const ArgMax& b) {
  if (b.index < 0 || !(b.score >= a.score)) {
    return a;
  }
  if (a.index < 0 || b.score > a.score || b.index < a.index) {
    return b;
  }
  return a;
}

}  // namespace coreset::solvers
