// The Laplace approximation of the weighted posterior (spec 4.1) by Newton's method.
//
// -grad^2 lj_w is positive definite for every model here (the prior's P0 plus non-negatively
// weighted positive semidefinite terms), so lj_w is strictly concave, its maximiser is unique,
// and Newton's method with a backtracking line search converges to it from any start. The
// reference code uses BFGS with random restarts instead; Newton with the analytic Hessian needs a
// handful of iterations, is deterministic, and gives the covariance at the mode for free.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "coreset/error.hpp"
#include "posterior/posterior.hpp"
#include "support/progress.hpp"

namespace coreset::posterior {
namespace {

/// Armijo's sufficient-increase constant: accept a step s when lj rises by at least this
/// fraction of the increase s g^T step predicted by the linear model.
constexpr double kArmijo = 1e-4;
constexpr int kMaxHalvings = 50;
/// When no step length increases lj any more, the iterate is as good as the log joint's
/// round-off can tell if the decrement (the predicted increase) is below this fraction of |lj|:
/// an increase of 1e-10 |lj| is still far above the ~1e-16 |lj| round-off of evaluating lj, so a
/// line search that fails above it has found a real problem, not noise.
constexpr double kRoundOffDecrement = 1e-10;
/// A decrement below this fraction of |lj| (about 4.5 ulps) is an increase that evaluating lj
/// cannot resolve; the Armijo test would then accept or reject on noise and Newton would churn
/// until the iteration cap. It floors the tolerance, so tolerance 0 means "to round-off".
constexpr double kUnresolvableDecrement = 1e-15;

std::string format(double value) {
  std::ostringstream stream;
  stream.precision(3);
  stream << value;
  return stream.str();
}

/// lj_w, its gradient and negative Hessian at theta, and the Cholesky factor of the latter.
struct Point {
  Eigen::VectorXd theta;
  double log_joint = 0.0;
  Eigen::VectorXd gradient;
  Eigen::MatrixXd negative_hessian;
  Eigen::LLT<Eigen::MatrixXd> llt;
};

/// The passes over the rows a fit has taken (LaplaceFit's counts).
struct Passes {
  int full = 0;
  int value = 0;
};

/// Evaluates everything at `theta`. Returns why the point is unusable, or "" when it is fine.
std::string evaluate(const models::Model& model, const Coreset* weights,
                     const models::RowSumsProvider* full_data, Eigen::VectorXd theta, Point& point,
                     Passes& passes) {
  ++passes.full;
  point.theta = std::move(theta);
  point.log_joint = models::log_joint(model, weights, point.theta, &point.gradient,
                                      &point.negative_hessian, full_data);
  if (!std::isfinite(point.log_joint) || !point.gradient.allFinite()) {
    return "the log joint or its gradient is not finite";
  }
  point.llt.compute(point.negative_hessian);
  if (point.llt.info() != Eigen::Success) {
    return "the negative Hessian is not positive definite";
  }
  return "";
}

LaplaceFit finish(const Point& point, int iterations, const Passes& passes) {
  const Eigen::Index d = point.theta.size();
  LaplaceFit fit;
  fit.full_evaluations = passes.full;
  fit.value_evaluations = passes.value;
  fit.posterior.mean = point.theta;
  const Eigen::MatrixXd covariance = point.llt.solve(Eigen::MatrixXd::Identity(d, d));
  fit.posterior.covariance = 0.5 * (covariance + covariance.transpose());
  fit.iterations = iterations;
  fit.gradient_norm = point.gradient.norm();
  return fit;
}

}  // namespace

LaplaceFit laplace(const models::Model& model, const Coreset* weights,
                   const LaplaceOptions& options) {
  if (options.max_iterations < 1) {
    throw InvalidArgument("Laplace: max_iterations must be at least 1 (got " +
                          std::to_string(options.max_iterations) + ")");
  }
  if (!(options.decrement_tolerance >= 0.0) || !std::isfinite(options.decrement_tolerance)) {
    throw InvalidArgument("Laplace: decrement_tolerance must be a finite number >= 0");
  }

  // The sums over the data come from the provider, or from the host (its reference).
  const models::RowSumsProvider* full_data = weights == nullptr ? options.full_data : nullptr;
  // The prior mean: with total weight 0 the gradient there is exactly 0, the decrement is 0, and
  // the loop returns the prior N(0, P0^{-1}) before taking any step.
  Point point;
  Passes passes;
  const std::string start =
      evaluate(model, weights, full_data, Eigen::VectorXd::Zero(model.dim()), point, passes);
  if (!start.empty()) {
    throw NumericalError("Laplace: " + start + " at iteration 0 (theta = 0)");
  }
  Point candidate;
  // Over the ranks' sums every rank takes each step at once, and they stop together.
  const Communicator* comm = full_data == nullptr ? nullptr : full_data->communicator();
  for (int iteration = 0;; ++iteration) {
    support::throw_if_stopped(options.progress, comm);
    support::advanced(options.progress, iteration);
    const Eigen::VectorXd step = point.llt.solve(point.gradient);
    // The Newton decrement g^T H^{-1} g / 2 is the increase of lj the quadratic model predicts
    // for the full step, i.e. an estimate of lj(mode) - lj(theta). It is compared with |lj|
    // (floored at 1) because lj is a sum over up to n datapoints: an absolute tolerance would be
    // unreachably tight for large n and meaninglessly loose for small ones.
    const double decrement = 0.5 * point.gradient.dot(step);
    const double scale = std::max(1.0, std::abs(point.log_joint));
    if (decrement <= std::max(options.decrement_tolerance, kUnresolvableDecrement) * scale) {
      // Converged. Newton converges quadratically here, so one more full step takes the gradient
      // from ||g|| to O(||g||^2) for the price of one evaluation; the tolerance alone only bounds
      // ||g|| by about sqrt(2 tolerance |lj| lambda_max(H)). The step is kept only if it really
      // shrinks the gradient. A decrement of exactly 0 (the prior) is returned untouched.
      if (decrement > 0.0 &&
          evaluate(model, weights, full_data, point.theta + step, candidate, passes).empty() &&
          candidate.gradient.norm() < point.gradient.norm()) {
        return finish(candidate, iteration + 1, passes);
      }
      return finish(point, iteration, passes);
    }
    if (iteration == options.max_iterations) {
      throw NumericalError("Laplace: Newton did not converge in " +
                           std::to_string(options.max_iterations) + " iterations (gradient norm " +
                           format(point.gradient.norm()) + ", Newton decrement " +
                           format(decrement) + ")");
    }

    // Backtracking: halve the step until lj rises by at least kArmijo of the predicted increase
    // (2 * decrement is g^T step). lj_w is concave, so some step length always succeeds unless
    // round-off hides the increase. The full step is tried with the derivatives: Newton takes it
    // on nearly every iteration, and the next iteration needs them there, so one pass over the
    // data does for both (a value-only pass and then a full one before). Shorter steps are tried
    // on the value alone. Either evaluation gives the same value, so the path is unchanged.
    double length = 1.0;
    bool accepted = false;
    std::string problem;
    for (int halving = 0; halving <= kMaxHalvings; ++halving, length *= 0.5) {
      double value = 0.0;
      if (halving == 0) {
        problem = evaluate(model, weights, full_data, point.theta + step, candidate, passes);
        value = candidate.log_joint;
      } else {
        ++passes.value;
        value = models::log_joint(model, weights, point.theta + length * step, nullptr, nullptr,
                                  full_data);
      }
      if (std::isfinite(value) && value >= point.log_joint + kArmijo * length * 2.0 * decrement) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      if (decrement <= kRoundOffDecrement * scale) {
        return finish(point, iteration, passes);
      }
      throw NumericalError("Laplace: line search failed at iteration " +
                           std::to_string(iteration + 1) + " (gradient norm " +
                           format(point.gradient.norm()) + ", Newton decrement " +
                           format(decrement) + ")");
    }
    if (length != 1.0) {
      problem = evaluate(model, weights, full_data, point.theta + length * step, candidate, passes);
    }
    if (!problem.empty()) {
      throw NumericalError("Laplace: " + problem + " at iteration " +
                           std::to_string(iteration + 1));
    }
    std::swap(point, candidate);
  }
}

}  // namespace coreset::posterior
