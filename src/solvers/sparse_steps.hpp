// The entry formulas of the small sparse steps (solvers/backend.hpp states the steps): the one
// place each lives, used by the CPU backend and by the GPU's list kernels
// (kernels/sparse_list_logic.hpp) alike. Each is evaluated in double, operation by operation
// (support/uncontracted.hpp), and rounded once to T, so both backends produce the same bits.
#pragma once

#include "support/host_device.hpp"
#include "support/uncontracted.hpp"

namespace coreset::solvers {

/// projected_step's candidate for an entry of supp(z): z_i + step g_i.
template <class T>
CORESET_HOST_DEVICE inline T step_from(T z, double step, T g) {
  return static_cast<T>(support::add(z, support::mul(step, g)));
}

/// projected_step's candidate outside supp(z): step g_i.
template <class T>
CORESET_HOST_DEVICE inline T step_outside(double step, T g) {
  return static_cast<T>(support::mul(step, g));
}

/// extrapolate: a + tau (a - b), a from the newer iterate (0 off its support).
template <class T>
CORESET_HOST_DEVICE inline T extrapolated(T a, T b, double tau) {
  return static_cast<T>(support::add(a, support::mul(tau, support::sub(a, b))));
}

/// subtract: a - b in T (the one step that does not widen to double).
template <class T>
CORESET_HOST_DEVICE inline T difference(T a, T b) {
  return a - b;
}

/// convex_step: (1 - gamma) w_i, plus gamma * vertex at the new vertex j.
template <class T>
CORESET_HOST_DEVICE inline T convex_combination(T w, double gamma, bool at_vertex, double vertex) {
  const double added = at_vertex ? support::mul(gamma, vertex) : 0.0;
  return static_cast<T>(support::add(support::mul(support::sub(1.0, gamma), w), added));
}

/// scale: c in_i.
template <class T>
CORESET_HOST_DEVICE inline T scaled(double c, T in) {
  return static_cast<T>(support::mul(c, in));
}

}  // namespace coreset::solvers
