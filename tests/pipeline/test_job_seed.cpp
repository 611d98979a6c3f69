// One seed per job (BuildOptions::seed) and one precision (BuildOptions::precision): the build's
// samples, RBF centres and solver draws follow the seed exactly as build.hpp documents (each seeds
// its own generator with the job's seed itself, which keeps the coresets of the 0.1 API, whose
// three seeds the command filled with one value), and a float build solves on the float Phi of
// those samples.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "coreset/build.hpp"
#include "coreset/solver.hpp"
#include "cpu/projection.hpp"
#include "models/model.hpp"
#include "posterior/posterior.hpp"

namespace coreset {
namespace {

// x_n ~ N((1, 2), I) for the gaussian model; with a response y = x1 - x2 + noise for linear.
Dataset small_data(index_t rows) {
  Dataset data;
  data.covariates = Matrix<double>(rows, 2);
  data.response.resize(static_cast<std::size_t>(rows));
  std::mt19937_64 generator(17);
  std::normal_distribution<double> normal;
  for (index_t i = 0; i < rows; ++i) {
    data.covariates(i, 0) = 1.0 + normal(generator);
    data.covariates(i, 1) = 2.0 + normal(generator);
    data.response[static_cast<std::size_t>(i)] =
        data.covariates(i, 0) - data.covariates(i, 1) + 0.1 * normal(generator);
  }
  return data;
}

BuildOptions options_for(ModelKind kind, std::uint64_t seed) {
  BuildOptions options;
  options.model.kind = kind;
  options.samples = 40;
  options.solver.k = 8;
  options.seed = seed;
  return options;
}

// The solver's draws: uniform subsampling ignores Phi, so the build's uniform coreset is exactly
// solve()'s on any Phi of n columns with SolverOptions::seed = the job's seed.
TEST(JobSeed, TheSolverDrawsWithTheJobSeed) {
  const Dataset data = small_data(120);
  Matrix<double> ones(3, data.rows());
  for (index_t j = 0; j < data.rows(); ++j) {
    for (index_t i = 0; i < 3; ++i) {
      ones(i, j) = 1.0;
    }
  }
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{5}}) {
    BuildOptions options = options_for(ModelKind::gaussian, seed);
    options.solver.algorithm = BuildAlgorithm::uniform;
    const PreparedProblem problem(data, options);
    EXPECT_EQ(problem.seed(), seed);
    const Coreset built = problem.solve(options.solver).coreset;
    SolverOptions bare;
    bare.algorithm = Algorithm::uniform;
    bare.k = options.solver.k;
    bare.seed = seed;
    const Coreset direct = solve(ones.view(), nullptr, bare).coreset;
    EXPECT_EQ(built.indices, direct.indices) << "seed " << seed;
    EXPECT_EQ(built.weights, direct.weights) << "seed " << seed;
    bare.seed = seed + 1;
    EXPECT_NE(solve(ones.view(), nullptr, bare).coreset.indices, built.indices);
  }
}

// The RBF centres: the build's full posterior is the exact posterior of the model whose centres
// were drawn with the job's seed; another seed moves the centres and so the posterior.
TEST(JobSeed, TheRbfCentresAreDrawnWithTheJobSeed) {
  const Dataset data = small_data(150);
  BuildOptions options = options_for(ModelKind::linear, 9);
  options.model.rbf.enabled = true;
  options.model.rbf.centers_per_scale = 5;
  options.model.rbf.scales = {0.5, 1.0};
  const PreparedProblem problem(data, options);
  const posterior::Gaussian expected =
      posterior::exact_posterior(models::make_model(data, options.model, 9), nullptr);
  const std::vector<double> mean(expected.mean.data(), expected.mean.data() + expected.mean.size());
  EXPECT_EQ(problem.full_posterior_mean(), mean);

  options.seed = 10;
  EXPECT_NE(PreparedProblem(data, options).full_posterior_mean(), mean);
  options.seed = 9;
  EXPECT_EQ(PreparedProblem(data, options).full_posterior_mean(), mean);  // same seed, same
}

// The samples and the precision: a float build solves on the float Phi of the S draws from
// pi-hat seeded with the job's seed, bit for bit, and that is not the double Phi's solve.
TEST(JobSeed, AFloatBuildSolvesOnTheFloatPhiOfTheSeededSamples) {
  const Dataset data = small_data(200);
  BuildOptions options = options_for(ModelKind::gaussian, 4);
  options.precision = Precision::float32;
  options.solver.algorithm = BuildAlgorithm::aiht2;
  const PreparedProblem problem(data, options);
  ASSERT_EQ(problem.precision(), Precision::float32);
  const SolveResult built = problem.solve(options.solver);

  const models::Model model = models::make_model(data, options.model, options.seed);
  const Eigen::MatrixXd samples = posterior::draw_samples(
      posterior::exact_posterior(model, nullptr), options.samples, options.seed);
  SolverOptions bare;
  bare.algorithm = Algorithm::aiht2;
  bare.k = options.solver.k;
  bare.seed = options.seed;
  const Matrix<float> phi_float = cpu::projection<float>(model, samples, 1);
  const SolveResult direct = solve(phi_float.view(), nullptr, bare);
  EXPECT_EQ(built.coreset.indices, direct.coreset.indices);
  EXPECT_EQ(built.coreset.weights, direct.coreset.weights);
  EXPECT_EQ(built.objective, direct.objective);

  const Matrix<double> phi_double = cpu::projection<double>(model, samples, 1);
  EXPECT_NE(built.objective, solve(phi_double.view(), nullptr, bare).objective);
}

}  // namespace
}  // namespace coreset
