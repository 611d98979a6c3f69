// One small dataset per model kind, drawn from the model itself so that the posterior is well
// posed: logistic labels, Poisson counts, linear responses with noise, and the Gaussian mean
// problem. Deterministic in the seed; for tests that must run every model.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/model.hpp"

namespace coreset::test {

inline const std::vector<ModelKind>& all_model_kinds() {
  static const std::vector<ModelKind> kinds{ModelKind::logistic, ModelKind::poisson,
                                            ModelKind::gaussian, ModelKind::linear};
  return kinds;
}

/// `rows` datapoints of `dims` covariates N(0, I) (gaussian: synthetic_gaussian_dataset) with
/// responses drawn from `kind` at a fixed parameter of mixed signs.
inline Dataset model_dataset(ModelKind kind, index_t rows, index_t dims, std::uint64_t seed) {
  if (kind == ModelKind::gaussian) {
    return synthetic_gaussian_dataset(rows, dims, seed);
  }
  Dataset data;
  data.covariates = Matrix<double>::uninitialized(rows, dims);
  data.response.resize(static_cast<std::size_t>(rows));
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  for (index_t i = 0; i < rows; ++i) {
    double a = 0.2;  // the intercept
    for (index_t c = 0; c < dims; ++c) {
      const double x = normal(generator);
      data.covariates(i, c) = x;
      a += (c % 2 == 0 ? 0.5 : -0.3) * x;
    }
    double y = 0.0;
    if (kind == ModelKind::logistic) {
      y = uniform(generator) < 1.0 / (1.0 + std::exp(-a)) ? 1.0 : -1.0;
    } else if (kind == ModelKind::poisson) {
      std::poisson_distribution<int> counts(std::log1p(std::exp(a)));
      y = counts(generator);
    } else {
      y = a + 0.5 * normal(generator);
    }
    data.response[static_cast<std::size_t>(i)] = y;
  }
  return data;
}

}  // namespace coreset::test
