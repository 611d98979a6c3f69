// Exact sums shared out over OpenMP threads: each thread adds its terms into accumulators of its
// own, and the teams' partial sums are merged exactly, so the thread count changes no bit.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "support/exact_sum.hpp"

namespace coreset::support {

/// Runs body(mine) on `teams` threads (one when teams <= 1), `mine` being that thread's `count`
/// accumulators, zero at first; `body` shares its loop out with an orphaned `#pragma omp for`.
/// Returns the teams' accumulators added exactly.
template <class Body>
std::vector<ExactSum> exact_sums_by_team(int teams, std::size_t count, Body&& body) {
  teams = teams < 1 ? 1 : teams;
  std::vector<std::vector<ExactSum>> team_sums(static_cast<std::size_t>(teams),
                                               std::vector<ExactSum>(count));
#pragma omp parallel num_threads(teams) if (teams > 1)
  {
#ifdef _OPENMP
    body(team_sums[static_cast<std::size_t>(omp_get_thread_num())]);
#else
    body(team_sums[0]);
#endif
  }
  for (std::size_t t = 1; t < team_sums.size(); ++t) {
    for (std::size_t a = 0; a < count; ++a) {
      team_sums[0][a].merge(team_sums[t][a]);
    }
  }
  return std::move(team_sums[0]);
}

}  // namespace coreset::support
