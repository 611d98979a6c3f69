// coreset::log_likelihoods: the models' L_n(theta) for callers outside the library (the Python
// package's PPL helpers are checked against it), through the same Model the projection uses.
#include <Eigen/Core>
#include <string>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "models/model.hpp"
#include "support/threads.hpp"

namespace coreset {

Matrix<double> log_likelihoods(const Dataset& data, const ModelOptions& model,
                               const Matrix<double>& parameters, std::uint64_t seed) {
  const models::Model bound =
      models::make_model(data, model, seed, {}, models::CovariateStorage::borrowed);
  if (parameters.rows() != bound.dim() || parameters.cols() < 1) {
    throw InvalidArgument(
        "log_likelihoods: parameters must be d x P with d = " + std::to_string(bound.dim()) +
        " (the model's parameters) and P >= 1, got " + std::to_string(parameters.rows()) + " x " +
        std::to_string(parameters.cols()));
  }
  const support::ScopedDefaultTeam team(0);  // every core, within the process's CPU limit
  Matrix<double> values(bound.rows(), parameters.cols());
  for (index_t p = 0; p < parameters.cols(); ++p) {
    const Eigen::VectorXd theta =
        Eigen::Map<const Eigen::VectorXd>(parameters.column(p), parameters.rows());
#pragma omp parallel for schedule(static)
    for (index_t n = 0; n < bound.rows(); ++n) {
      values(n, p) = models::log_likelihood(bound, n, theta);
    }
  }
  return values;
}

}  // namespace coreset
