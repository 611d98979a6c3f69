// The library's side of coreset/progress.hpp: null-safe calls to the caller's observer.
#pragma once

#include <cstdint>

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

}  // namespace coreset::support
