// log sigma(y a) over a column of linear predictors, the logistic link's value and the hot loop
// of the logistic projection: vectorised for AVX2 and AVX-512, chosen at run time (isa.hpp),
// with the scalar link formula as the baseline.
#pragma once

#include "coreset/types.hpp"
#include "cpu/simd/isa.hpp"

namespace coreset::cpu::simd {

/// out[j] = log sigma(y a[j]) = -softplus(-y a[j]) for j < count (out may equal a); returns the
/// sum of out[0..count). Uses the best instruction set this CPU supports.
double log_sigmoid_sum(const double* a, double y, double* out, index_t count);

/// The same with a given instruction set, which the CPU must support (supported(isa)): for the
/// tests, which compare every compiled variant with the scalar formula, and the benchmarks.
double log_sigmoid_sum(Isa isa, const double* a, double y, double* out, index_t count);

namespace detail {
double log_sigmoid_sum_baseline(const double* a, double y, double* out, index_t count);
double log_sigmoid_sum_avx2(const double* a, double y, double* out, index_t count);
double log_sigmoid_sum_avx512(const double* a, double y, double* out, index_t count);
}  // namespace detail

}  // namespace coreset::cpu::simd
