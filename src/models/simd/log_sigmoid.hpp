// log sigma(m) over a block of margins m = y z . theta, the logistic link's value and the hot loop
// of the logistic projection: vectorised for AVX2 and AVX-512, chosen at run time (isa.hpp),
// with the scalar link formula as the baseline.
#pragma once

#include "coreset/types.hpp"
#include "support/isa.hpp"

namespace coreset::models::simd {

using support::active_isa;
using support::Isa;
using support::supported;

/// out[j] = log sigma(m[j]) = -softplus(-m[j]) for j < count (out may equal m). Uses the
/// best instruction set this CPU supports. The AVX2 and AVX-512 kernels give identical bits;
/// the baseline (glibc's exp and log1p) differs from them by at most 4 ulp.
void log_sigmoid(const double* m, double* out, index_t count);

/// The same with a given instruction set, which the CPU must support (supported(isa)): for the
/// tests, which compare every compiled variant with the scalar formula, and the benchmarks.
void log_sigmoid(Isa isa, const double* m, double* out, index_t count);

namespace detail {
void log_sigmoid_baseline(const double* m, double* out, index_t count);
void log_sigmoid_avx2(const double* m, double* out, index_t count);
void log_sigmoid_avx512(const double* m, double* out, index_t count);
}  // namespace detail

}  // namespace coreset::models::simd
