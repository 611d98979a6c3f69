// The scalar links ell(a, y) of the models, with their first and second derivatives in the
// linear predictor a = z . theta (spec 3.1, 3.5-3.7). Host-and-device, so the CPU backend and
// the GPU kernels evaluate the same expressions. Stable for |a| up to the floating-point range:
// no exp of a large positive number is ever taken.
#pragma once

#include <cmath>

#include "support/host_device.hpp"

namespace coreset::models {

enum class Link {
  logistic,  ///< ell = log sigma(y a), y in {-1, 1}
  poisson,   ///< ell = y log lambda - lambda, lambda = softplus(a) (log y! is in the offset)
  identity,  ///< ell = a (Gaussian mean model: the quadratic in theta is shared)
  gaussian,  ///< ell = -(y - a)^2 p / 2, p the noise precision (linear regression)
};

struct LinkTerms {
  double value;   ///< ell(a, y)
  double first;   ///< d ell / da
  double second;  ///< d^2 ell / da^2 (<= 0: every link is concave in a)
};

/// e^-|a|: the one exponential behind softplus(a), sigmoid(a) and sigmoid(-a) (below), which a
/// link needing several of them computes once. For a >= 0 it is e^-a, for a < 0 it is e^a: the
/// very numbers each function's branch exponentiates, so sharing it changes no bit.
CORESET_HOST_DEVICE inline double exp_minus_abs(double a) {
  return std::exp(-std::fabs(a));
}

/// log(1 + e^a) without overflow or cancellation, given e = exp_minus_abs(a).
CORESET_HOST_DEVICE inline double softplus(double a, double e) {
  return a > 0.0 ? a + std::log1p(e) : std::log1p(e);
}
CORESET_HOST_DEVICE inline double softplus(double a) {
  return softplus(a, exp_minus_abs(a));
}

/// 1 / (1 + e^-a) without overflow, given e = exp_minus_abs(a) (which is also
/// exp_minus_abs(-a): sigmoid(-a) = sigmoid(-a, e)).
CORESET_HOST_DEVICE inline double sigmoid(double a, double e) {
  return a >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}
CORESET_HOST_DEVICE inline double sigmoid(double a) {
  return sigmoid(a, exp_minus_abs(a));
}

/// ell = log sigma(y a) = -softplus(-y a) (spec 3.6).
CORESET_HOST_DEVICE inline double logistic_value(double a, double y) {
  return -softplus(-y * a);
}

/// ell as above; ell' = y sigma(-y a); ell'' = -sigma(a) sigma(-a). One exponential for the
/// three when |y| = 1 (the labels; then |y a| = |a| exactly), two otherwise, instead of five.
CORESET_HOST_DEVICE inline LinkTerms logistic_link(double a, double y) {
  const double t = -y * a;
  const double e_t = exp_minus_abs(t);
  const double e_a = std::fabs(y) == 1.0 ? e_t : exp_minus_abs(a);
  return {-softplus(t, e_t), y * sigmoid(t, e_t), -sigmoid(a, e_a) * sigmoid(-a, e_a)};
}

/// g(lambda) = 1 - e^-lambda (1 + lambda) = sum_{k >= 2} (-1)^k (k - 1) lambda^k / k!. The
/// closed form cancels for small lambda (g ~ lambda^2 / 2), so below 0.5 the series is summed;
/// 20 terms reach double precision there.
CORESET_HOST_DEVICE inline double poisson_g(double lambda) {
  if (lambda >= 0.5) {
    return 1.0 - std::exp(-lambda) * (1.0 + lambda);
  }
  double term = -lambda;  // (-lambda)^k / k!, here k = 1
  double sum = 0.0;
  for (int k = 2; k <= 20; ++k) {
    term *= -lambda / k;
    sum += (k - 1) * term;
  }
  return sum;
}

/// ell = y log lambda - lambda with lambda = softplus(a), s = sigma(a) = lambda'(a):
/// ell' = (y / lambda - 1) s, ell'' = (y / lambda - 1) s (1 - s) - y s^2 / lambda^2 (spec 3.7).
/// ell'' is evaluated in the equivalent form -s [y g(lambda) / lambda^2 + e^-lambda] (spec 3.7,
/// with 1 - s = e^-lambda), a sum of two terms of one sign: the plain form subtracts two terms near
/// y to get one of size y e^a and loses up to 1e-3 relative as a approaches -30. For a < -30,
/// lambda = e^a (1 - e^a / 2 + ...) underflows towards 0 and y / lambda with it; there the
/// expansion ell = y a - (1 + y/2) e^a + O(e^2a) is exact to double precision.
constexpr double kPoissonExpansionBelow = -30.0;

CORESET_HOST_DEVICE inline LinkTerms poisson_link(double a, double y) {
  if (a < kPoissonExpansionBelow) {
    const double c = (1.0 + 0.5 * y) * std::exp(a);
    return {y * a - c, y - c, -c};
  }
  const double e = exp_minus_abs(a);  // shared by lambda, s and sigma(-a)
  const double lambda = softplus(a, e);
  const double s = sigmoid(a, e);
  const double ratio = y / lambda;
  return {y * std::log(lambda) - lambda, (ratio - 1.0) * s,
          -s * (y * poisson_g(lambda) / lambda / lambda + sigmoid(-a, e))};
}

/// The value of poisson_link alone, for the projection's hot loop.
CORESET_HOST_DEVICE inline double poisson_value(double a, double y) {
  if (a < kPoissonExpansionBelow) {
    return y * a - (1.0 + 0.5 * y) * std::exp(a);
  }
  const double lambda = softplus(a);
  return y * std::log(lambda) - lambda;
}

/// ell = a.
CORESET_HOST_DEVICE inline LinkTerms identity_link(double a) {
  return {a, 1.0, 0.0};
}

/// ell = -(y - a)^2 p / 2.
CORESET_HOST_DEVICE inline double gaussian_value(double a, double y, double precision) {
  const double residual = y - a;
  return -0.5 * precision * residual * residual;
}

/// ell as above; ell' = p (y - a); ell'' = -p.
CORESET_HOST_DEVICE inline LinkTerms gaussian_link(double a, double y, double precision) {
  return {gaussian_value(a, y, precision), precision * (y - a), -precision};
}

/// Dispatch on the link; `precision` is only read by the gaussian link.
CORESET_HOST_DEVICE inline LinkTerms evaluate_link(Link link, double a, double y,
                                                   double precision) {
  switch (link) {
    case Link::logistic:
      return logistic_link(a, y);
    case Link::poisson:
      return poisson_link(a, y);
    case Link::identity:
      return identity_link(a);
    case Link::gaussian:
    default:
      return gaussian_link(a, y, precision);
  }
}

/// ell alone, without the derivatives: what the projection needs for every entry of Phi.
CORESET_HOST_DEVICE inline double link_value(Link link, double a, double y, double precision) {
  switch (link) {
    case Link::logistic:
      return logistic_value(a, y);
    case Link::poisson:
      return poisson_value(a, y);
    case Link::identity:
      return a;
    case Link::gaussian:
    default:
      return gaussian_value(a, y, precision);
  }
}

}  // namespace coreset::models
