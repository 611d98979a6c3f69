// Process-wide wall-time totals by phase, for the benchmarks that break a job down
// (io/read_phases.hpp: the CSV reader; pipeline/setup_parts.hpp: a build's set-up). Relaxed
// atomics: the totals order nothing, and a reader wants them after the timed work returned.
// Monotone; a few clock reads per phase.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace coreset::support {

/// Nanoseconds by phase (an enum whose values are 0 ... kPhases - 1).
template <class Phase, int kPhases>
class PhaseTotals {
 public:
  void add(Phase phase, std::int64_t nanoseconds) noexcept {
    ns_[static_cast<int>(phase)].fetch_add(nanoseconds, std::memory_order_relaxed);
  }
  std::int64_t nanoseconds(Phase phase) const noexcept {
    return ns_[static_cast<int>(phase)].load(std::memory_order_relaxed);
  }

 private:
  std::atomic<std::int64_t> ns_[kPhases] = {};
};

/// Adds the wall time from its construction to its destruction to `phase` of `totals`.
template <class Totals, class Phase>
class ScopedPhase {
 public:
  ScopedPhase(Totals& totals, Phase phase)
      : totals_(totals), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;
  ~ScopedPhase() {
    totals_.add(phase_, std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start_)
                            .count());
  }

 private:
  Totals& totals_;
  Phase phase_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace coreset::support
