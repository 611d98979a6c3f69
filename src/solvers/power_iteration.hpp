// Estimate of lambda_max(Phi^T Phi) for the safe IHT step (spec 2.2), by power iteration.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace coreset::solvers {

/// Returns an estimate of lambda_max(Phi^T Phi), normally from above (0 for Phi = 0).
///
/// Each step costs two dense passes (u = Phi v, then Phi^T u). With v a unit vector,
/// rho = ||Phi v||^2 is the Rayleigh quotient, a lower bound that rises to lambda_max, and
/// res = ||Phi^T Phi v - rho v|| = sqrt(||Phi^T u||^2 - rho^2) bounds the distance from rho to an
/// eigenvalue. Once power iteration has made v dominant, that eigenvalue is lambda_max, so
/// rho + res is returned. Stops when res <= 1e-4 rho or after `max_steps` (2 passes each).
/// When the top eigenvalues cluster (wide random matrices) v is not dominant within the budget
/// and the estimate can fall a little below lambda_max, so the IHT driver also backtracks any
/// step that raises f.
template <class Backend>
double estimate_lambda_max(Backend& be, std::uint64_t seed, int max_steps = 30) {
  auto v = be.make_datapoint_vector();
  auto next = be.make_datapoint_vector();
  auto u = be.make_sample_vector();
  be.fill_unit_random(v, seed);
  double estimate = 0.0;
  for (int step = 0; step < max_steps; ++step) {
    be.phi_times_dense(v, u);
    const double rho = be.read(be.dot(u, u));
    if (!(rho > 0.0)) {
      // Phi v = 0 for a random v: Phi = 0 with probability one.
      return 0.0;
    }
    be.phi_t_times(u, next);
    const double next_norm_sq = be.read(be.dot(next, next));
    const double res = std::sqrt(std::max(0.0, next_norm_sq - rho * rho));
    estimate = rho + res;
    if (res <= 1e-4 * rho) {
      break;
    }
    be.scale(1.0 / std::sqrt(next_norm_sq), next, v);
  }
  return estimate;
}

}  // namespace coreset::solvers
