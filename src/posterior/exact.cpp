// The closed-form weighted posteriors of the two conjugate models (spec eqs. 20 and 23).
//
// For both, L_n(theta) = ell(z_n . theta, y_n) - theta^T Q theta / 2 + c_n is quadratic in theta,
// so lj_w is a quadratic and pi_w is exactly Gaussian, with precision and linear term
//
//     P = P0 + sum_n w_n (-ell''_n) z_n z_n^T + (sum_n w_n) Q      (independent of theta),
//     b = sum_n w_n grad L_n(0) = sum_n w_n ell'_n(0) z_n,          mean m = P^{-1} b.
//
// This file evaluates those formulas directly, without log_joint or Newton's method, so that the
// test "Laplace equals the closed form" (spec T37) compares two independent computations.
//
// Cross-check against the spec, prior mean 0:
// - Gaussian mean model (eq. 20), ell = a (ell' = 1, ell'' = 0), z_n = Sigma^{-1} x_n,
//   Q = Sigma^{-1}, P0 = Sigma0^{-1}: P = Sigma0^{-1} + (sum w) Sigma^{-1} = Sigma_w^{-1} and
//   m = Sigma_w sum w_n Sigma^{-1} x_n = Sigma_w (Sigma^{-1} sum w_n x_n) = mu_w.
// - Linear regression (eq. 23), ell = -(y - a)^2 p / 2 with p = sigma^{-2}: ell'(0) = p y,
//   ell'' = -p, Q = 0: P = Sigma0^{-1} + sigma^{-2} sum w_n b_n b_n^T = Sigma_w^{-1} and
//   m = Sigma_w (sigma^{-2} sum w_n y_n b_n) = mu_w with z_n = b_n.
#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "models/row_sums.hpp"
#include "posterior/posterior.hpp"

namespace coreset::posterior {
namespace {

/// The link's constants in theta: ell'(0) = slope * y + intercept and -ell'' = curvature.
struct QuadraticLink {
  double slope;      ///< coefficient of y_n in ell'(0)
  double intercept;  ///< constant part of ell'(0)
  double curvature;  ///< -ell'', the same for every datapoint and every theta
};

QuadraticLink quadratic_link(const models::Model& model) {
  if (model.kind == ModelKind::gaussian && model.link == models::Link::identity) {
    return {0.0, 1.0, 0.0};
  }
  if (model.kind == ModelKind::linear && model.link == models::Link::gaussian) {
    const double p = model.noise_precision;
    return {p, 0.0, p};
  }
  if (model.kind == ModelKind::gaussian || model.kind == ModelKind::linear) {
    throw InvalidArgument("exact_posterior: the " + to_string(model.kind) +
                          " model has a link that is not quadratic in theta");
  }
  throw InvalidArgument("exact_posterior: there is no closed form for the " +
                        to_string(model.kind) +
                        " model (only gaussian and linear); use the Laplace approximation");
}

/// Adds the data's terms over the visited rows (all n, or the coreset's gathered): to the
/// precision sum_n w_n (-ell'') z_n z_n^T, to the linear term sum_n w_n ell'_n(0) z_n, in the
/// fixed order of models/row_sums.hpp. `weights` null: every w_n = 1 (a block of ones, not an
/// n-vector of them; multiplying by 1 is exact either way).
void add_data_terms(const QuadraticLink& link, const models::Design& rows, const double* weights,
                    const Eigen::Ref<const Eigen::VectorXd>& y, Eigen::MatrixXd& precision,
                    Eigen::VectorXd& linear_term) {
  const auto terms = [&](index_t first, const models::simd::RowBlock& block, Eigen::VectorXd& g,
                         Eigen::VectorXd& c) {
    const index_t count = block.rows;
    const Eigen::Map<const Eigen::VectorXd> w(models::block_weights(weights, first), count);
    g = w.cwiseProduct(link.slope * y.segment(first, count) +
                       Eigen::VectorXd::Constant(count, link.intercept));
    c = link.curvature * w;
    return 0.0;
  };
  const models::RowSums sums = models::sum_over_rows(rows, true, link.curvature != 0.0, terms);
  if (link.curvature != 0.0) {
    precision += sums.matrix;
  }
  linear_term += sums.vector;
}

}  // namespace

Gaussian exact_posterior(const models::Model& model, const Coreset* weights,
                         const models::RowSumsProvider* full_data) {
  const QuadraticLink link = quadratic_link(model);
  const Eigen::Index n = model.rows();
  const Eigen::Index d = model.dim();
  if (model.response.size() != n) {
    throw InvalidArgument("exact_posterior: the model has " + std::to_string(n) +
                          " design rows but " + std::to_string(model.response.size()) +
                          " responses");
  }
  if (model.prior_precision.rows() != d || model.prior_precision.cols() != d) {
    throw InvalidArgument("exact_posterior: the prior precision must be " + std::to_string(d) +
                          " x " + std::to_string(d));
  }
  const bool has_quadratic = model.shared_quadratic.size() != 0;
  if (has_quadratic && (model.shared_quadratic.rows() != d || model.shared_quadratic.cols() != d)) {
    throw InvalidArgument("exact_posterior: the shared quadratic must be " + std::to_string(d) +
                          " x " + std::to_string(d));
  }

  Eigen::MatrixXd precision = model.prior_precision;
  Eigen::VectorXd linear_term = Eigen::VectorXd::Zero(d);
  double total_weight = 0.0;
  if (weights == nullptr && full_data != nullptr) {
    if (full_data->rows() != model.all_rows() || full_data->dim() != d) {
      throw InvalidArgument("exact_posterior: the sums provider does not hold the model's data");
    }
    // At theta = 0 the link's derivatives are the terms above: ell'(0) = slope y + intercept and
    // -ell'' = curvature, so log_joint's sums there are the precision and the linear term.
    const bool curved = link.curvature != 0.0;
    const models::RowSums sums = full_data->link_sums(Eigen::VectorXd::Zero(d), true, curved);
    if (curved) {
      precision += sums.matrix;
    }
    linear_term += sums.vector;
    total_weight = static_cast<double>(model.all_rows());
  } else if (weights == nullptr) {
    if (model.is_share()) {
      throw InvalidArgument(
          "exact_posterior: the model holds one rank's rows: the sums over all need a provider");
    }
    total_weight = static_cast<double>(n);
    add_data_terms(link, model.design, nullptr, model.response, precision, linear_term);
  } else {
    if (model.is_share()) {
      throw InvalidArgument("exact_posterior: a coreset's rows need the whole data");
    }
    if (weights->indices.size() != weights->weights.size()) {
      throw InvalidArgument("exact_posterior: the coreset has " +
                            std::to_string(weights->indices.size()) + " indices but " +
                            std::to_string(weights->weights.size()) + " weights");
    }
    const Eigen::Index k = weights->size();
    Eigen::MatrixXd rows(k, d);
    Eigen::VectorXd y(k);
    const Eigen::Map<const Eigen::VectorXd> w(weights->weights.data(), k);
    for (Eigen::Index i = 0; i < k; ++i) {
      const auto p = static_cast<std::size_t>(i);
      const index_t index = weights->indices[p];
      if (index < 0 || index >= n) {
        throw InvalidArgument("exact_posterior: coreset index " + std::to_string(index) +
                              " is out of range (the model has " + std::to_string(n) +
                              " datapoints)");
      }
      if (!(w[i] >= 0.0) || !std::isfinite(w[i])) {
        throw InvalidArgument("exact_posterior: coreset weight " + std::to_string(p) +
                              " is negative or not finite");
      }
      rows.row(i) = model.design.row(index);
      y[i] = model.response[index];
      total_weight += w[i];
    }
    add_data_terms(link, models::Design(std::move(rows)), w.data(), y, precision, linear_term);
  }
  if (has_quadratic) {
    precision += total_weight * model.shared_quadratic;
  }
  const Eigen::MatrixXd transpose = precision.transpose();
  precision = 0.5 * (precision + transpose);

  // Finite covariates and responses can still overflow these sums (a covariate of 1e300 squares
  // to infinity): said here, where it happens, not later as non-finite parameter samples.
  if (!precision.allFinite() || !linear_term.allFinite()) {
    throw NumericalError(
        "exact_posterior: the posterior's sums overflowed (covariates or responses too large "
        "for double: rescale them)");
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(precision);
  if (llt.info() != Eigen::Success) {
    throw NumericalError("exact_posterior: the posterior precision is not positive definite");
  }
  Gaussian result;
  result.mean = llt.solve(linear_term);
  const Eigen::MatrixXd covariance = llt.solve(Eigen::MatrixXd::Identity(d, d));
  result.covariance = 0.5 * (covariance + covariance.transpose());
  if (!result.mean.allFinite() || !result.covariance.allFinite()) {
    throw NumericalError(
        "exact_posterior: the posterior's mean or covariance is not finite (covariates or "
        "responses too large or too small for double: rescale them)");
  }
  return result;
}

}  // namespace coreset::posterior
