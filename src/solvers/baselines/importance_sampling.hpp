// Hilbert importance sampling (spec 2.9: [HIL] Algorithm 1), written once against a backend.
//
// sigma_n = ||Phi_n||, sigma = sum_n sigma_n. k draws with replacement pick column n with
// probability p_n = sigma_n / sigma; a column drawn M_n times gets the weight
// W_n = (sigma / sigma_n) (M_n / k). E[W_n] = 1, so E[Phi W] = Phi 1: the estimate is unbiased
// for the default target y = Phi 1. y itself is not looked at (a given y only enters the
// reported objective).
//
// The norms take one dense pass; the draws are made on the host by inverse-CDF sampling from
// the portable generator of support/random.hpp seeded with options.seed (O(n) for the cumulative
// sums, O(log n) per draw), so every backend and thread count makes the same draws.
//
// Edges: zero columns are never drawn (their cumulative sum does not rise); repeats merge, so
// the coreset has at most min(k, n) points and usually fewer; Phi = 0 gives the empty coreset
// (0 iterations, stationary). Otherwise iterations = 1 (one sampling pass), stop reason budget.
#pragma once

#include <algorithm>
#include <vector>

#include "coreset/solver.hpp"
#include "solvers/baselines/common.hpp"
#include "support/random.hpp"

namespace coreset::solvers {

template <class Backend>
SolveResult run_importance_sampling(Backend& be, const typename Backend::SampleVector& y,
                                    const SolverOptions& options) {
  SolveResult result = start_baseline_result(options);
  result.target_norm = target_norm(be, y);
  auto sigma = be.make_datapoint_vector();
  column_norms(be, sigma);
  const std::vector<double> norms = be.to_host(sigma);
  std::vector<double> cumulative(norms.size());
  double running = 0.0;
  index_t last_positive = -1;
  for (std::size_t i = 0; i < norms.size(); ++i) {
    running += norms[i];
    cumulative[i] = running;
    last_positive = norms[i] > 0.0 ? static_cast<index_t>(i) : last_positive;
  }
  const double total = running;
  typename Backend::SparseDatapointVector w;
  if (total > 0.0) {
    std::vector<index_t> counts(norms.size(), 0);
    support::NormalGenerator random(options.seed);
    for (index_t m = 0; m < options.k; ++m) {
      // The first n with cumulative_n > u sigma: column n is hit with probability sigma_n / sigma.
      const double target = random.uniform() * total;
      const auto hit = std::upper_bound(cumulative.begin(), cumulative.end(), target);
      const index_t n = hit == cumulative.end() ? last_positive  // u sigma rounded up to sigma
                                                : static_cast<index_t>(hit - cumulative.begin());
      ++counts[static_cast<std::size_t>(n)];
    }
    std::vector<index_t> index;
    std::vector<double> value;
    const double draws = static_cast<double>(options.k);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] > 0) {
        index.push_back(static_cast<index_t>(i));
        value.push_back(total / norms[i] * (static_cast<double>(counts[i]) / draws));
      }
    }
    be.from_host(index, value, w);
    result.stop_reason = StopReason::budget;
  }
  finish_baseline(be, y, w, result);
  if (total > 0.0) {
    result.iterations = 1;
    result.objective_history.push_back(result.objective);
  }
  return result;
}

}  // namespace coreset::solvers
