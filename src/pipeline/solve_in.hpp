// solve() inside a job: the checks, progress and timing of the public entry point, on the device
// the job's execution context resolved, for a Phi on the host or one already on the GPU.
#pragma once

#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cuda/device_phi.hpp"
#include "pipeline/execution_context.hpp"
#include "solvers/budget_snapshots.hpp"

namespace coreset::pipeline {

/// y = Phi 1 in double, summed column by column in storage order: the target objective() forms
/// when it is given none. A job keeps it, so that each objective costs O(|coreset| S), not a
/// pass over Phi.
template <class T>
std::vector<double> column_sums(MatrixView<T> phi);

/// objective() with the target given in double (`residual` = y, consumed): the same bits as
/// objective(phi, nullptr, coreset) when it is column_sums(phi). Throws as objective() does for
/// a bad coreset.
template <class T>
double objective_from(MatrixView<T> phi, std::vector<double> residual, const Coreset& coreset);

/// The option checks of solve() (InvalidArgument naming the bad option).
void validate_solver_options(const SolverOptions& options);

/// options.initial_weights against Phi's `columns` (InvalidArgument naming the first offender):
/// a coreset of at most k points, ascending, weights finite and > 0.
void validate_initial_weights(const SolverOptions& options, index_t columns);

/// solve() for a host Phi, on context.device() with context.threads(); options.device and
/// options.threads are not consulted (the context resolved them). `snapshots` (giga and fw, on
/// the CPU): the results at smaller budgets of the same run (solvers/budget_snapshots.hpp).
template <class T>
SolveResult solve_in(const ExecutionContext& context, MatrixView<T> phi, const T* y,
                     const SolverOptions& options, solvers::BudgetSnapshots* snapshots = nullptr);

/// solve() for y = Phi 1 with Phi already on the context's GPU.
template <class T>
SolveResult solve_in(const ExecutionContext& context, const cuda::DevicePhi<T>& phi,
                     const SolverOptions& options, solvers::BudgetSnapshots* snapshots = nullptr);

}  // namespace coreset::pipeline
