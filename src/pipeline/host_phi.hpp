// A build's Phi on the host: the whole S x n matrix in one process, or under a communicator this
// rank's block of its columns (a distributed build, coreset/distributed.hpp), with what the
// pipeline does with it besides solving: the target y = Phi 1, the objective of a coreset, and
// SparseVI's refit. Every sum over datapoints is exact (cpu/datapoint_sums.hpp), so the values
// are the same bits whatever the number of ranks, as the distributed solve's are.
#pragma once

#include <cstddef>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/solve_cpu.hpp"
#include "support/collectives.hpp"
#include "support/coreset_checks.hpp"

namespace coreset::pipeline {

template <class T>
struct HostPhi {
  using Scalar = T;
  /// This rank's columns (all n in one process): global columns rank.first ... first + cols - 1.
  Matrix<T> matrix;
  /// rank.comm null: one process, rank.first 0 and rank.columns n.
  cpu::RankColumns rank;
  /// y = Phi 1 over all n columns, exact and rounded once (on every rank).
  std::vector<double> target;

  const cpu::RankColumns* distributed() const { return rank.comm == nullptr ? nullptr : &rank; }
};

/// Sets phi.target: each rank's exact column sums (fixed blocks of kReductionBlock columns),
/// added over the ranks and rounded once. A collective under a communicator.
template <class T>
void sum_columns(HostPhi<T>& phi, int threads) {
  const MatrixView<T> view = phi.matrix.view();
  cpu::ExactSums sums(static_cast<std::size_t>(view.rows));
  const std::vector<T> ones(static_cast<std::size_t>(view.cols), T(1));
  cpu::add_phi_times_dense(view, phi.rank.first, ones.data(), sums, threads);
  if (phi.rank.comm != nullptr) {
    support::sum_over_ranks(*phi.rank.comm, sums);
  }
  cpu::round_into(sums, phi.target);
}

/// ||y - Phi w||^2 for the coreset w (global indices): each residual entry y_i - sum_p w_p
/// Phi_{i,j_p} is summed exactly from the rounded products (each on the rank that holds the
/// column) and rounded once, then squared and added in a fixed order. A collective under a
/// communicator; InvalidArgument for an index outside the n columns.
template <class T>
double objective_of(const HostPhi<T>& phi, const Coreset& coreset) {
  support::check_coreset_columns(coreset, phi.rank.columns);
  const MatrixView<T> view = phi.matrix.view();
  cpu::ExactSums sums(static_cast<std::size_t>(view.rows));
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    const index_t j = coreset.indices[p] - phi.rank.first;
    if (j < 0 || j >= view.cols) {
      continue;  // another rank's column
    }
    const double weight = coreset.weights[p];
    const T* column = view.column(j);
    for (index_t i = 0; i < view.rows; ++i) {
      sums[static_cast<std::size_t>(i)].add(-(weight * static_cast<double>(column[i])));
    }
  }
  if (phi.rank.comm != nullptr) {
    support::sum_over_ranks(*phi.rank.comm, sums);
  }
  std::vector<double> residual(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) {
    sums[i].add(phi.target[i]);
    residual[i] = sums[i].value();
  }
  return cpu::fixed_order_squared_norm(residual.data(), static_cast<index_t>(residual.size()));
}

/// SparseVI's refit on this Phi (cpu::refit_on_cpu; a collective under a communicator).
template <class T>
void refit_with(const HostPhi<T>& phi, const SolverSettings& solver, SolveResult& result) {
  cpu::refit_on_cpu(phi.matrix.view(), static_cast<const T*>(nullptr), solver, result,
                    phi.distributed());
}

}  // namespace coreset::pipeline
