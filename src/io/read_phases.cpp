#include "io/read_phases.hpp"

#include <atomic>

namespace coreset::io::detail {
namespace {

// By phase, and the parsing phases counted as blocks (relaxed, as the totals are).
constexpr int kPhases = static_cast<int>(ReadPhase::parsing) + 1;  // parsing is the last
support::PhaseTotals<ReadPhase, kPhases> totals;
std::atomic<std::int64_t> blocks{0};

}  // namespace

ReadPhaseTotals read_phase_totals() noexcept {
  return {totals.nanoseconds(ReadPhase::line_count), totals.nanoseconds(ReadPhase::reading),
          totals.nanoseconds(ReadPhase::counting), totals.nanoseconds(ReadPhase::parsing),
          blocks.load(std::memory_order_relaxed)};
}

void add_read_phase(ReadPhase phase, std::int64_t nanoseconds) noexcept {
  totals.add(phase, nanoseconds);
  if (phase == ReadPhase::parsing) {
    blocks.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace coreset::io::detail
