// The centring pass of the projection over a block of columns: each column's sum in the fixed
// order of cpu::column_sum, then (value - mean) / sqrt(S). Vectorised with AVX2 where the CPU
// has it (isa.hpp); every variant gives the bits of the scalar formulas, so Phi does not depend on
// the instruction set.
#pragma once

#include <cmath>

#include "coreset/types.hpp"
#include "support/isa.hpp"

namespace coreset::cpu::simd {

using support::active_isa;
using support::Isa;
using support::supported;

/// The centring and scaling of spec 1.3 for one value: the one place this formula lives (the
/// vector variants write the same two operations lane by lane).
inline double centred(double value, double mean, double scale) {
  return (value - mean) * scale;
}

/// The scale of spec 1.3 for a column of `rows` samples, 1 / sqrt(S).
inline double centring_scale(index_t rows) {
  return 1.0 / std::sqrt(static_cast<double>(rows));
}

/// sums[i] = cpu::column_sum(block + i * rows, rows) for i < width, bit for bit: four partial
/// sums in index order, combined as (p0 + p1) + (p2 + p3). The vector variant keeps that order and
/// gets its speed from summing eight columns at once (eight independent chains of adds).
void column_sums(const double* block, index_t rows, index_t width, double* sums);

/// means[i] = sums[i] / rows with the sums of column_sums: the means the centring subtracts. A
/// column holding a non-finite value, or whose sum overflowed, gets a non-finite mean.
void column_means(const double* block, index_t rows, index_t width, double* means);

/// out[i * rows + j] = T(centred(block[i * rows + j], means[i], scale)) for i < width, j < rows;
/// T is double or float. out may equal block (double).
template <class T>
void subtract_and_scale(const double* block, index_t rows, index_t width, const double* means,
                        double scale, T* out);

namespace detail {
void column_sums_baseline(const double* block, index_t rows, index_t width, double* sums);
void column_sums_avx2(const double* block, index_t rows, index_t width, double* sums);
template <class T>
void subtract_and_scale_baseline(const double* block, index_t rows, index_t width,
                                 const double* means, double scale, T* out);
template <class T>
void subtract_and_scale_avx2(const double* block, index_t rows, index_t width, const double* means,
                             double scale, T* out);
}  // namespace detail

/// The variants by name, for the tests (which compare them) and the benchmarks; `isa` must be
/// supported. avx512 runs the AVX2 variant: the pass is bound by the cache, not the width.
void column_sums(Isa isa, const double* block, index_t rows, index_t width, double* sums);
template <class T>
void subtract_and_scale(Isa isa, const double* block, index_t rows, index_t width,
                        const double* means, double scale, T* out);

}  // namespace coreset::cpu::simd
