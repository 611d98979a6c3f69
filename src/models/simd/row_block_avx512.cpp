// The row block kernels for AVX-512: one 8-lane vector per group of rows, and the logistic link
// on four 8-lane vectors per step. This file alone is compiled with the instruction set's flags
// (src/CMakeLists.txt) and is only called when supported() says so.
#include <immintrin.h>

#include "models/simd/row_block.hpp"

#include "models/simd/logistic_link_kernel.hpp"
#include "models/simd/row_block_kernel.hpp"

namespace coreset::models::simd::detail {

namespace {

/// The eight lanes as one __m512d; partial loads and stores are masked, so nothing past the
/// block is touched.
struct Avx512Lanes {
  static constexpr int kColumnTile = 8;
  /// Square Hessian tiles of 5 columns: 25 accumulators, 5 products and a column in the 32
  /// registers. Measured against 4 and 6 at d = 5, 10, 21, 40 (bench/results/
  /// laplace_tiles_20261127/): 5 was the best or within 2% of it everywhere.
  static constexpr int kHessianTile = 5;
  using V = __m512d;
  static __mmask8 first(int count) { return static_cast<__mmask8>((1u << count) - 1u); }
  static V splat(double x) { return _mm512_set1_pd(x); }
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static V load_partial(const double* p, int count) {
    return _mm512_maskz_loadu_pd(first(count), p);
  }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static void store_partial(double* p, V v, int count) {
    _mm512_mask_storeu_pd(p, first(count), v);
  }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static void lanes(V v, double* out) { _mm512_storeu_pd(out, v); }
};

}  // namespace

void linear_predictors_avx512(const RowBlock& block, const double* theta, double* out) {
  linear_predictors_impl<Avx512Lanes>(block, theta, out);
}

void weighted_row_sums_avx512(const RowBlock& block, const double* g, const double* c,
                              double* vector, double* upper) {
  weighted_row_sums_impl<Avx512Lanes>(block, g, c, vector, upper);
}

void logistic_link_terms_avx512(const double* a, const double* y, index_t count, double* value,
                                double* first, double* second) {
  typedef double Vector __attribute__((vector_size(64)));
  typedef long long IntVector __attribute__((vector_size(64)));  // NOLINT(runtime/int)
  logistic_link_terms_impl<Vector, IntVector, 4>(a, y, count, value, first, second);
}

}  // namespace coreset::models::simd::detail
