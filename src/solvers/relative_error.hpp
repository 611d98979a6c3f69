// The relative error every solver reports (SolveResult::relative_error), in one place.
#pragma once

#include <cmath>

namespace coreset::solvers {

/// ||y - Phi w|| / ||y|| from f(w) = ||y - Phi w||^2 and ||y||; 0 when y = 0.
inline double relative_error(double objective, double target_norm) {
  return target_norm > 0.0 ? std::sqrt(objective) / target_norm : 0.0;
}

}  // namespace coreset::solvers
