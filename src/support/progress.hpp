// The library's side of coreset/progress.hpp: null-safe calls to the caller's observer.
#pragma once

#include <cstdint>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/progress.hpp"

namespace coreset::support {

inline void stage_started(ProgressObserver* observer, Stage stage, std::int64_t total) {
  if (observer != nullptr) {
    observer->stage_started(stage, total);
  }
}

inline void advanced(ProgressObserver* observer, std::int64_t done) {
  if (observer != nullptr) {
    observer->advanced(done);
  }
}

/// True when the caller asked to stop; for loops that cannot throw (OpenMP regions).
inline bool stop_requested(ProgressObserver* observer) noexcept {
  return observer != nullptr && observer->stop_requested();
}

/// Throws Cancelled when the caller asked to stop.
inline void throw_if_stopped(ProgressObserver* observer) {
  if (stop_requested(observer)) {
    throw Cancelled("stopped on request");
  }
}

/// At a point that every rank of `comm` reaches in step (an iteration of a distributed solve, a
/// Newton step over the ranks' sums): throws Cancelled on every rank when the caller of any rank
/// asked to stop, so that no rank is left waiting in the next collective (one 8-byte sum). A
/// rank's own request is not honoured alone: a stop signal reaches the ranks at different
/// points. Without a communicator, as throw_if_stopped above.
inline void throw_if_stopped(ProgressObserver* observer, const Communicator* comm) {
  if (comm == nullptr) {
    throw_if_stopped(observer);
    return;
  }
  std::int64_t stop = stop_requested(observer) ? 1 : 0;
  comm->sum(&stop, 1);
  if (stop != 0) {
    throw Cancelled(kStoppedOnEveryRank);
  }
}

}  // namespace coreset::support
