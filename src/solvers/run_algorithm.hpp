// From SolverOptions::algorithm to the code that runs it, written once for every backend.
#pragma once

#include <chrono>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "solvers/backend.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"
#include "solvers/baselines/importance_sampling.hpp"
#include "solvers/baselines/uniform.hpp"
#include "solvers/budget_snapshots.hpp"
#include "solvers/iht_driver.hpp"
#include "solvers/refit.hpp"

namespace coreset::solvers {

/// options.algorithm alone, without the refit. `snapshots`: giga and frank_wolfe only.
template <class Backend>
SolveResult run_chosen_algorithm(Backend& backend, const typename Backend::SampleVector& y,
                                 const SolverOptions& options, BudgetSnapshots* snapshots) {
  // Names the first missing primitive before the drivers' own errors bury it.
  static_assert(check_backend<Backend>());
  const bool greedy =
      options.algorithm == Algorithm::giga || options.algorithm == Algorithm::frank_wolfe;
  if (snapshots != nullptr && !greedy) {
    throw InvalidArgument("budget snapshots are for giga and fw, not " +
                          to_string(options.algorithm));
  }
  switch (options.algorithm) {
    case Algorithm::giga:
      return run_giga(backend, y, options, {}, snapshots);
    case Algorithm::frank_wolfe:
      return run_frank_wolfe(backend, y, options, {}, snapshots);
    case Algorithm::importance_sampling:
      return run_importance_sampling(backend, y, options);
    case Algorithm::uniform:
      return run_uniform(backend, y, options);
    case Algorithm::iht:
    case Algorithm::aiht:
    case Algorithm::aiht2:
      break;
  }
  return IhtDriver<Backend>(backend, y, options).run();
}

/// The target y for a backend whose sample vectors are host vectors (the CPU's, the distributed
/// ones): a copy of `y`, or y = Phi 1 (the backend's column_sums) when `y` is null.
template <class Backend, class T>
typename Backend::SampleVector host_target(const Backend& backend, const T* y) {
  auto target = backend.make_sample_vector();
  if (y != nullptr) {
    target.assign(y, y + backend.rows());
  } else {
    backend.column_sums(target);
  }
  return target;
}

/// Solves for the target y on `backend`, then (options.refit) refits the weights on the support
/// (solvers/refit.hpp); options are assumed validated (pipeline/solve.cpp). With `snapshots`
/// (giga and fw; options.k = its last budget) the run also fills in the result at each of its
/// budgets (budget_snapshots.hpp), each refitted as its own run would be.
template <class Backend>
SolveResult run_algorithm(Backend& backend, const typename Backend::SampleVector& y,
                          const SolverOptions& options, BudgetSnapshots* snapshots = nullptr) {
  if (snapshots != nullptr) {
    snapshots->results.clear();
    snapshots->start = std::chrono::steady_clock::now();
  }
  SolveResult result = run_chosen_algorithm(backend, y, options, snapshots);
  result.objective_before_refit = result.objective;
  if (options.refit) {
    refit_on_support(backend, y, result);
  }
  if (snapshots != nullptr) {
    for (SolveResult& snapshot : snapshots->results) {
      snapshot.objective_before_refit = snapshot.objective;
      if (options.refit) {
        const double before = snapshots->elapsed();
        refit_on_support(backend, y, snapshot);
        snapshot.seconds += snapshots->elapsed() - before;
      }
    }
  }
  return result;
}

}  // namespace coreset::solvers
