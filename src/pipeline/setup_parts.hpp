// Where a build's set-up (StageSeconds::setup) spends its wall time, process-wide, for
// bench_gpu --end-to-end. On an H200 host at 4a3fc22 the N = 1e8 build's set-up took 2.35 s where
// make_model timed alone after it took 0.83 s, and N = 1e7's 0.129 s against 0.086 s
// (bench/results/gpu_h200_20261127_4a3fc22/); these totals say which part took the rest.
#pragma once

#include "support/phase_totals.hpp"

namespace coreset::pipeline {

enum class SetupPart {
  dataset_checks,  ///< the job's device resolved and the dataset (or the ranks' shares) checked
  model,           ///< models::make_model: the design made (or the covariates read in place)
                   ///< and checked
  context,         ///< the execution context: on a GPU, the session (stream, cuBLAS, workspace)
  memory_checks,   ///< the host's and the device's memory checked against the job's needs
};
inline constexpr int kSetupParts = static_cast<int>(SetupPart::memory_checks) + 1;
using SetupPartTotals = support::PhaseTotals<SetupPart, kSetupParts>;

/// The process's totals since it started (build.cpp adds to them; monotone).
SetupPartTotals& setup_part_totals() noexcept;

/// Adds its scope's wall time to `part` of the process's totals.
class SetupPartTimer : public support::ScopedPhase<SetupPartTotals, SetupPart> {
 public:
  explicit SetupPartTimer(SetupPart part) : ScopedPhase(setup_part_totals(), part) {}
};

}  // namespace coreset::pipeline
