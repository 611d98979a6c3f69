// How many threads "0 = every core" means: the one place the library turns 0 into a number.
#pragma once

#include <omp.h>

#include <algorithm>

namespace coreset::support {

/// The thread count for `requested` (SolverOptions::threads, a reader's threads, ...): itself
/// when positive, else every core OpenMP offers (omp_get_max_threads(), so OMP_NUM_THREADS
/// lowers it), at least 1. A job resolves it once (pipeline/execution_context.hpp).
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : std::max(1, omp_get_max_threads());
}

}  // namespace coreset::support
