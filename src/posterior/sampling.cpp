// Draws from a Gaussian: theta_j = mean + L eps_j with L L^T = covariance.
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "coreset/error.hpp"
#include "posterior/posterior.hpp"
#include "support/random.hpp"

namespace coreset::posterior {

Eigen::MatrixXd draw_samples(const Gaussian& distribution, index_t count, std::uint64_t seed) {
  const Eigen::Index d = distribution.mean.size();
  if (distribution.covariance.rows() != d || distribution.covariance.cols() != d) {
    throw InvalidArgument("draw_samples: the mean has " + std::to_string(d) +
                          " entries but the covariance is " +
                          std::to_string(distribution.covariance.rows()) + " x " +
                          std::to_string(distribution.covariance.cols()));
  }
  if (count < 0) {
    throw InvalidArgument("draw_samples: the sample count must be >= 0 (got " +
                          std::to_string(count) + ")");
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(distribution.covariance);
  if (llt.info() != Eigen::Success) {
    throw NumericalError("draw_samples: the covariance is not positive definite");
  }

  // eps is filled row by row from one generator, so sample j always consumes normals
  // j*d .. j*d + d - 1: the samples depend only on the seed, never on threading or on how the
  // product below is blocked.
  support::NormalGenerator normal(seed);
  Eigen::MatrixXd samples(count, d);
  for (Eigen::Index j = 0; j < count; ++j) {
    for (Eigen::Index i = 0; i < d; ++i) {
      samples(j, i) = normal();
    }
  }
  if (count == 0 || d == 0) {
    return samples;  // Eigen's triangular product would take the address of entry (0, 0)
  }
  // Row j becomes (L eps_j)^T = eps_j^T L^T, with U = L^T as a triangular view (half the flops).
  samples = samples * llt.matrixU();
  samples.rowwise() += distribution.mean.transpose();
  return samples;
}

}  // namespace coreset::posterior
