// The row block kernels of row_block.hpp, written once over a policy `Ops` of eight-lane
// operations (Ops::V holds kSumLanes doubles; load, load_partial, store, store_partial, splat,
// mul, fma, lanes) and instantiated by one translation unit per instruction set: the baseline
// (a multiply and an add lane by lane), AVX2 (two 4-lane halves) and AVX-512 (one vector);
// Ops::kColumnTile says how many columns the gradient sums at once, and Ops::kHessianTile how
// the Hessian's triangle is cut (square tiles of that many columns, or 1: column strips). Every
// variant runs the same lane operations in the same order, so they give the same bits. Everything
// here has internal linkage, so an instantiation for one set can never be picked by the linker
// for a caller compiled for another (the library functions it calls, std::min and the like, are
// inlined; the zero fill is a plain loop).
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

/// The eight rows from p on, or (kPartial) the `count` < 8 left with zeros after them.
template <class Ops, bool kPartial>
inline typename Ops::V rows_of(const double* p, int count) {
  if constexpr (kPartial) {
    return Ops::load_partial(p, count);
  } else {
    return Ops::load(p);
  }
}

/// Rows j ... j + 7 (kPartial: the `count` left) of gradient_columns: p[t] += g_j z_j,t.
template <class Ops, int W, bool kPartial>
[[gnu::always_inline]] inline void add_gradient_rows(const double* const (&z)[W], const double* g,
                                                     index_t j, int count,
                                                     typename Ops::V (&p)[W]) {
  const typename Ops::V gj = rows_of<Ops, kPartial>(g + j, count);
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    p[t] = Ops::fma(gj, rows_of<Ops, kPartial>(z[t] + j, count), p[t]);
  }
}

/// out[t] = sum over the block's rows of g_j z_j,(first + t) for t < W, in the lanes of
/// row_block.hpp: g^T Z's entries when the Hessian is not wanted (hessian_tile takes them
/// otherwise). The W accumulators are locals, kept in registers across the rows (the loops over
/// t are unrolled: at -O2 GCC would otherwise keep them in memory, and each fma would wait on a
/// store; accumulators that are members of an object stayed in memory too).
template <class Ops, int W>
inline void gradient_columns(const RowBlock& block, const double* g, index_t first, double* out) {
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
    add_gradient_rows<Ops, W, false>(z, g, j, kSumLanes, p);
  }
  if (whole < block.rows) {  // the last rows, with zeros in the lanes past the block
    add_gradient_rows<Ops, W, true>(z, g, whole, static_cast<int>(block.rows - whole), p);
  }
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    out[t] = sum_of_lanes<Ops>(p[t]);
  }
}

/// Columns first ... first + width - 1 (1 <= width <= kMaxWidth) of gradient_columns: the
/// instantiation for `width`, found by counting down from kMaxWidth.
template <class Ops, int kMaxWidth>
inline void gradient_columns(const RowBlock& block, const double* g, index_t first, index_t width,
                             double* out) {
  if constexpr (kMaxWidth > 1) {
    if (width < kMaxWidth) {
      gradient_columns<Ops, kMaxWidth - 1>(block, g, first, width, out);
      return;
    }
  }
  gradient_columns<Ops, kMaxWidth>(block, g, first, out);
}

/// One tile of the Hessian's upper triangle, register-blocked: the entries (i0 + s, l0 + t) for
/// s < WI and t < WL summed in one sweep over the block's rows, each group of rows loading the
/// tile's columns once and updating all WI x WL accumulators from them. Summing one column pair
/// per sweep read three values per fma and left the kernel waiting on loads; a tile reads
/// WI + WL + 1 per WI x WL fmas. A diagonal tile (kDiagonal: i0 = l0, WI = WL) shares its columns
/// between the two roles and keeps only s <= t; with kGradient it also takes g^T Z's entries
/// i0 ... i0 + WI - 1 from the columns it has loaded. Every accumulator's chain is the lane order
/// of row_block.hpp: the tile only interleaves independent chains, so the bits are those of one
/// sum at a time.
template <class Ops, int WI, int WL, bool kDiagonal, bool kGradient>
struct HessianTile {
  using V = typename Ops::V;
  static_assert(!kDiagonal || WI == WL, "a diagonal tile is square");
  static_assert(kDiagonal || !kGradient, "the gradient rides on the diagonal tiles");

  /// Rows j ... j + 7 (kPartial: the `count` left) into the accumulators p (and q).
  template <bool kPartial>
  [[gnu::always_inline]] static void add_rows(const double* const (&zi)[WI],
                                              const double* const (&zl)[WL], const double* g,
                                              const double* c, index_t j, int count, V (&p)[WI][WL],
                                              V (&q)[WI]) {
    const V w = rows_of<Ops, kPartial>(c + j, count);
    V cz[WL];  // c_j z_jl, rounded: the chain's first factor
    if constexpr (kDiagonal) {
      V z[WI];  // the tile's columns, in both roles
#pragma GCC unroll 8
      for (int s = 0; s < WI; ++s) {
        z[s] = rows_of<Ops, kPartial>(zi[s] + j, count);
        cz[s] = Ops::mul(w, z[s]);
      }
      if constexpr (kGradient) {
        const V gj = rows_of<Ops, kPartial>(g + j, count);
#pragma GCC unroll 8
        for (int s = 0; s < WI; ++s) {
          q[s] = Ops::fma(gj, z[s], q[s]);
        }
      }
#pragma GCC unroll 8
      for (int s = 0; s < WI; ++s) {
#pragma GCC unroll 8
        for (int t = s; t < WL; ++t) {
          p[s][t] = Ops::fma(cz[t], z[s], p[s][t]);
        }
      }
    } else {
#pragma GCC unroll 8
      for (int t = 0; t < WL; ++t) {
        cz[t] = Ops::mul(w, rows_of<Ops, kPartial>(zl[t] + j, count));
      }
      // Each row column loaded where it is used: one live at a time, so that sets with 16
      // registers hold a strip's accumulators without spilling.
#pragma GCC unroll 8
      for (int s = 0; s < WI; ++s) {
        const V zs = rows_of<Ops, kPartial>(zi[s] + j, count);
#pragma GCC unroll 8
        for (int t = 0; t < WL; ++t) {
          p[s][t] = Ops::fma(cz[t], zs, p[s][t]);
        }
      }
    }
  }

  /// The tile's sums over the block, written to upper (and vector). The accumulators are
  /// locals: kept in registers, where members of an object stayed in memory.
  static void sum(const RowBlock& block, const double* g, const double* c, index_t i0, index_t l0,
                  double* vector, double* upper) {
    const double* zi[WI];
    const double* zl[WL];
    V p[WI][WL];
    V q[WI];
#pragma GCC unroll 8
    for (int s = 0; s < WI; ++s) {
      zi[s] = block.column(i0 + s);
      q[s] = Ops::splat(0.0);
#pragma GCC unroll 8
      for (int t = 0; t < WL; ++t) {
        p[s][t] = Ops::splat(0.0);
      }
    }
#pragma GCC unroll 8
    for (int t = 0; t < WL; ++t) {
      zl[t] = block.column(l0 + t);
    }
    const index_t whole = block.rows / kSumLanes * kSumLanes;
    for (index_t j = 0; j < whole; j += kSumLanes) {
      add_rows<false>(zi, zl, g, c, j, kSumLanes, p, q);
    }
    if (whole < block.rows) {  // the last rows, with zeros in the lanes past the block
      add_rows<true>(zi, zl, g, c, whole, static_cast<int>(block.rows - whole), p, q);
    }
#pragma GCC unroll 8
    for (int t = 0; t < WL; ++t) {
      const index_t l = l0 + t;
#pragma GCC unroll 8
      for (int s = 0; s < WI; ++s) {
        if (!kDiagonal || s <= t) {
          upper[l * (l + 1) / 2 + i0 + s] = sum_of_lanes<Ops>(p[s][t]);
        }
      }
    }
    if constexpr (kGradient) {
#pragma GCC unroll 8
      for (int s = 0; s < WI; ++s) {
        vector[i0 + s] = sum_of_lanes<Ops>(q[s]);
      }
    }
  }
};

/// The diagonal tile on columns first ... first + width - 1 (1 <= width <= kMaxWidth): the
/// instantiation for `width`, found by counting down from kMaxWidth.
template <class Ops, bool kGradient, int kMaxWidth>
inline void diagonal_tile(const RowBlock& block, const double* g, const double* c, index_t first,
                          index_t width, double* vector, double* upper) {
  if constexpr (kMaxWidth > 1) {
    if (width < kMaxWidth) {
      diagonal_tile<Ops, kGradient, kMaxWidth - 1>(block, g, c, first, width, vector, upper);
      return;
    }
  }
  HessianTile<Ops, kMaxWidth, kMaxWidth, true, kGradient>::sum(block, g, c, first, first, vector,
                                                               upper);
}

/// The tile of rows i0 ... i0 + WI - 1 and columns l0 ... l0 + width - 1, 1 <= width <=
/// kMaxWidth, all above the diagonal: the instantiation for `width`, found by counting down.
template <class Ops, int WI, int kMaxWidth>
inline void off_diagonal_tile(const RowBlock& block, const double* c, index_t i0, index_t l0,
                              index_t width, double* upper) {
  if constexpr (kMaxWidth > 1) {
    if (width < kMaxWidth) {
      off_diagonal_tile<Ops, WI, kMaxWidth - 1>(block, c, i0, l0, width, upper);
      return;
    }
  }
  HessianTile<Ops, WI, kMaxWidth, false, false>::sum(block, nullptr, c, i0, l0, nullptr, upper);
}

/// The strip of rows i0 ... i0 + height - 1 (1 <= height <= kMaxHeight, i0 + height - 1 <= l) of
/// column l: the instantiation for `height`, found by counting down.
template <class Ops, int kMaxHeight>
inline void column_strip(const RowBlock& block, const double* c, index_t i0, index_t l,
                         index_t height, double* upper) {
  if constexpr (kMaxHeight > 1) {
    if (height < kMaxHeight) {
      column_strip<Ops, kMaxHeight - 1>(block, c, i0, l, height, upper);
      return;
    }
  }
  HessianTile<Ops, kMaxHeight, 1, false, false>::sum(block, nullptr, c, i0, l, nullptr, upper);
}

template <class Ops>
void weighted_row_sums_impl(const RowBlock& block, const double* g, const double* c, double* vector,
                            double* upper) {
  if (upper == nullptr) {
    if (vector != nullptr) {
      // Columns summed at once (Ops::kColumnTile): enough accumulators to keep the FMA units
      // busy without spilling the set's registers.
      constexpr int tile = Ops::kColumnTile;
      for (index_t i = 0; i < block.cols; i += tile) {
        gradient_columns<Ops, tile>(block, g, i, std::min<index_t>(tile, block.cols - i),
                                    vector + i);
      }
    }
    return;
  }
  constexpr int tile = Ops::kHessianTile;
  if constexpr (tile == 1) {
    // Column strips: column l's entries kColumnTile rows at a time, each strip a sweep. For sets
    // with 16 registers, where a square tile's accumulators and columns would spill.
    constexpr int height = Ops::kColumnTile;
    for (index_t l = 0; l < block.cols; ++l) {
      for (index_t i0 = 0; i0 <= l; i0 += height) {
        column_strip<Ops, height>(block, c, i0, l, std::min<index_t>(height, l + 1 - i0), upper);
      }
    }
    if (vector != nullptr) {
      weighted_row_sums_impl<Ops>(block, g, nullptr, vector, nullptr);
    }
  } else {
    // Square tiles of `tile` columns: tile b's diagonal tile (which also takes the gradient's
    // entries when they are asked for), then the tiles above it. Only the last tile is narrower,
    // and it is never above the diagonal, so the tiles above take its width alone.
    for (index_t l0 = 0; l0 < block.cols; l0 += tile) {
      const index_t width = std::min<index_t>(tile, block.cols - l0);
      if (vector != nullptr) {
        diagonal_tile<Ops, true, tile>(block, g, c, l0, width, vector, upper);
      } else {
        diagonal_tile<Ops, false, tile>(block, g, c, l0, width, vector, upper);
      }
      for (index_t i0 = 0; i0 < l0; i0 += tile) {
        off_diagonal_tile<Ops, tile, tile>(block, c, i0, l0, width, upper);
      }
    }
  }
}

}  // namespace
