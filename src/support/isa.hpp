// The x86 instruction sets the CPU kernels are compiled for, and which one this CPU runs.
#pragma once

namespace coreset::support {

enum class Isa {
  baseline,  ///< what the library is compiled for (x86-64: SSE2), scalar formulas
  avx2,      ///< AVX2 + FMA
  avx512,    ///< AVX-512 F + DQ
};

/// Whether this CPU (and its operating system) can run kernels compiled for `isa`.
bool supported(Isa isa);

/// The best supported set, or the one named by the environment variable CORESET_ISA
/// (baseline, avx2, avx512) when that is set and supported: a way to compare variants on one
/// machine. Decided once per process.
Isa active_isa();

const char* isa_name(Isa isa);

}  // namespace coreset::support
