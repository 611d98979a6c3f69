// How many threads "0 = every core" means: the one place the library turns 0 into a number.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "coreset/error.hpp"
#include "support/cgroup_limits.hpp"

namespace coreset::support {

/// Whether an OMP_NUM_THREADS value sizes OpenMP's team as libgomp reads it: a positive count,
/// or a list of them for nested levels ("8,2"), spaces allowed before it. Unset, empty, 0 or
/// anything else ("abc"), which libgomp ignores: false.
inline bool sizes_openmp_team(const char* omp_num_threads) noexcept {
  if (omp_num_threads == nullptr) {
    return false;
  }
  const char* c = omp_num_threads;
  while (*c == ' ' || *c == '\t') {
    ++c;
  }
  bool positive = false;
  const char* digits = c;
  for (; *c >= '0' && *c <= '9'; ++c) {
    positive = positive || *c != '0';
  }
  return c != digits && positive && (*c == '\0' || *c == ',' || *c == ' ' || *c == '\t');
}

/// sizes_openmp_team(getenv("OMP_NUM_THREADS")), read once per process (as libgomp reads it).
inline bool omp_num_threads_in_environment() noexcept {
  static const bool set = sizes_openmp_team(std::getenv("OMP_NUM_THREADS"));
  return set;
}

/// What 0 threads means: every core OpenMP offers (omp_get_max_threads(): the CPUs the process
/// may run on, or OMP_NUM_THREADS), capped at its share of its control group's CPU limit (the
/// limit over the MPI ranks on the node) rounded to the nearest whole CPU (`docker run --cpus`;
/// support/cgroup_limits.hpp says why) unless OMP_NUM_THREADS sized the team; at least 1.
inline int default_threads() {
  return threads_within_limit(omp_get_max_threads(), process_cpu_share(),
                              omp_num_threads_in_environment());
}

/// The most threads a job may ask for: 8 for each CPU of the machine, at least 256. More only
/// cost (each takes its turn at every barrier and holds a stack), and OpenMP's runtime fails to
/// make them, or crashes, well before 1e5.
inline int max_threads() {
  return std::max(256, 8 * omp_get_num_procs());
}

/// The thread count for `requested` (SolverOptions::threads, a reader's threads, ...): itself
/// when positive, else default_threads(). InvalidArgument above max_threads(). A job resolves it
/// once (pipeline/execution_context.hpp).
inline int resolve_threads(int requested) {
  if (requested > max_threads()) {
    throw InvalidArgument("threads must be at most " + std::to_string(max_threads()) +
                          " on this machine (8 for each of its " +
                          std::to_string(omp_get_num_procs()) + " CPUs, at least 256), got " +
                          std::to_string(requested));
  }
  return requested > 0 ? requested : default_threads();
}

/// OpenMP's default team size (the calling thread's nthreads-var, what omp_get_max_threads()
/// returns) set to resolve_threads(threads) for the guard's lifetime, then put back. A job runs
/// under one, set to its thread count: the parallel passes that name no team of their own (the
/// model's set-up, the sums over datapoints, the pinned staging of uploads) then use the job's
/// threads and not every core (nor more than its CPU limit allows), and the caller's own setting
/// is left as it was.
class ScopedDefaultTeam {
 public:
  explicit ScopedDefaultTeam(int threads) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(resolve_threads(threads));
  }
  ~ScopedDefaultTeam() { omp_set_num_threads(previous_); }
  ScopedDefaultTeam(const ScopedDefaultTeam&) = delete;
  ScopedDefaultTeam& operator=(const ScopedDefaultTeam&) = delete;

 private:
  int previous_;
};

}  // namespace coreset::support
