// Where the parallel CSV reads spend their wall time, process-wide: bench_parse's breakdown of
// the reader at each thread count. Issue 15 asks the reader for at most 2x std::from_chars alone
// per thread; on an H200 host's 16-core Xeon at 816332d it took 1.47-1.77x at 1-8 threads and
// 2.40x at 16, and the totals here say which part does not scale (the first pass's line count,
// the reads of each block, the count of its lines by piece, or the parse and store).
//
// Timed on the thread that drives the read, so each phase includes its wait for the slowest
// piece; a few clock reads per block of several MiB.
#pragma once

#include <cstdint>

#include "support/phase_totals.hpp"

namespace coreset::io::detail {

enum class ReadPhase {
  line_count,  ///< the first pass over a file: its lines counted (LineReader's constructor)
  reading,     ///< each chunk read from the file (LineReader::refill; the first, which the header
               ///< line brings about, included)
  counting,    ///< each block's lines counted by piece, and the pieces' first rows
  parsing,     ///< each block's pieces parsed and stored
};

/// Nanoseconds spent in each phase since the process started, and the blocks parsed. Monotone.
struct ReadPhaseTotals {
  std::int64_t line_count_ns = 0;
  std::int64_t reading_ns = 0;
  std::int64_t counting_ns = 0;
  std::int64_t parsing_ns = 0;
  std::int64_t blocks = 0;  ///< parsing phases recorded
};
ReadPhaseTotals read_phase_totals() noexcept;
void add_read_phase(ReadPhase phase, std::int64_t nanoseconds) noexcept;

/// Where ReadPhaseTimer adds its time: add_read_phase.
struct ReadPhaseSink {
  void add(ReadPhase phase, std::int64_t nanoseconds) noexcept {
    add_read_phase(phase, nanoseconds);
  }
};
inline ReadPhaseSink read_phase_sink;

/// Adds the wall time from its construction to its destruction to `phase`.
class ReadPhaseTimer : public support::ScopedPhase<ReadPhaseSink, ReadPhase> {
 public:
  explicit ReadPhaseTimer(ReadPhase phase) : ScopedPhase(read_phase_sink, phase) {}
};

}  // namespace coreset::io::detail
