#include "cpu/solve_cpu.hpp"

#include "cpu/cpu_backend.hpp"
#include "cpu/distributed_backend.hpp"
#include "solvers/run_algorithm.hpp"
#include "support/non_finite.hpp"

namespace coreset::cpu {

template <class T>
SolveResult solve_on_cpu(MatrixView<T> phi, const T* y, const SolverOptions& options, int threads,
                         solvers::BudgetSnapshots* snapshots, const RankColumns* rank) {
  if (rank != nullptr) {
    DistributedCpuBackend<T> backend(phi, rank->first, rank->columns, *rank->comm, threads);
    return solvers::run_algorithm(backend, solvers::host_target(backend, y), options, snapshots);
  }
  CpuBackend<T> backend(phi, threads);
  return solvers::run_algorithm(backend, solvers::host_target(backend, y), options, snapshots);
}

template <class T>
void refit_on_cpu(MatrixView<T> phi, const T* y, const SolverSettings& options, SolveResult& result,
                  const RankColumns* rank) {
  result.objective_before_refit = result.objective;
  if (!options.refit) {
    return;
  }
  const auto refit = [&](auto& backend) {
    solvers::refit_on_support(backend, solvers::host_target(backend, y), result);
  };
  if (rank != nullptr) {
    DistributedCpuBackend<T> backend(phi, rank->first, rank->columns, *rank->comm, 1);
    refit(backend);
  } else {
    CpuBackend<T> backend(phi, 1);
    refit(backend);
  }
}

template <class T>
index_t find_non_finite(MatrixView<T> phi, int threads) {
  return support::first_non_finite_in_columns(phi.data, phi.rows, phi.cols, phi.ld, threads);
}

template SolveResult solve_on_cpu<float>(MatrixView<float>, const float*, const SolverOptions&, int,
                                         solvers::BudgetSnapshots*, const RankColumns*);
template SolveResult solve_on_cpu<double>(MatrixView<double>, const double*, const SolverOptions&,
                                          int, solvers::BudgetSnapshots*, const RankColumns*);
template void refit_on_cpu<float>(MatrixView<float>, const float*, const SolverSettings&,
                                  SolveResult&, const RankColumns*);
template void refit_on_cpu<double>(MatrixView<double>, const double*, const SolverSettings&,
                                   SolveResult&, const RankColumns*);
template index_t find_non_finite<float>(MatrixView<float>, int);
template index_t find_non_finite<double>(MatrixView<double>, int);

}  // namespace coreset::cpu
