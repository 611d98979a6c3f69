// The row block kernels for AVX2: each group of eight rows as two 4-lane halves, and the logistic
// link on eight 4-lane vectors per step. This file alone is compiled with the instruction set's
// flags (src/CMakeLists.txt) and is only called when supported() says so.
#include <immintrin.h>

#include "models/simd/row_block.hpp"

#include "models/simd/logistic_link_kernel.hpp"
#include "models/simd/row_block_kernel.hpp"

namespace coreset::models::simd::detail {

namespace {

/// The eight lanes as two __m256d; partial loads and stores are masked, so nothing past the
/// block is touched.
struct Avx2Lanes {
  static constexpr int kColumnTile = 4;
  /// Column strips: with 16 registers and each V two of them, no square tile size measured
  /// (2, 3, 4; bench/results/laplace_tiles_20261127/) was faster than the strips.
  static constexpr int kHessianTile = 1;
  struct V {
    __m256d low;
    __m256d high;
  };
  /// The mask of lanes offset ... offset + 3 of the first `count`.
  static __m256i first(int count, int offset) {
    const __m256i lane = _mm256_setr_epi64x(offset, offset + 1, offset + 2, offset + 3);
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), lane);
  }
  static V splat(double x) { return {_mm256_set1_pd(x), _mm256_set1_pd(x)}; }
  static V load(const double* p) { return {_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)}; }
  // The high half only when some of its lanes are in the block: p + 4 is past the end otherwise.
  static V load_partial(const double* p, int count) {
    return {_mm256_maskload_pd(p, first(count, 0)),
            count > 4 ? _mm256_maskload_pd(p + 4, first(count, 4)) : _mm256_setzero_pd()};
  }
  static void store(double* p, const V& v) {
    _mm256_storeu_pd(p, v.low);
    _mm256_storeu_pd(p + 4, v.high);
  }
  static void store_partial(double* p, const V& v, int count) {
    _mm256_maskstore_pd(p, first(count, 0), v.low);
    if (count > 4) {
      _mm256_maskstore_pd(p + 4, first(count, 4), v.high);
    }
  }
  static V mul(const V& a, const V& b) {
    return {_mm256_mul_pd(a.low, b.low), _mm256_mul_pd(a.high, b.high)};
  }
  static V fma(const V& a, const V& b, const V& c) {
    return {_mm256_fmadd_pd(a.low, b.low, c.low), _mm256_fmadd_pd(a.high, b.high, c.high)};
  }
  static void lanes(const V& v, double* out) {
    _mm256_storeu_pd(out, v.low);
    _mm256_storeu_pd(out + 4, v.high);
  }
};

}  // namespace

void linear_predictors_avx2(const RowBlock& block, const double* theta, double* out) {
  linear_predictors_impl<Avx2Lanes>(block, theta, out);
}

void weighted_row_sums_avx2(const RowBlock& block, const double* g, const double* c, double* vector,
                            double* upper) {
  weighted_row_sums_impl<Avx2Lanes>(block, g, c, vector, upper);
}

void logistic_link_terms_avx2(const double* a, const double* y, index_t count, double* value,
                              double* first, double* second) {
  typedef double Vector __attribute__((vector_size(32)));
  typedef long long IntVector __attribute__((vector_size(32)));  // NOLINT(runtime/int)
  logistic_link_terms_impl<Vector, IntVector, 8>(a, y, count, value, first, second);
}

}  // namespace coreset::models::simd::detail
