// The closed-form line searches of the A-IHT family: the one place their formulas live.
//
// For f(w) = ||y - Phi w||^2 and a direction d with q = Phi d, the exact minimiser of
// f(x + a d) over a is <r, q> / ||q||^2 with r = y - Phi x. Two special cases matter:
//  - the gradient step along der = Phi^T r restricted to a support S: <r, Phi der_S> equals
//    ||der_S||^2, so the minimiser is ||der_S||^2 / ||Phi der_S||^2 (spec 2.3, line 6, written in
//    terms of der = -grad f / 2);
//  - the momentum step along w_{t+1} - w_t (spec 2.3, line 8).
// `factor` applies the step rule (StepRule::reference halves the gradient step, ::paper the
// momentum). A vanishing or non-finite denominator means no informative direction: step 0.
#pragma once

#include <cmath>

#include "coreset/solver.hpp"
#include "support/host_device.hpp"

namespace coreset::solvers {

CORESET_HOST_DEVICE inline double guarded_step(double numerator, double denominator,
                                               double factor) {
  if (!(denominator > 0.0)) {
    return 0.0;
  }
  const double step = factor * numerator / denominator;
  return std::isfinite(step) ? step : 0.0;
}

/// Multiplier of the exact gradient step under each rule (spec 7, A2).
constexpr double gradient_step_factor(StepRule rule) {
  return rule == StepRule::reference ? 0.5 : 1.0;
}

/// Multiplier of the exact momentum under each rule (spec 7, A1).
constexpr double momentum_factor(StepRule rule) {
  return rule == StepRule::paper ? 0.5 : 1.0;
}

}  // namespace coreset::solvers
