// The CPU backend's sums, written once for the one-process backend (cpu_backend.hpp) and the
// distributed one (distributed_backend.hpp), so that both give the same bits:
//   - a dot product down one column (S terms) in a fixed order of its own, independent of where
//     the column lies in memory (Eigen's dot starts its packets at the first aligned address, so
//     a copy of the same column elsewhere could round differently);
//   - every sum over datapoints exact (support/exact_sum.hpp), so that splitting the datapoints
//     over threads or ranks changes nothing: term by term for the sparse products and the
//     datapoint dot products, and for the dense products over all of Phi as exact sums of
//     double partial sums over fixed blocks of kReductionBlock datapoints, aligned to global
//     indices (a rank's block starts at a multiple of kReductionBlock).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "solvers/sparse_vector.hpp"
#include "support/collectives.hpp"
#include "support/exact_sum.hpp"
#include "support/exact_sums_by_team.hpp"

namespace coreset::cpu {

/// One exact accumulator per entry of an S-vector.
using ExactSums = std::vector<support::ExactSum>;

/// The sum of term(0) ... term(n - 1) in Acc, in eight interleaved partial sums (lane l takes
/// the terms i = l mod 8) added pairwise at the end: a fixed order that the compiler may
/// vectorise but not change, so the bits depend on the values alone, not on where they lie in
/// memory (Eigen's reductions start their packets at the first aligned address).
template <class Acc, class Term>
Acc fixed_order_sum(index_t n, Term&& term) {
  constexpr index_t kLanes = 8;
  Acc lane[kLanes] = {};
  index_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (index_t l = 0; l < kLanes; ++l) {
      lane[l] += term(i + l);
    }
  }
  for (index_t l = 0; i < n; ++i, ++l) {
    lane[l] += term(i);
  }
  return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

/// <a, b> over n entries in T, in fixed_order_sum's order.
template <class T>
T fixed_order_dot(const T* a, const T* b, index_t n) {
  return fixed_order_sum<T>(n, [&](index_t i) { return a[i] * b[i]; });
}

/// sum of a_i^2 in double, in fixed_order_sum's order.
template <class T>
double fixed_order_squared_norm(const T* a, index_t n) {
  return fixed_order_sum<double>(n, [&](index_t i) {
    const double x = a[i];
    return x * x;
  });
}

/// acc += sum of double(a_i) double(b_i), exactly.
template <class T>
void add_dot(const T* a, const T* b, index_t n, support::ExactSum& acc) {
  for (index_t i = 0; i < n; ++i) {
    acc.add(static_cast<double>(a[i]) * b[i]);
  }
}

/// acc += sum of double(a_i), exactly.
template <class T>
void add_sum(const T* a, index_t n, support::ExactSum& acc) {
  for (index_t i = 0; i < n; ++i) {
    acc.add(static_cast<double>(a[i]));
  }
}

/// acc[i] += sum over the entries j of v held here (global indices first ... first + cols - 1
/// of the columns of `phi`) of double(v_j) double(Phi_ij), exactly. The rows are split over
/// `threads` (CpuBackend::product_threads()), each accumulator filled by one thread.
template <class T>
void add_phi_times(MatrixView<T> phi, index_t first, const solvers::SparseVector<T>& v,
                   ExactSums& acc, int threads) {
  const auto begin = std::lower_bound(v.index.begin(), v.index.end(), first);
  const auto end = std::lower_bound(begin, v.index.end(), first + phi.cols);
  constexpr index_t kRowChunk = 64;  // a chunk's accumulators (36 KB) stay in cache
  const index_t chunks = (phi.rows + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) if (threads > 1)
  for (index_t chunk = 0; chunk < chunks; ++chunk) {
    const index_t row_end = std::min(phi.rows, (chunk + 1) * kRowChunk);
    for (auto it = begin; it != end; ++it) {
      const double weight = v.value[static_cast<std::size_t>(it - v.index.begin())];
      const T* column = phi.column(*it - first);
      for (index_t i = chunk * kRowChunk; i < row_end; ++i) {
        acc[static_cast<std::size_t>(i)].add(weight * column[i]);
      }
    }
  }
}

/// acc[i] += sum over the columns j here of double(v_j) double(Phi_ij) (v local: v[0] belongs to
/// global column `first`): the columns of each block of kReductionBlock global indices summed in
/// double in index order, each block's sum then added exactly. Blocks split over `threads`
/// (CpuBackend::pass_threads(): 1 where waking a team costs more than it saves); each thread
/// sums into its own accumulators, merged exactly, so the count changes no bit.
template <class T>
void add_phi_times_dense(MatrixView<T> phi, index_t first, const T* v, ExactSums& acc,
                         int threads) {
  const index_t rows = phi.rows;
  const index_t end = first + phi.cols;
  const index_t first_block = first / kReductionBlock;
  const index_t blocks = phi.cols == 0 ? 0 : (end - 1) / kReductionBlock + 1 - first_block;
  // One thread's share of the blocks, into its accumulators `mine`.
  const auto sum_blocks = [&](ExactSums& mine) {
    std::vector<double> partial(static_cast<std::size_t>(rows));
#pragma omp for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      const index_t lo = std::max(first, (first_block + b) * kReductionBlock);
      const index_t hi = std::min(end, (first_block + b + 1) * kReductionBlock);
      std::fill(partial.begin(), partial.end(), 0.0);
      for (index_t j = lo; j < hi; ++j) {
        const double weight = v[j - first];
        const T* column = phi.column(j - first);
        for (index_t i = 0; i < rows; ++i) {
          partial[static_cast<std::size_t>(i)] += weight * column[i];
        }
      }
      for (index_t i = 0; i < rows; ++i) {
        mine[static_cast<std::size_t>(i)].add(partial[static_cast<std::size_t>(i)]);
      }
    }
  };
  const ExactSums sums =
      support::exact_sums_by_team(threads, static_cast<std::size_t>(rows), sum_blocks);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    acc[i].merge(sums[i]);
  }
}

/// out[i] = acc[i] rounded to double, then to T.
template <class T>
void round_into(const ExactSums& acc, std::vector<T>& out) {
  out.resize(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    out[i] = static_cast<T>(acc[i].value());
  }
}

/// y = Phi 1 in double over all columns: this process's block of them (global columns first ...
/// first + phi.cols - 1) summed exactly by add_phi_times_dense, added over the ranks of `comm`
/// (null: one process, first 0) and rounded once. A collective under a communicator.
template <class T>
std::vector<double> exact_column_sums(MatrixView<T> phi, index_t first, const Communicator* comm,
                                      int threads) {
  ExactSums sums(static_cast<std::size_t>(phi.rows));
  const std::vector<T> ones(static_cast<std::size_t>(phi.cols), T(1));
  add_phi_times_dense(phi, first, ones.data(), sums, threads);
  if (comm != nullptr) {
    support::sum_over_ranks(*comm, sums);
  }
  std::vector<double> y;
  round_into(sums, y);
  return y;
}

/// ||target - Phi w||^2 for the coreset w (global indices, checked by the caller; the block and
/// `comm` as for exact_column_sums): each residual entry target_i - sum_p w_p Phi_{i,j_p} is
/// summed exactly from the rounded products, each on the rank that holds the column, rounded
/// once, then squared and added in fixed_order_sum's order. A collective under a communicator.
template <class T>
double exact_objective(MatrixView<T> phi, index_t first, const Communicator* comm,
                       const std::vector<double>& target, const Coreset& coreset) {
  ExactSums sums(static_cast<std::size_t>(phi.rows));
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    const index_t j = coreset.indices[p] - first;
    if (j < 0 || j >= phi.cols) {
      continue;  // another rank's column
    }
    const double weight = coreset.weights[p];
    const T* column = phi.column(j);
    for (index_t i = 0; i < phi.rows; ++i) {
      sums[static_cast<std::size_t>(i)].add(-(weight * static_cast<double>(column[i])));
    }
  }
  if (comm != nullptr) {
    support::sum_over_ranks(*comm, sums);
  }
  std::vector<double> residual(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) {
    sums[i].add(target[i]);
    residual[i] = sums[i].value();
  }
  return fixed_order_squared_norm(residual.data(), static_cast<index_t>(residual.size()));
}

}  // namespace coreset::cpu
