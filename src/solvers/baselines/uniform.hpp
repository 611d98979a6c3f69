// Uniform subsampling (spec 2.11: [HIL] sec. 6 and the authors' code), written once against a
// backend.
//
// k draws with replacement, each column equally likely; a column drawn M_n times gets the
// weight W_n = N M_n / k, so the weights sum to N and E[W_n] = 1 (E[Phi W] = Phi 1). Neither Phi
// nor y is looked at: they only enter the reported objective. The draws are made on the host
// with the portable generator of support/random.hpp seeded with options.seed (exact integer draws
// by rejection), so every backend and thread count makes the same draws.
//
// Edges: every column can be drawn, zero or duplicate ones included (this is the baseline that
// ignores the data); repeats merge, so the coreset has at most min(k, n) points and usually
// fewer. iterations = 1 (one sampling pass), stop reason budget.
#pragma once

#include <vector>

#include "coreset/solver.hpp"
#include "solvers/baselines/common.hpp"
#include "support/random.hpp"

namespace coreset::solvers {

template <class Backend>
SolveResult run_uniform(Backend& be, const typename Backend::SampleVector& y,
                        const SolverOptions& options) {
  SolveResult result = start_baseline_result(options);
  result.target_norm = target_norm(be, y);
  const index_t n = be.cols();
  std::vector<index_t> counts(static_cast<std::size_t>(n), 0);
  support::NormalGenerator random(options.seed);
  for (index_t m = 0; m < options.k; ++m) {
    ++counts[static_cast<std::size_t>(
        support::uniform_below(random.engine(), static_cast<std::uint64_t>(n)))];
  }
  std::vector<index_t> index;
  std::vector<double> value;
  const double scale = static_cast<double>(n) / static_cast<double>(options.k);
  for (index_t i = 0; i < n; ++i) {
    if (counts[static_cast<std::size_t>(i)] > 0) {
      index.push_back(i);
      value.push_back(scale * static_cast<double>(counts[static_cast<std::size_t>(i)]));
    }
  }
  typename Backend::SparseDatapointVector w;
  be.from_host(index, value, w);
  result.stop_reason = StopReason::budget;
  finish_baseline(be, y, w, result);
  result.iterations = 1;
  result.objective_history.push_back(result.objective);
  return result;
}

}  // namespace coreset::solvers
