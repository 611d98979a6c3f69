// Gaussian posteriors and approximations of them (spec 4.1-4.3): the Laplace fit, the closed
// forms of the conjugate models, sampling, and the KL divergence between Gaussians.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "coreset/solver.hpp"
#include "models/model.hpp"
#include "models/row_sums_provider.hpp"

namespace coreset::posterior {

struct Gaussian {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
};

struct LaplaceOptions {
  int max_iterations = 100;
  /// Converged when the Newton decrement g^T H^{-1} g / 2 falls below this times
  /// max(1, |lj_w|) (floored at 1e-15, the round-off of evaluating lj_w, so 0 means "to
  /// round-off"). Must be finite and >= 0; max_iterations >= 1.
  double decrement_tolerance = 1e-12;
  /// Polled before every Newton step (throws Cancelled) and told each step's number; the stage
  /// itself is announced by the caller. Null: none.
  ProgressObserver* progress = nullptr;
  /// Where the sums over all datapoints come from when the weights are null (a GPU job's device
  /// copy of the design, cuda/device_dataset.hpp); null: the host reference. Weighted fits
  /// ignore it. Not owned.
  const models::RowSumsProvider* full_data = nullptr;
};

struct LaplaceFit {
  Gaussian posterior;          ///< N(theta_MAP, (-grad^2 lj_w(theta_MAP))^{-1})
  int iterations = 0;          ///< Newton steps, the final polishing step included (<= max + 1)
  double gradient_norm = 0.0;  ///< ||grad lj_w|| at the returned mode
  /// The sums over the data (or the coreset's rows) the fit took: with the gradient and Hessian
  /// (the start, each step, the polishing step), and of the value alone (the line search's
  /// shorter steps). Each is one pass over the rows: what the fit's time is measured against.
  int full_evaluations = 0;
  int value_evaluations = 0;
};

/// Laplace approximation of the posterior with weights `weights` (null: w = 1): Newton's method
/// on lj_w with the analytic Hessian, a Cholesky solve and a backtracking line search, from
/// theta = 0. With w = 0 it returns the prior. Throws NumericalError saying why when Newton does
/// not converge (iteration cap, no ascent direction, a Hessian that is not positive definite).
LaplaceFit laplace(const models::Model& model, const Coreset* weights,
                   const LaplaceOptions& options = {});

/// The closed-form posterior of the conjugate models gaussian and linear for any weights (spec
/// eqs. 20 and 23). Throws InvalidArgument for the other models. `full_data` (weights null
/// only): the provider of the sums over all datapoints (log_joint's at theta = 0, which are the
/// posterior's precision and linear term), as a distributed build's ranks share them; null: the
/// model's own rows (all of them).
Gaussian exact_posterior(const models::Model& model, const Coreset* weights,
                         const models::RowSumsProvider* full_data = nullptr);

/// `count` draws mean + L eps, L L^T = covariance, eps i.i.d. N(0, I) from a generator seeded by
/// `seed`: one sample per row (count x d). The same seed gives the same samples on any machine
/// with the same standard library.
Eigen::MatrixXd draw_samples(const Gaussian& distribution, index_t count, std::uint64_t seed);

/// KL(p || q) between Gaussians of the same dimension (spec 4.3), via Cholesky factors.
double kl_divergence(const Gaussian& p, const Gaussian& q);

}  // namespace coreset::posterior
