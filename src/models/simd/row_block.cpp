// The row block kernels' dispatch, and the baseline: the lane order of row_block_kernel.hpp with
// a multiply and an add for each fma, lane by lane, and the scalar logistic link.
#include "models/simd/row_block.hpp"

#include <cmath>
#include <cstring>

#include "models/link.hpp"
#include "models/simd/row_block_kernel.hpp"

namespace coreset::models::simd {

namespace {

/// Eight lanes of scalars: what the vector variants do, a lane at a time.
struct ScalarLanes {
  static constexpr int kColumnTile = 4;
  /// Square Hessian tiles of 6 columns: 8.4 -> 5.6-5.8 us per 256-row block at d = 10 (x86-64
  /// baseline; bench/results/laplace_tiles_20261127/, with the sizes tried).
  static constexpr int kHessianTile = 6;
  struct V {
    double lane[kSumLanes];
  };
  static V splat(double x) {
    V v;
    for (double& l : v.lane) {
      l = x;
    }
    return v;
  }
  static V load(const double* p) {
    V v;
    std::memcpy(v.lane, p, sizeof(v.lane));
    return v;
  }
  static V load_partial(const double* p, int count) {
    V v = splat(0.0);
    std::memcpy(v.lane, p, sizeof(double) * static_cast<std::size_t>(count));
    return v;
  }
  static void store(double* p, const V& v) { std::memcpy(p, v.lane, sizeof(v.lane)); }
  static void store_partial(double* p, const V& v, int count) {
    std::memcpy(p, v.lane, sizeof(double) * static_cast<std::size_t>(count));
  }
  static V mul(const V& a, const V& b) {
    V v;
    for (int l = 0; l < kSumLanes; ++l) {
      v.lane[l] = a.lane[l] * b.lane[l];
    }
    return v;
  }
  // a b + c rounded twice (row_block.hpp): the baseline has no fma instruction.
  static V fma(const V& a, const V& b, const V& c) {
    V v;
    for (int l = 0; l < kSumLanes; ++l) {
      v.lane[l] = a.lane[l] * b.lane[l] + c.lane[l];
    }
    return v;
  }
  static void lanes(const V& v, double* out) { std::memcpy(out, v.lane, sizeof(v.lane)); }
};

}  // namespace

double sum_in_lanes(const double* v, index_t count) {
  double p[kSumLanes] = {};
  index_t j = 0;
  for (; j + kSumLanes <= count; j += kSumLanes) {
    for (int l = 0; l < kSumLanes; ++l) {
      p[l] += v[j + l];
    }
  }
  for (int l = 0; j + l < count; ++l) {
    p[l] += v[j + l];
  }
  return add_lanes(p);
}

namespace detail {

void linear_predictors_baseline(const RowBlock& block, const double* theta, double* out) {
  linear_predictors_impl<ScalarLanes>(block, theta, out);
}

void weighted_row_sums_baseline(const RowBlock& block, const double* g, const double* c,
                                double* vector, double* upper) {
  weighted_row_sums_impl<ScalarLanes>(block, g, c, vector, upper);
}

}  // namespace detail

namespace {

void logistic_link_terms_baseline(const double* a, const double* y, index_t count, double* value,
                                  double* first, double* second) {
  for (index_t j = 0; j < count; ++j) {
    const LinkTerms terms = logistic_link(a[j], y[j]);
    value[j] = terms.value;
    first[j] = terms.first;
    second[j] = terms.second;
  }
}

}  // namespace

void linear_predictors(support::Isa isa, const RowBlock& block, const double* theta, double* out) {
  switch (isa) {
#if defined(__x86_64__)  // the vector variants are built for x86-64 alone
    case support::Isa::avx512:
      detail::linear_predictors_avx512(block, theta, out);
      return;
    case support::Isa::avx2:
      detail::linear_predictors_avx2(block, theta, out);
      return;
#endif
    case support::Isa::baseline:
    default:
      detail::linear_predictors_baseline(block, theta, out);
      return;
  }
}

void weighted_row_sums(support::Isa isa, const RowBlock& block, const double* g, const double* c,
                       double* vector, double* upper) {
  switch (isa) {
#if defined(__x86_64__)  // the vector variants are built for x86-64 alone
    case support::Isa::avx512:
      detail::weighted_row_sums_avx512(block, g, c, vector, upper);
      return;
    case support::Isa::avx2:
      detail::weighted_row_sums_avx2(block, g, c, vector, upper);
      return;
#endif
    case support::Isa::baseline:
    default:
      detail::weighted_row_sums_baseline(block, g, c, vector, upper);
      return;
  }
}

void logistic_link_terms(support::Isa isa, const double* a, const double* y, index_t count,
                         double* value, double* first, double* second) {
  switch (isa) {
#if defined(__x86_64__)  // the vector variants are built for x86-64 alone
    case support::Isa::avx512:
      detail::logistic_link_terms_avx512(a, y, count, value, first, second);
      return;
    case support::Isa::avx2:
      detail::logistic_link_terms_avx2(a, y, count, value, first, second);
      return;
#endif
    case support::Isa::baseline:
    default:
      logistic_link_terms_baseline(a, y, count, value, first, second);
      return;
  }
}

void linear_predictors(const RowBlock& block, const double* theta, double* out) {
  linear_predictors(support::active_isa(), block, theta, out);
}

void weighted_row_sums(const RowBlock& block, const double* g, const double* c, double* vector,
                       double* upper) {
  weighted_row_sums(support::active_isa(), block, g, c, vector, upper);
}

void logistic_link_terms(const double* a, const double* y, index_t count, double* value,
                         double* first, double* second) {
  logistic_link_terms(support::active_isa(), a, y, count, value, first, second);
}

}  // namespace coreset::models::simd
