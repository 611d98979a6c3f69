// Every algorithm on the CPU backend. Inputs are assumed validated (pipeline/solve.cpp does that).
#pragma once

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "solvers/budget_snapshots.hpp"

namespace coreset::cpu {

/// One rank's share of a distributed solve: its columns are global columns first ... first +
/// phi.cols - 1 of `columns` (cpu/distributed_backend.hpp).
struct RankColumns {
  const Communicator* comm = nullptr;
  index_t first = 0;
  index_t columns = 0;
};

/// Runs options.algorithm (solvers/run_algorithm.hpp). `y` null means y = Phi 1. `threads` >= 1.
/// `snapshots` (giga, fw): the results at its smaller budgets too (solvers/budget_snapshots.hpp).
/// `rank` (null: one process): this process's share of a distributed solve, on the distributed
/// backend; every rank gets the whole result.
template <class T>
SolveResult solve_on_cpu(MatrixView<T> phi, const T* y, const SolverOptions& options, int threads,
                         solvers::BudgetSnapshots* snapshots = nullptr,
                         const RankColumns* rank = nullptr);

/// The refit of solvers/refit.hpp for a result computed outside run_algorithm (sparsevi, which
/// runs in the pipeline): sets objective_before_refit, then refits when options.refit. `rank`
/// as for solve_on_cpu (a collective then: every rank calls it with the same result).
template <class T>
void refit_on_cpu(MatrixView<T> phi, const T* y, const SolverSettings& options, SolveResult& result,
                  const RankColumns* rank = nullptr);

/// Index of the first non-finite entry in column-major order, or -1 when all are finite.
template <class T>
index_t find_non_finite(MatrixView<T> phi, int threads);

}  // namespace coreset::cpu
