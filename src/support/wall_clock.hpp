// Wall time of the stages that reports carry (StageSeconds, SolveResult::seconds, a sweep's
// budgets): one clock and one conversion to seconds.
#pragma once

#include <chrono>

namespace coreset::support {

using WallClock = std::chrono::steady_clock;

/// Seconds from `start` to now.
inline double seconds_since(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

}  // namespace coreset::support
