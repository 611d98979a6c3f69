// The GPU projection against the CPU's (cpu::projection) for every link, at sizes that are
// not multiples of the block sizes. Label `gpu`: skipped without one.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <random>
#include <string>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "cpu/projection.hpp"
#include "cuda/gpu_test_support.hpp"
#include "cuda/projection_cuda.hpp"
#include "models/model.hpp"

namespace coreset {
namespace {

Dataset random_dataset(index_t rows, index_t dims, ModelKind kind, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  std::poisson_distribution<int> counts(3.0);
  Dataset data;
  data.covariates = Matrix<double>(rows, dims);
  data.response.resize(static_cast<std::size_t>(rows));
  for (index_t i = 0; i < rows; ++i) {
    for (index_t c = 0; c < dims; ++c) {
      data.covariates(i, c) = normal(generator);
    }
    double& y = data.response[static_cast<std::size_t>(i)];
    switch (kind) {
      case ModelKind::logistic:
        y = normal(generator) > 0.0 ? 1.0 : -1.0;
        break;
      case ModelKind::poisson:
        y = counts(generator);
        break;
      default:
        y = normal(generator);
        break;
    }
  }
  if (kind == ModelKind::gaussian) {
    data.response.clear();
  }
  return data;
}

class GpuProjection : public ::testing::TestWithParam<ModelKind> {
 protected:
  void SetUp() override { CORESET_REQUIRE_GPU(); }
  cuda::GpuSession session;
};

TEST_P(GpuProjection, MatchesTheCpuProjection) {
  const ModelKind kind = GetParam();
  for (const index_t rows : {1, 300, 4099}) {
    ModelOptions options;
    options.kind = kind;
    const models::Model model = models::make_model(random_dataset(rows, 3, kind, 5), options, 0);
    // S up to 128, 256 and 512: the link values held in registers, 4, 8 or 16 a lane (2, 33, 200
    // and 257 fill some of each lane's places); 600: stored and read back (kernels/projection.cu).
    for (const index_t s : {2, 33, 200, 257, 600}) {
      std::mt19937_64 generator(static_cast<std::uint64_t>(s));
      std::normal_distribution<double> normal(0.0, 0.7);
      Eigen::MatrixXd samples(s, model.dim());
      for (Eigen::Index e = 0; e < samples.size(); ++e) {
        samples.data()[e] = normal(generator);
      }
      const Matrix<double> cpu = cpu::projection<double>(model, samples, 1);
      const Matrix<double> gpu = cuda::projection_on_gpu<double>(session, model, samples);
      ASSERT_EQ(gpu.rows(), cpu.rows());
      ASSERT_EQ(gpu.cols(), cpu.cols());
      double scale = 0.0;
      for (index_t e = 0; e < cpu.rows() * cpu.cols(); ++e) {
        scale = std::max(scale, std::abs(cpu.data()[e]));
      }
      for (index_t e = 0; e < cpu.rows() * cpu.cols(); ++e) {
        ASSERT_NEAR(gpu.data()[e], cpu.data()[e], 1e-11 * (scale + 1.0))
            << to_string(kind) << " n " << rows << " S " << s << " entry " << e;
      }
      // Centred: every column sums to 0.
      for (index_t j = 0; j < gpu.cols(); ++j) {
        double sum = 0.0;
        for (index_t i = 0; i < s; ++i) {
          sum += gpu(i, j);
        }
        ASSERT_NEAR(sum, 0.0, 1e-10 * (scale + 1.0) * static_cast<double>(s));
      }
      const Matrix<float> cpu32 = cpu::projection<float>(model, samples, 1);
      const Matrix<float> gpu32 = cuda::projection_on_gpu<float>(session, model, samples);
      for (index_t e = 0; e < cpu.rows() * cpu.cols(); ++e) {
        ASSERT_NEAR(gpu32.data()[e], cpu32.data()[e], 1e-6 * (scale + 1.0));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryModel, GpuProjection,
                         ::testing::Values(ModelKind::logistic, ModelKind::poisson,
                                           ModelKind::gaussian, ModelKind::linear));

TEST(GpuProjectionErrors, NamesTheFirstNonFiniteLogLikelihood) {
  CORESET_REQUIRE_GPU();
  cuda::GpuSession session;
  ModelOptions options;
  options.kind = ModelKind::linear;
  const models::Model model =
      models::make_model(random_dataset(50, 2, ModelKind::linear, 1), options, 0);
  Eigen::MatrixXd samples = Eigen::MatrixXd::Constant(4, model.dim(), 1e200);
  try {
    cuda::projection_on_gpu<double>(session, model, samples);
    FAIL() << "an overflowing log-likelihood passed";
  } catch (const NumericalError& error) {
    EXPECT_NE(std::string(error.what()).find("datapoint 0 (0-based) at parameter sample 0"),
              std::string::npos)
        << error.what();
  }
}

// Every log-likelihood finite, but a column's sum overflows: the CPU reports it (at the column's
// last sample), and so must the GPU rather than centre by an infinite mean.
TEST(GpuProjectionErrors, NamesAnOverflowingColumnSumAsTheCpuDoes) {
  models::Model model;
  model.kind = ModelKind::gaussian;
  model.link = models::Link::identity;  // ell = a: the values are the GEMM's z
  model.design = Eigen::MatrixXd::Constant(3, 1, 1.0);
  model.response = Eigen::VectorXd::Zero(3);
  model.offset = Eigen::VectorXd::Zero(3);
  const Eigen::MatrixXd samples = Eigen::MatrixXd::Constant(2, 1, 1.5e308);  // 2 x 1.5e308 = inf
  std::string cpu_message;
  try {
    cpu::projection<double>(model, samples, 1);
    FAIL() << "the CPU projection accepted an overflowing sum";
  } catch (const NumericalError& error) {
    cpu_message = error.what();
  }
  EXPECT_NE(cpu_message.find("datapoint 0 (0-based) at parameter sample 1"), std::string::npos)
      << cpu_message;
  CORESET_REQUIRE_GPU();
  cuda::GpuSession session;
  try {
    cuda::projection_on_gpu<double>(session, model, samples);
    FAIL() << "the GPU projection accepted an overflowing sum";
  } catch (const NumericalError& error) {
    EXPECT_EQ(std::string(error.what()), cpu_message);
  }
}

// Checked before any device call (a session makes its resources at first use), so this runs on
// the build machines too.
TEST(GpuProjectionErrors, RejectsAResponseThatDoesNotMatchTheDesign) {
  models::Model model;
  model.link = models::Link::logistic;
  model.design = Eigen::MatrixXd::Constant(5, 2, 0.5);
  model.response = Eigen::VectorXd::Ones(3);  // 3 responses for 5 rows: would read past the end
  model.offset = Eigen::VectorXd::Zero(5);
  const Eigen::MatrixXd samples = Eigen::MatrixXd::Zero(4, 2);
  cuda::GpuSession session;
  EXPECT_THROW(cuda::projection_on_gpu<double>(session, model, samples), InvalidArgument);
}

}  // namespace
}  // namespace coreset
