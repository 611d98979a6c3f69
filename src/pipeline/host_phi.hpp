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

/// Sets phi.target (cpu::exact_column_sums). A collective under a communicator.
template <class T>
void sum_columns(HostPhi<T>& phi, int threads) {
  phi.target = cpu::exact_column_sums(phi.matrix.view(), phi.rank.first, phi.rank.comm, threads);
}

/// ||y - Phi w||^2 for the coreset w (global indices; cpu::exact_objective). A collective under
/// a communicator; InvalidArgument for an index outside the n columns.
template <class T>
double objective_of(const HostPhi<T>& phi, const Coreset& coreset) {
  support::check_coreset_columns(coreset, phi.rank.columns);
  return cpu::exact_objective(phi.matrix.view(), phi.rank.first, phi.rank.comm, phi.target,
                              coreset);
}

/// SparseVI's refit on this Phi (cpu::refit_on_cpu; a collective under a communicator).
template <class T>
void refit_with(const HostPhi<T>& phi, const SolverSettings& solver, SolveResult& result) {
  cpu::refit_on_cpu(phi.matrix.view(), static_cast<const T*>(nullptr), solver, result,
                    phi.distributed());
}

}  // namespace coreset::pipeline
