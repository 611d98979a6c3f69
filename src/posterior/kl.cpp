// KL(p || q) between Gaussians (spec 4.3), from the Cholesky factors of both covariances.
#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "coreset/error.hpp"
#include "posterior/posterior.hpp"

namespace coreset::posterior {
namespace {

void validate(const Gaussian& g, const char* name) {
  const Eigen::Index d = g.mean.size();
  if (g.covariance.rows() != d || g.covariance.cols() != d) {
    throw InvalidArgument(std::string("kl_divergence: ") + name + " has a mean of " +
                          std::to_string(d) + " entries but a " +
                          std::to_string(g.covariance.rows()) + " x " +
                          std::to_string(g.covariance.cols()) + " covariance");
  }
}

Eigen::LLT<Eigen::MatrixXd> factor(const Gaussian& g, const char* name) {
  Eigen::LLT<Eigen::MatrixXd> llt(g.covariance);
  if (llt.info() != Eigen::Success) {
    throw NumericalError(std::string("kl_divergence: the covariance of ") + name +
                         " is not positive definite");
  }
  return llt;
}

/// log det(L L^T) = 2 sum log L_ii; summing logs cannot overflow the way the determinant would.
double log_det(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  return 2.0 * llt.matrixLLT().diagonal().array().log().sum();
}

}  // namespace

double kl_divergence(const Gaussian& p, const Gaussian& q) {
  validate(p, "p");
  validate(q, "q");
  if (p.mean.size() != q.mean.size()) {
    throw InvalidArgument("kl_divergence: p has dimension " + std::to_string(p.mean.size()) +
                          " but q has dimension " + std::to_string(q.mean.size()));
  }
  const Eigen::LLT<Eigen::MatrixXd> lp = factor(p, "p");
  const Eigen::LLT<Eigen::MatrixXd> lq = factor(q, "q");
  const auto d = static_cast<double>(p.mean.size());

  // tr(Sq^{-1} Sp) = tr(Lq^{-T} Lq^{-1} Lp Lp^T) = ||Lq^{-1} Lp||_F^2, and the Mahalanobis term
  // is ||Lq^{-1} (mq - mp)||^2: two triangular solves, no inverse formed.
  const Eigen::MatrixXd lp_lower = lp.matrixL();
  const Eigen::MatrixXd whitened = lq.matrixL().solve(lp_lower);
  const Eigen::VectorXd offset = lq.matrixL().solve(q.mean - p.mean);
  const double kl =
      0.5 * (whitened.squaredNorm() + offset.squaredNorm() - d + log_det(lq) - log_det(lp));
  // KL >= 0 exactly, but the four terms cancel to round-off when p and q (nearly) coincide and
  // can land a few ulps below 0. Callers divide by the prior's KL and plot on a log scale, where
  // a negative value is an error and 0 is the meaningful answer, so round-off is clamped away.
  return std::max(0.0, kl);
}

}  // namespace coreset::posterior
