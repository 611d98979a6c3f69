// The row block kernels of row_block.hpp, written once over a policy `Ops` of eight-lane
// operations (Ops::V holds kSumLanes doubles; load, load_partial, store, store_partial, splat,
// mul, fma, lanes) and instantiated by one translation unit per instruction set: the baseline
// (a multiply and an add lane by lane), AVX2 (two 4-lane halves) and AVX-512 (one vector);
// Ops::kColumnTile says how many columns it sums at once. Every variant runs the same lane
// operations in the same order, so they give the same bits. Everything here has internal linkage,
// so an instantiation for one set can never be picked by the linker for a caller compiled for
// another (the library functions it calls, std::min and the like, are inlined; the zero fill is a
// plain loop).
#pragma once

#include <algorithm>

#include "models/simd/row_block.hpp"

namespace {  // NOLINT(build/namespaces): see the header comment

using coreset::index_t;
using coreset::models::simd::kSumLanes;
using coreset::models::simd::RowBlock;

/// The lanes of v added in the fixed tree of row_block.hpp (add_lanes).
template <class Ops>
inline double sum_of_lanes(const typename Ops::V& v) {
  double l[kSumLanes];
  Ops::lanes(v, l);
  return coreset::models::simd::add_lanes(l);
}

/// The eight values from p on, or the `count` < 8 left with zeros after them: nothing past the
/// block's end is read.
template <class Ops>
inline typename Ops::V rows_at(const double* p, int count) {
  return count == kSumLanes ? Ops::load(p) : Ops::load_partial(p, count);
}

/// Groups of eight rows kept in flight by linear_predictors: independent fma chains, so that
/// the chain's latency is hidden.
constexpr int kPredictorGroups = 4;

template <class Ops>
void linear_predictors_impl(const RowBlock& block, const double* theta, double* out) {
  using V = typename Ops::V;
  if (block.cols == 0) {
    for (index_t j = 0; j < block.rows; ++j) {
      out[j] = 0.0;
    }
    return;
  }
  constexpr index_t kStep = kPredictorGroups * kSumLanes;
  index_t j = 0;
  for (; j + kStep <= block.rows; j += kStep) {
    V a[kPredictorGroups];
    const V theta0 = Ops::splat(theta[0]);
#pragma GCC unroll 8
    for (int u = 0; u < kPredictorGroups; ++u) {
      a[u] = Ops::mul(Ops::load(block.column(0) + j + u * kSumLanes), theta0);
    }
    for (index_t i = 1; i < block.cols; ++i) {
      const double* z = block.column(i) + j;
      const V t = Ops::splat(theta[i]);
#pragma GCC unroll 8
      for (int u = 0; u < kPredictorGroups; ++u) {
        a[u] = Ops::fma(Ops::load(z + u * kSumLanes), t, a[u]);
      }
    }
#pragma GCC unroll 8
    for (int u = 0; u < kPredictorGroups; ++u) {
      Ops::store(out + j + u * kSumLanes, a[u]);
    }
  }
  for (; j < block.rows; j += kSumLanes) {  // one group at a time; the last may be partial
    const int count = static_cast<int>(std::min<index_t>(kSumLanes, block.rows - j));
    V a = Ops::mul(rows_at<Ops>(block.column(0) + j, count), Ops::splat(theta[0]));
    for (index_t i = 1; i < block.cols; ++i) {
      a = Ops::fma(rows_at<Ops>(block.column(i) + j, count), Ops::splat(theta[i]), a);
    }
    Ops::store_partial(out + j, a, count);
  }
}

/// out[t] = sum over the block's rows of w_j z_j,(first + t) for t < W, in the lanes of
/// row_block.hpp, where w_j = weight_j, or (kScaled) weight_j scale_j rounded. The W
/// accumulators stay in registers across the rows (the loops over t are unrolled: at -O2 GCC
/// would otherwise keep them in memory, and each fma would wait on a store).
template <class Ops, int W, bool kScaled>
inline void accumulate_columns(const RowBlock& block, const double* weight, const double* scale,
                               index_t first, double* out) {
  using V = typename Ops::V;
  const double* z[W];
  V p[W];
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    z[t] = block.column(first + t);
    p[t] = Ops::splat(0.0);
  }
  const index_t whole = block.rows / kSumLanes * kSumLanes;
  for (index_t j = 0; j < whole; j += kSumLanes) {
    V w = Ops::load(weight + j);
    if constexpr (kScaled) {
      w = Ops::mul(w, Ops::load(scale + j));
    }
#pragma GCC unroll 8
    for (int t = 0; t < W; ++t) {
      p[t] = Ops::fma(w, Ops::load(z[t] + j), p[t]);
    }
  }
  if (whole < block.rows) {  // the last rows, with zeros in the lanes past the block
    const int count = static_cast<int>(block.rows - whole);
    V w = Ops::load_partial(weight + whole, count);
    if constexpr (kScaled) {
      w = Ops::mul(w, Ops::load_partial(scale + whole, count));
    }
#pragma GCC unroll 8
    for (int t = 0; t < W; ++t) {
      p[t] = Ops::fma(w, Ops::load_partial(z[t] + whole, count), p[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    out[t] = sum_of_lanes<Ops>(p[t]);
  }
}

/// Columns first ... first + width - 1 (1 <= width <= kMaxWidth) of accumulate_columns: the
/// instantiation for `width`, found by counting down from kMaxWidth.
template <class Ops, bool kScaled, int kMaxWidth>
inline void accumulate_columns(const RowBlock& block, const double* weight, const double* scale,
                               index_t first, index_t width, double* out) {
  if constexpr (kMaxWidth > 1) {
    if (width < kMaxWidth) {
      accumulate_columns<Ops, kScaled, kMaxWidth - 1>(block, weight, scale, first, width, out);
      return;
    }
  }
  accumulate_columns<Ops, kMaxWidth, kScaled>(block, weight, scale, first, out);
}

template <class Ops>
void weighted_row_sums_impl(const RowBlock& block, const double* g, const double* c, double* vector,
                            double* upper) {
  // Columns summed at once (Ops::kColumnTile): enough accumulators to keep the FMA units busy
  // without spilling the set's registers.
  constexpr int tile = Ops::kColumnTile;
  if (vector != nullptr) {
    for (index_t i = 0; i < block.cols; i += tile) {
      accumulate_columns<Ops, false, tile>(block, g, nullptr, i,
                                           std::min<index_t>(tile, block.cols - i), vector + i);
    }
  }
  if (upper != nullptr) {
    for (index_t l = 0; l < block.cols; ++l) {
      double* column_l = upper + l * (l + 1) / 2;  // entries (0, l) ... (l, l)
      for (index_t i = 0; i <= l; i += tile) {
        accumulate_columns<Ops, true, tile>(block, c, block.column(l), i,
                                            std::min<index_t>(tile, l + 1 - i), column_l + i);
      }
    }
  }
}

}  // namespace
