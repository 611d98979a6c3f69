// The statistical models a coreset is built for (spec section 3). Every model's per-datapoint
// log-likelihood has the form
//
//     L_n(theta) = ell(z_n . theta, y_n) - 1/2 theta^T Q theta + c_n,
//
// a scalar link of one linear predictor plus a quadratic shared by all datapoints (Q = 0 except
// for the Gaussian mean model), so the log-likelihood of all n datapoints at S samples is one
// matrix product followed by one elementwise pass. Log-likelihoods are in nats.
//
// The option structs below are plain values (thread-safety as for Matrix); nothing is checked
// when they are set. build_coreset, evaluate_coreset and PreparedProblem check them and throw
// InvalidArgument naming the option (as its command-line flag) for a value out of its domain.
#pragma once

#include <string>
#include <vector>

#include "coreset/export.hpp"
#include "coreset/matrix.hpp"
#include "coreset/types.hpp"

namespace coreset {

enum class ModelKind {
  logistic,  ///< y in {-1, 1} (or {0, 1}, mapped to -1, 1); P(y = 1) = sigma(z . theta)
  poisson,   ///< y in {0, 1, 2, ...}; y ~ Poisson(softplus(z . theta)) (spec 3.7, sign A7)
  gaussian,  ///< the Gaussian mean model: x_n ~ N(theta, Sigma), theta ~ prior (spec 3.1)
  linear,    ///< y = z . theta + N(0, sigma^2); optionally radial-basis features (spec 3.5)
};

/// The name used on the command line and in reports: "logistic", "poisson", "gaussian",
/// "linear" ("unknown" for a value outside the enum). Never throws but std::bad_alloc;
/// thread-safe.
CORESET_API std::string to_string(ModelKind kind);
/// Inverse of to_string (exact, case-sensitive match). Throws InvalidArgument listing the
/// accepted names; thread-safe.
CORESET_API ModelKind parse_model(const std::string& name);

/// Radial-basis features for `linear` (spec 3.5): b(x) = exp(-||x - mu||^2 / (2 s^2)) for each
/// scale s and each of `centers_per_scale` centres mu drawn uniformly without replacement from
/// the data rows (min(centers_per_scale, n) per scale; portably, with the job's seed,
/// BuildOptions::seed); plus, when `near_constant_basis`, one basis of scale
/// `near_constant_scale` centred at the mean of the covariates, which replaces the intercept.
/// Scales are in the covariates' units. InvalidArgument (when used) for a scale that is not
/// positive and finite, centers_per_scale < 0, options that give no basis, or `enabled` with a
/// model other than linear.
struct CORESET_API RbfOptions {
  bool enabled = false;
  std::vector<double> scales = {0.2, 0.4, 0.8, 1.2, 1.6, 2.0};  ///< s, each > 0
  index_t centers_per_scale = 50;                               ///< >= 0
  bool near_constant_basis = true;
  double near_constant_scale = 100.0;  ///< > 0
  // No seed of its own: the centres are drawn with the job's seed, BuildOptions::seed.
};

/// The model and its prior (spec 3). d, the number of parameters, is D (+ 1 with the intercept)
/// for logistic, poisson and linear, the number of bases with RBF features, D for gaussian.
struct CORESET_API ModelOptions {
  ModelKind kind = ModelKind::logistic;
  /// logistic, poisson, linear: append a constant covariate (the intercept) as the last
  /// parameter. Ignored by gaussian.
  bool intercept = true;
  /// Prior N(0, prior_sd^2 I), unless prior_covariance is given (d x d, finite, symmetric to a
  /// relative 1e-10, positive definite; 0 x 0 = not given). prior_sd, in the units of theta, is
  /// > 0 and finite with a finite positive square.
  double prior_sd = 1.0;
  Matrix<double> prior_covariance;
  /// The file prior_covariance was read from, if any: a matrix that fails the checks is then an
  /// InputError naming it (else InvalidArgument).
  std::string prior_covariance_source;
  /// gaussian and linear: observation noise N(0, noise_sd^2 I), in the units of x (gaussian) or
  /// of the response (linear), unless noise_covariance is given (gaussian only: D x D, same
  /// checks as prior_covariance; InvalidArgument for another model). noise_sd > 0 and finite.
  double noise_sd = 1.0;
  Matrix<double> noise_covariance;
  std::string noise_covariance_source;  ///< as prior_covariance_source
  RbfOptions rbf;                       ///< linear only
};

}  // namespace coreset
