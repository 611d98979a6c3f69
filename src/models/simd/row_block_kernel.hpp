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
#include <type_traits>

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

/// f(partial, j, count) for each group of eight rows of a block of `rows`: the whole groups with
/// partial = std::false_type, then the last `count` < 8 rows, if any, with std::true_type (its
/// lanes past the block read as zeros: rows_of).
template <class F>
[[gnu::always_inline]] inline void for_each_row_group(index_t rows, F&& f) {
  const index_t whole = rows / kSumLanes * kSumLanes;
  for (index_t j = 0; j < whole; j += kSumLanes) {
    f(std::false_type{}, j, kSumLanes);
  }
  if (whole < rows) {
    f(std::true_type{}, whole, static_cast<int>(rows - whole));
  }
}

/// f(std::integral_constant<int, width>{}) for a run-time width, 1 <= width <= kMax: the
/// instantiation found by counting down from kMax.
template <int kMax, class F>
inline void with_width(index_t width, F&& f) {
  if constexpr (kMax > 1) {
    if (width < kMax) {
      with_width<kMax - 1>(width, f);
      return;
    }
  }
  f(std::integral_constant<int, kMax>{});
}

/// The next block's line at row group j of each of W columns (`next`, RowBlock::next_column),
/// asked for into the L2 cache (not L1, which holds the block being summed; some CPUs treat every
/// prefetch hint alike), while that group is within
/// the rows the block lets its sweeps prefetch. The sweep over g^T Z does it: it runs once per
/// column on every instruction set, and a line per column per group spreads the requests over
/// the sweep instead of queueing them all at once.
template <int W>
[[gnu::always_inline]] inline void prefetch_next_rows(const double* const (&next)[W], index_t j,
                                                      index_t prefetch_rows) {
  if (j < prefetch_rows) {
#pragma GCC unroll 8
    for (int t = 0; t < W; ++t) {
      __builtin_prefetch(next[t] + j, 0, 2);  // a read, kept in L2 (x86: prefetcht1)
    }
  }
}

/// out[t] = sum over the block's rows of g_j z_j,(first + t) for t < W, in the lanes of
/// row_block.hpp: g^T Z's entries when the Hessian is not wanted (HessianTile takes them
/// otherwise). The W accumulators are locals, kept in registers across the rows (the loops over
/// t are unrolled: at -O2 GCC would otherwise keep them in memory, and each fma would wait on a
/// store; accumulators that are members of an object stayed in memory too).
template <class Ops, int W>
inline void gradient_columns(const RowBlock& block, const double* g, index_t first, double* out) {
  using V = typename Ops::V;
  const double* z[W];
  const double* next[W];
  V p[W];
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    z[t] = block.column(first + t);
    next[t] = block.next_column(first + t);
    p[t] = Ops::splat(0.0);
  }
  for_each_row_group(block.rows, [&](auto partial, index_t j, int count) {
    constexpr bool kPartial = decltype(partial)::value;
    prefetch_next_rows(next, j, block.prefetch_rows);
    const V gj = rows_of<Ops, kPartial>(g + j, count);
#pragma GCC unroll 8
    for (int t = 0; t < W; ++t) {
      p[t] = Ops::fma(gj, rows_of<Ops, kPartial>(z[t] + j, count), p[t]);
    }
  });
#pragma GCC unroll 8
  for (int t = 0; t < W; ++t) {
    out[t] = sum_of_lanes<Ops>(p[t]);
  }
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
    const double* next[WI];  // read only when the tile takes g^T Z (prefetch_next_rows)
    V p[WI][WL];
    V q[WI];
#pragma GCC unroll 8
    for (int s = 0; s < WI; ++s) {
      zi[s] = block.column(i0 + s);
      next[s] = block.next_column(i0 + s);
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
    for_each_row_group(block.rows, [&](auto partial, index_t j, int count) {
      if constexpr (kGradient) {
        prefetch_next_rows(next, j, block.prefetch_rows);
      }
      add_rows<decltype(partial)::value>(zi, zl, g, c, j, count, p, q);
    });
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

template <class Ops>
void weighted_row_sums_impl(const RowBlock& block, const double* g, const double* c, double* vector,
                            double* upper) {
  constexpr int tile = Ops::kHessianTile;
  // Square tiles take the gradient's entries along with the Hessian's; otherwise it has sweeps
  // of its own, Ops::kColumnTile columns at a time (enough accumulators to keep the FMA units
  // busy without spilling the set's registers).
  if (vector != nullptr && (upper == nullptr || tile == 1)) {
    constexpr int columns = Ops::kColumnTile;
    for (index_t i = 0; i < block.cols; i += columns) {
      with_width<columns>(std::min<index_t>(columns, block.cols - i), [&](auto width) {
        gradient_columns<Ops, decltype(width)::value>(block, g, i, vector + i);
      });
    }
  }
  if (upper == nullptr) {
    return;
  }
  if constexpr (tile == 1) {
    // Column strips: column l's entries kColumnTile rows at a time, each strip a sweep. For sets
    // with 16 registers, where a square tile's accumulators and columns would spill.
    constexpr int height = Ops::kColumnTile;
    for (index_t l = 0; l < block.cols; ++l) {
      for (index_t i0 = 0; i0 <= l; i0 += height) {
        with_width<height>(std::min<index_t>(height, l + 1 - i0), [&](auto rows) {
          HessianTile<Ops, decltype(rows)::value, 1, false, false>::sum(block, nullptr, c, i0, l,
                                                                        nullptr, upper);
        });
      }
    }
  } else {
    // Square tiles of `tile` columns: tile b's diagonal tile (which also takes the gradient's
    // entries when they are asked for), then the tiles above it. Only the last tile is narrower,
    // and it is never above the diagonal, so the tiles above are `tile` rows high and take the
    // last tile's width alone.
    for (index_t l0 = 0; l0 < block.cols; l0 += tile) {
      with_width<tile>(std::min<index_t>(tile, block.cols - l0), [&](auto width) {
        constexpr int kWidth = decltype(width)::value;
        if (vector != nullptr) {
          HessianTile<Ops, kWidth, kWidth, true, true>::sum(block, g, c, l0, l0, vector, upper);
        } else {
          HessianTile<Ops, kWidth, kWidth, true, false>::sum(block, g, c, l0, l0, vector, upper);
        }
        for (index_t i0 = 0; i0 < l0; i0 += tile) {
          HessianTile<Ops, tile, kWidth, false, false>::sum(block, nullptr, c, i0, l0, nullptr,
                                                            upper);
        }
      });
    }
  }
}

}  // namespace
