#include "io/read_phases.hpp"

#include <atomic>

namespace coreset::io::detail {
namespace {

// By phase, in ReadPhase's order, and the parsing phases counted as blocks. Relaxed: the totals
// order nothing; a reader wants them after its own reads have returned.
constexpr int kPhases = static_cast<int>(ReadPhase::parsing) + 1;  // parsing is the last
std::atomic<std::int64_t> phase_ns[kPhases] = {};
std::atomic<std::int64_t> blocks{0};

std::int64_t load(const std::atomic<std::int64_t>& total) {
  return total.load(std::memory_order_relaxed);
}

}  // namespace

ReadPhaseTotals read_phase_totals() noexcept {
  return {load(phase_ns[static_cast<int>(ReadPhase::line_count)]),
          load(phase_ns[static_cast<int>(ReadPhase::reading)]),
          load(phase_ns[static_cast<int>(ReadPhase::counting)]),
          load(phase_ns[static_cast<int>(ReadPhase::parsing)]), load(blocks)};
}

void add_read_phase(ReadPhase phase, std::int64_t nanoseconds) noexcept {
  phase_ns[static_cast<int>(phase)].fetch_add(nanoseconds, std::memory_order_relaxed);
  if (phase == ReadPhase::parsing) {
    blocks.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace coreset::io::detail
