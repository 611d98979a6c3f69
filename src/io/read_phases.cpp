#include "io/read_phases.hpp"

#include <atomic>

namespace coreset::io::detail {
namespace {

// Relaxed: the totals order nothing; a reader wants them after its own reads have returned.
std::atomic<std::int64_t> line_count_ns{0};
std::atomic<std::int64_t> reading_ns{0};
std::atomic<std::int64_t> counting_ns{0};
std::atomic<std::int64_t> parsing_ns{0};
std::atomic<std::int64_t> blocks{0};

}  // namespace

ReadPhaseTotals read_phase_totals() noexcept {
  return {line_count_ns.load(std::memory_order_relaxed), reading_ns.load(std::memory_order_relaxed),
          counting_ns.load(std::memory_order_relaxed), parsing_ns.load(std::memory_order_relaxed),
          blocks.load(std::memory_order_relaxed)};
}

void add_read_phase(ReadPhase phase, std::int64_t nanoseconds) noexcept {
  switch (phase) {
    case ReadPhase::line_count:
      line_count_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
      break;
    case ReadPhase::reading:
      reading_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
      break;
    case ReadPhase::counting:
      counting_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
      break;
    case ReadPhase::parsing:
      parsing_ns.fetch_add(nanoseconds, std::memory_order_relaxed);
      blocks.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

}  // namespace coreset::io::detail
