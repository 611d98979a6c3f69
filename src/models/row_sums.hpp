// The sums over datapoints behind the Laplace fit, the exact posterior and the KL evaluations:
//
//     value = sum_n v_n,   vector = sum_n g_n z_n,   matrix = sum_n c_n z_n z_n^T
//
// over the rows z_n of a design, with v_n, g_n and c_n computed per block of rows by the caller.
// They are summed over fixed blocks of rows, each block's vector and matrix by the row block
// kernels (models/simd/row_block.hpp: one lane order on every instruction set, whatever the
// design's stride) on one thread, and the blocks' partial sums added exactly
// (support/exact_sum.hpp) and rounded once: the result is bitwise the same for every thread
// count and for every split of the rows over the ranks of a distributed build at block
// boundaries, the temporaries are O(block) instead of n x d, the design is read in place, and
// the blocks still run in parallel.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "coreset/distributed.hpp"
#include "coreset/types.hpp"
#include "models/design.hpp"
#include "models/simd/row_block.hpp"
#include "support/eigen.hpp"
#include "support/exact_sum.hpp"
#include "support/exact_sum_batch.hpp"
#include "support/exact_sums_by_team.hpp"

namespace coreset::models {

/// What sum_over_rows returns; `vector` and `matrix` are empty unless asked for.
struct RowSums {
  double value = 0.0;
  Eigen::VectorXd vector;
  Eigen::MatrixXd matrix;
};

/// Rows per block: a block of the design and its products stay in a core's L2 cache. The
/// blocks of a distributed build's ranks must be the one-process blocks, and a rank's rows start
/// at a multiple of kReductionBlock (coreset/distributed.hpp): so the two are one.
inline constexpr index_t kRowSumBlock = kReductionBlock;

/// kRowSumBlock ones: a block's unit column (Design::row_block), and its unit weights where a
/// sum has none (log_joint, posterior/exact.cpp).
inline const std::array<double, kRowSumBlock>& unit_block() {
  static const std::array<double, kRowSumBlock> ones = [] {
    std::array<double, kRowSumBlock> values{};
    values.fill(1.0);
    return values;
  }();
  return ones;
}

/// The weights of the block of rows from `first` on: `weights`' own, or, when `weights` is null
/// (every w_n = 1), the block of ones. Multiplying by 1 is exact, so a sum takes the same bits
/// either way, without an n-vector of ones.
inline const double* block_weights(const double* weights, index_t first) {
  return weights != nullptr ? weights + first : unit_block().data();
}

/// Blocks a thread takes at a time, at most: runs of consecutive blocks, so that each thread
/// reads the design's columns as long streams, which the hardware prefetchers follow. Handing
/// out single blocks interleaved the threads' reads, and a pass over the design took about twice
/// as long (n = 1e6, d = 10, on the 2-vCPU build VM).
inline constexpr index_t kBlocksPerRun = 16;

/// Whether exact_sums_over_rows has each block's sums prefetch the next block of the thread's run
/// (simd::RowBlock::prefetch_rows; the sweep over g^T Z does it, so passes that take the value
/// alone do not): on unless turned off. A core streams the design only while it
/// reads a block (the predictors), then works on the block from its caches (the link, the sums)
/// while its share of the memory bandwidth goes unused: on the GPU hosts' 16 Xeon cores each
/// block's reading and arithmetic were measured to add up, not overlap (bench/README.md). The
/// results never depend on it; bench_build_stages times the fit both ways.
inline std::atomic<bool>& row_sums_prefetch() {
  static std::atomic<bool> on{true};
  return on;
}

/// The most a thread's batch of blocks' partial sums holds before they are added exactly
/// (support::ExactSumBatch): kBlocksPerRun blocks' at d = 10 (528 bytes each), fewer for wider
/// designs.
inline constexpr std::size_t kRowSumBatchBytes = std::size_t{16} << 10;

/// The run length for `blocks` blocks over `teams` teams: kBlocksPerRun, or shorter when the
/// blocks are too few for every team to get a run of that length.
inline int row_sum_run(index_t blocks, int teams) {
  return static_cast<int>(std::max<index_t>(1, std::min(kBlocksPerRun, blocks / teams)));
}

/// The exact accumulators sum_over_rows keeps: the value, the vector's d entries when wanted and
/// the matrix's upper triangle (column by column, d (d + 1) / 2 entries) when wanted.
inline index_t row_sum_accumulators(index_t dims, bool want_vector, bool want_matrix) {
  return 1 + (want_vector ? dims : 0) + (want_matrix ? dims * (dims + 1) / 2 : 0);
}

/// Exact partial sums of sum_over_rows, one accumulator per entry (row_sum_accumulators()): what
/// the ranks of a distributed build add up before rounding (support::ExactSum's slots).
using ExactRowSums = std::vector<support::ExactSum>;

/// Adds one part's sums to `acc` in the accumulators' layout: the value, then `vector` (the d
/// entries, or empty when not wanted), then `upper`, the matrix's upper triangle column by column
/// (entry (i, j), i <= j, at j (j + 1) / 2 + i, as simd::weighted_row_sums writes it; empty when
/// not wanted). round_row_sums reads it back.
inline void add_packed_row_sums(double value, const std::vector<double>& vector,
                                const std::vector<double>& upper, ExactRowSums& acc) {
  std::size_t slot = 0;
  acc[slot++].add(value);
  for (const double entry : vector) {
    acc[slot++].add(entry);
  }
  for (const double entry : upper) {
    acc[slot++].add(entry);
  }
}

/// Adds `sums` (a d-vector and a d x d matrix, each when wanted) to `acc` by
/// add_packed_row_sums.
inline void add_row_sums(const RowSums& sums, index_t d, bool want_vector, bool want_matrix,
                         ExactRowSums& acc) {
  std::vector<double> vector;
  if (want_vector) {
    vector.assign(sums.vector.data(), sums.vector.data() + d);
  }
  std::vector<double> upper;
  if (want_matrix) {
    for (index_t j = 0; j < d; ++j) {
      for (index_t i = 0; i <= j; ++i) {
        upper.push_back(sums.matrix(i, j));
      }
    }
  }
  add_packed_row_sums(sums.value, vector, upper, acc);
}

/// The teams that share the blocks: the OpenMP threads, fewer when their accumulators would take
/// more than 256 MiB (568 bytes each). Exactness makes the result independent of the count.
inline int row_sum_teams(index_t blocks, index_t accumulators) {
  const index_t team_bytes = accumulators * static_cast<index_t>(sizeof(support::ExactSum));
  const index_t by_memory = std::max<index_t>(1, (index_t{256} << 20) / team_bytes);
#ifdef _OPENMP
  const index_t threads = omp_get_max_threads();
#else
  const index_t threads = 1;
#endif
  return static_cast<int>(std::max<index_t>(1, std::min({blocks, threads, by_memory})));
}

/// The exact sums over the rows of `design` (see sum_over_rows), unrounded. `terms(first, block,
/// g, c)` gets rows first ... first + block.rows - 1 as `block` (a view of the design, read in
/// place), fills g and c (block.rows entries each; either may be left alone when not wanted) and
/// returns the sum of v_n over those rows. `terms` is called concurrently for disjoint blocks.
/// Each block's sums are taken in double on one thread (simd::weighted_row_sums) and then added
/// exactly, so the result depends on the block boundaries alone: the rows of `design` must start
/// at a multiple of kRowSumBlock of the whole data.
template <class Terms>
ExactRowSums exact_sums_over_rows(const Design& design, bool want_vector, bool want_matrix,
                                  const Terms& terms) {
  const index_t n = design.rows();
  const index_t d = design.cols();
  const index_t blocks = (n + kRowSumBlock - 1) / kRowSumBlock;
  const index_t accumulators = row_sum_accumulators(d, want_vector, want_matrix);
  const int teams = row_sum_teams(blocks, accumulators);
  const int run = row_sum_run(blocks, teams);
  const bool prefetch = row_sums_prefetch().load(std::memory_order_relaxed);
  // One thread's share of the blocks, into its accumulators `mine`.
  const auto sum_blocks = [&](ExactRowSums& mine) {
    Eigen::VectorXd g;
    Eigen::VectorXd c;
    // The blocks' sums, rounded, a row each in add_packed_row_sums' layout, added to `mine` a
    // batch at a time.
    const auto width = static_cast<std::size_t>(accumulators);
    support::ExactSumBatch batch(
        width, support::ExactSumBatch::rows_within(width, kBlocksPerRun, kRowSumBatchBytes));
    const index_t vector_at = 1;
    const index_t upper_at = want_vector ? 1 + d : 1;
#pragma omp for schedule(dynamic, run) nowait
    for (index_t b = 0; b < blocks; ++b) {
      const index_t first = b * kRowSumBlock;
      simd::RowBlock block =
          design.row_block(first, std::min(kRowSumBlock, n - first), unit_block().data());
      // The next block is this thread's too unless this one ends a run (schedule(dynamic, run)
      // hands out runs of `run` blocks from block 0 on).
      if (prefetch && (b + 1) % run != 0) {
        block.prefetch_rows = std::min(kRowSumBlock, n - first - block.rows);
      }
      g.resize(block.rows);
      c.resize(block.rows);
      double* row = batch.next_row();
      row[0] = terms(first, block, g, c);
      // The matrix's general form, not a rank update of diag(sqrt(c)) rows: the square root
      // would need c >= 0, and the Poisson link's -ell'' can round to a tiny negative number.
      simd::weighted_row_sums(block, g.data(), c.data(), want_vector ? row + vector_at : nullptr,
                              want_matrix ? row + upper_at : nullptr);
      if (batch.full()) {
        batch.add_to(mine);
      }
    }
    batch.add_to(mine);
  };
  return support::exact_sums_by_team(teams, static_cast<std::size_t>(accumulators), sum_blocks);
}

/// `sums` (from exact_sums_over_rows, for d columns) rounded once each; the matrix symmetric.
inline RowSums round_row_sums(const ExactRowSums& sums, index_t d, bool want_vector,
                              bool want_matrix) {
  RowSums total;
  std::size_t slot = 0;
  total.value = sums[slot++].value();
  if (want_vector) {
    total.vector.resize(d);
    for (index_t i = 0; i < d; ++i) {
      total.vector[i] = sums[slot++].value();
    }
  }
  if (want_matrix) {
    total.matrix.resize(d, d);
    for (index_t j = 0; j < d; ++j) {
      for (index_t i = 0; i <= j; ++i) {
        total.matrix(i, j) = total.matrix(j, i) = sums[slot++].value();
      }
    }
  }
  return total;
}

/// Sums already rounded (a GPU's, cuda::DeviceDataset::link_sums) as exact accumulators in
/// round_row_sums' layout, each number added once: a GPU rank's part of a distributed build's
/// sums, added exactly to the other ranks' parts.
inline ExactRowSums exact_row_sums_of(const RowSums& sums, index_t d, bool want_vector,
                                      bool want_matrix) {
  ExactRowSums exact(static_cast<std::size_t>(row_sum_accumulators(d, want_vector, want_matrix)));
  add_row_sums(sums, d, want_vector, want_matrix, exact);
  return exact;
}

/// Sums over the rows of `design`, rounded once (exact_sums_over_rows): bitwise the same for
/// every thread count and every split of the rows at kRowSumBlock boundaries.
template <class Terms>
RowSums sum_over_rows(const Design& design, bool want_vector, bool want_matrix,
                      const Terms& terms) {
  return round_row_sums(exact_sums_over_rows(design, want_vector, want_matrix, terms),
                        design.cols(), want_vector, want_matrix);
}

}  // namespace coreset::models
