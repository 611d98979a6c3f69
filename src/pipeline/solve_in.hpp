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
