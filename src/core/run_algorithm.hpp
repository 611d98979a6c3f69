// From SolverOptions::algorithm to the code that runs it, written once for every backend.
#pragma once

#include "core/baselines/frank_wolfe.hpp"
#include "core/baselines/giga.hpp"
#include "core/baselines/importance_sampling.hpp"
#include "core/baselines/uniform.hpp"
#include "core/iht_driver.hpp"
#include "coreset/solver.hpp"

namespace coreset::core {

/// Solves for the target y on `backend`; options are assumed validated (core/solve.cpp).
template <class Backend>
SolveResult run_algorithm(Backend& backend, const typename Backend::Short& y,
                          const SolverOptions& options) {
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

}  // namespace coreset::core
