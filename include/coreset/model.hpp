// The statistical models a coreset is built for (spec section 3). Every model's per-datapoint
// log-likelihood has the form
//
//     L_n(theta) = ell(z_n . theta, y_n) - 1/2 theta^T Q theta + c_n,
//
// a scalar link of one linear predictor plus a quadratic shared by all datapoints (Q = 0 except
// for the Gaussian mean model), so the log-likelihood of all n datapoints at S samples is one
// matrix product followed by one elementwise pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset {

enum class ModelKind {
  logistic,  ///< y in {-1, 1} (or {0, 1}, mapped to -1, 1); P(y = 1) = sigma(z . theta)
  poisson,   ///< y in {0, 1, 2, ...}; y ~ Poisson(softplus(z . theta)) (spec 3.7, sign A7)
  gaussian,  ///< the Gaussian mean model: x_n ~ N(theta, Sigma), theta ~ prior (spec 3.1)
  linear,    ///< y = z . theta + N(0, sigma^2); optionally radial-basis features (spec 3.5)
};

std::string to_string(ModelKind kind);
/// Throws InvalidArgument listing the accepted names.
ModelKind parse_model(const std::string& name);

/// Radial-basis features for `linear` (spec 3.5): for each scale, `centers_per_scale` centres
/// drawn uniformly without replacement from the data rows; plus, when `near_constant_basis`,
/// one basis of scale `near_constant_scale` centred at the mean of the covariates.
struct RbfOptions {
  bool enabled = false;
  std::vector<double> scales = {0.2, 0.4, 0.8, 1.2, 1.6, 2.0};
  index_t centers_per_scale = 50;
  bool near_constant_basis = true;
  double near_constant_scale = 100.0;
  std::uint64_t seed = 0;
};

struct ModelOptions {
  ModelKind kind = ModelKind::logistic;
  /// logistic, poisson, linear: append a constant covariate (the intercept) as the last
  /// parameter. Ignored by gaussian.
  bool intercept = true;
  /// Prior N(0, prior_sd^2 I), unless prior_covariance is given (d x d, symmetric positive
  /// definite, d = number of parameters).
  double prior_sd = 1.0;
  Matrix<double> prior_covariance;
  /// gaussian and linear: observation noise N(0, noise_sd^2 I), unless noise_covariance is given
  /// (gaussian only: D x D).
  double noise_sd = 1.0;
  Matrix<double> noise_covariance;
  RbfOptions rbf;  ///< linear only
};

}  // namespace coreset
