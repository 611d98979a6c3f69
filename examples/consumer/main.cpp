// Builds a coreset for a logistic regression whose data live in memory, with the public API only.
#include <cmath>
#include <coreset/coreset.hpp>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  // 2,000 points x ~ N(0, I_2), labels +-1 from P(y = 1) = sigma(2 x_0 - x_1).
  const coreset::index_t n = 2000;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit;
  coreset::Dataset data;
  data.covariates = coreset::Matrix<double>(n, 2);
  for (coreset::index_t i = 0; i < n; ++i) {
    data.covariates(i, 0) = normal(rng);
    data.covariates(i, 1) = normal(rng);
    const double z = 2 * data.covariates(i, 0) - data.covariates(i, 1);
    data.response.push_back(unit(rng) < 1 / (1 + std::exp(-z)) ? 1.0 : -1.0);
  }

  coreset::BuildOptions options;  // Laplace pi-hat, a-iht-2, intercept added
  options.model.kind = coreset::ModelKind::logistic;
  options.samples = 200;
  options.solver.k = 40;
  options.seed = 1;
  const coreset::BuildResult result = coreset::build_coreset(data, options);
  std::printf("libcoreset %s: %lld of %lld points, relative error %.4g, KL(full || coreset) %.4g\n",
              coreset::version(), static_cast<long long>(result.solve.coreset.size()),
              static_cast<long long>(n), result.quality.relative_projection_error,
              result.quality.forward_kl);
  return result.solve.coreset.size() > 0 ? 0 : 1;
}
