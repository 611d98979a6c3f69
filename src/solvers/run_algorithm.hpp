// From SolverOptions::algorithm to the code that runs it, written once for every backend.
#pragma once

#include "coreset/solver.hpp"
#include "solvers/backend.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"
#include "solvers/baselines/importance_sampling.hpp"
#include "solvers/baselines/uniform.hpp"
#include "solvers/iht_driver.hpp"
#include "solvers/refit.hpp"

namespace coreset::solvers {

/// options.algorithm alone, without the refit.
template <class Backend>
SolveResult run_chosen_algorithm(Backend& backend, const typename Backend::SampleVector& y,
                                 const SolverOptions& options) {
  // Names the first missing primitive before the drivers' own errors bury it.
  static_assert(check_backend<Backend>());
  switch (options.algorithm) {
    case Algorithm::giga:
      return run_giga(backend, y, options);
    case Algorithm::frank_wolfe:
      return run_frank_wolfe(backend, y, options);
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

/// Solves for the target y on `backend`, then (options.refit) refits the weights on the support
/// (solvers/refit.hpp); options are assumed validated (pipeline/solve.cpp).
template <class Backend>
SolveResult run_algorithm(Backend& backend, const typename Backend::SampleVector& y,
                          const SolverOptions& options) {
  SolveResult result = run_chosen_algorithm(backend, y, options);
  result.objective_before_refit = result.objective;
  if (options.refit) {
    refit_on_support(backend, y, result);
  }
  return result;
}

}  // namespace coreset::solvers
