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

/// OpenMP's default team size (the calling thread's nthreads-var, what omp_get_max_threads()
/// returns) set to `threads` for the guard's lifetime, then put back. A job runs under one, set
/// to its thread count: the parallel passes that name no team of their own (the model's set-up,
/// the sums over datapoints, the pinned staging of uploads) then use the job's threads and not
/// every core, and the caller's own setting is left as it was. threads <= 0 changes nothing.
class ScopedDefaultTeam {
 public:
  explicit ScopedDefaultTeam(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) {
      omp_set_num_threads(threads);
    }
  }
  ~ScopedDefaultTeam() { omp_set_num_threads(previous_); }
  ScopedDefaultTeam(const ScopedDefaultTeam&) = delete;
  ScopedDefaultTeam& operator=(const ScopedDefaultTeam&) = delete;

 private:
  int previous_;
};

}  // namespace coreset::support
