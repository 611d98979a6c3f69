// The GPU projection against the CPU's (cpu::projection) for every link, at sizes that are
// not multiples of the block sizes. Label `gpu`: skipped without one.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/model.hpp"
#include "cpu/projection.hpp"
#include "cuda/gpu_test_support.hpp"
#include "cuda/projection_cuda.hpp"
#include "kernels/check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/projection_launch.hpp"
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

// S = 4: the link values held in registers; 600: stored over z and read back.
TEST(GpuProjectionErrors, NamesTheFirstNonFiniteLogLikelihood) {
  CORESET_REQUIRE_GPU();
  cuda::GpuSession session;
  ModelOptions options;
  options.kind = ModelKind::linear;
  const models::Model model =
      models::make_model(random_dataset(50, 2, ModelKind::linear, 1), options, 0);
  for (const index_t s : {4, 600}) {
    Eigen::MatrixXd samples = Eigen::MatrixXd::Constant(s, model.dim(), 1e200);
    try {
      cuda::projection_on_gpu<double>(session, model, samples);
      FAIL() << "an overflowing log-likelihood passed, S " << s;
    } catch (const NumericalError& error) {
      EXPECT_NE(std::string(error.what()).find("datapoint 0 (0-based) at parameter sample 0"),
                std::string::npos)
          << error.what();
    }
  }
}

// Every log-likelihood finite, but a column's sum overflows: the CPU reports it (at the column's
// last sample), and so must the GPU rather than centre by an infinite mean.
// S = 2: the link values held in registers; 600: stored over z and read back.
TEST(GpuProjectionErrors, NamesAnOverflowingColumnSumAsTheCpuDoes) {
  models::Model model;
  model.kind = ModelKind::gaussian;
  model.link = models::Link::identity;  // ell = a: the values are the GEMM's z
  model.design = Eigen::MatrixXd::Constant(3, 1, 1.0);
  model.response = Eigen::VectorXd::Zero(3);
  model.offset = Eigen::VectorXd::Zero(3);
  const index_t sizes[] = {2, 600};
  std::vector<std::string> cpu_messages;
  for (const index_t s : sizes) {
    // 2 x 1.5e308 = inf: finite values whose sum is not.
    const Eigen::MatrixXd samples = Eigen::MatrixXd::Constant(s, 1, 1.5e308);
    try {
      cpu::projection<double>(model, samples, 1);
      FAIL() << "the CPU projection accepted an overflowing sum, S " << s;
    } catch (const NumericalError& error) {
      cpu_messages.emplace_back(error.what());
    }
    EXPECT_NE(cpu_messages.back().find("datapoint 0 (0-based) at parameter sample " +
                                       std::to_string(s - 1)),
              std::string::npos)
        << cpu_messages.back();
  }
  CORESET_REQUIRE_GPU();
  cuda::GpuSession session;
  for (std::size_t c = 0; c < cpu_messages.size(); ++c) {
    const Eigen::MatrixXd samples = Eigen::MatrixXd::Constant(sizes[c], 1, 1.5e308);
    try {
      cuda::projection_on_gpu<double>(session, model, samples);
      FAIL() << "the GPU projection accepted an overflowing sum, S " << sizes[c];
    } catch (const NumericalError& error) {
      EXPECT_EQ(std::string(error.what()), cpu_messages[c]);
    }
  }
}

// kernels::link_center keeps a column's link values in each lane's registers (LinkValues::held,
// up to S = 512), stores them over z and reads them back (stored; automatic picks one of the two
// by S), or computes them again from z (recomputed): the three ways must give the same
// bits and report the same first non-finite entry, for every link, with and without the shared
// quadratic, in float and double, at the sizes where the lanes' places fill and spill (4, 8 or
// 16 a lane). Both start from the same z.
template <class T>
void expect_held_and_stored_alike(models::Link link, bool with_quadratic, index_t s,
                                  bool with_nan) {
  const index_t width = 37;
  const index_t first = 3;  // columns first.. of a Phi of first + width
  std::mt19937_64 generator(static_cast<std::uint64_t>(s * 8 + static_cast<int>(link)));
  std::normal_distribution<double> normal(0.0, 2.0);
  std::poisson_distribution<int> counts(3.0);
  std::vector<double> z(static_cast<std::size_t>(s * width));
  for (double& x : z) {
    x = normal(generator);
  }
  if (with_nan) {
    z[static_cast<std::size_t>(5 * s + s / 2)] = std::nan("");
  }
  std::vector<double> response(static_cast<std::size_t>(first + width));
  for (double& y : response) {
    y = link == models::Link::logistic  ? (normal(generator) > 0.0 ? 1.0 : -1.0)
        : link == models::Link::poisson ? counts(generator)
                                        : normal(generator);
  }
  std::vector<double> quadratic(static_cast<std::size_t>(s));
  for (double& q : quadratic) {
    q = normal(generator);
  }
  kernels::DeviceBuffer<double> z_device(s * width);
  kernels::DeviceBuffer<double> response_device(first + width);
  kernels::DeviceBuffer<double> quadratic_device(s);
  kernels::DeviceBuffer<unsigned long long> first_bad(1);
  CORESET_CUDA_TRY(cudaMemcpy(response_device.data(), response.data(),
                              response.size() * sizeof(double), cudaMemcpyHostToDevice));
  CORESET_CUDA_TRY(cudaMemcpy(quadratic_device.data(), quadratic.data(),
                              quadratic.size() * sizeof(double), cudaMemcpyHostToDevice));
  const auto run = [&](kernels::LinkValues values, std::vector<T>& phi, unsigned long long& bad) {
    kernels::DeviceBuffer<T> phi_device((first + width) * s);
    CORESET_CUDA_TRY(cudaMemset(phi_device.data(), 0, phi_device.size() * sizeof(T)));
    CORESET_CUDA_TRY(
        cudaMemcpy(z_device.data(), z.data(), z.size() * sizeof(double), cudaMemcpyHostToDevice));
    const unsigned long long none = ULLONG_MAX;
    CORESET_CUDA_TRY(cudaMemcpy(first_bad.data(), &none, sizeof none, cudaMemcpyHostToDevice));
    kernels::link_center<T>(nullptr, z_device.data(), s, first, width, response_device.data(),
                            with_quadratic ? quadratic_device.data() : nullptr, link, 0.7,
                            phi_device.data(), first_bad.data(), values);
    CORESET_CUDA_TRY(cudaDeviceSynchronize());
    phi.resize(static_cast<std::size_t>(phi_device.size()));
    CORESET_CUDA_TRY(
        cudaMemcpy(phi.data(), phi_device.data(), phi.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CORESET_CUDA_TRY(cudaMemcpy(&bad, first_bad.data(), sizeof bad, cudaMemcpyDeviceToHost));
  };
  std::vector<T> held;
  std::vector<T> stored;
  std::vector<T> recomputed;
  unsigned long long held_bad = 0;
  unsigned long long stored_bad = 0;
  unsigned long long recomputed_bad = 0;
  run(kernels::LinkValues::held, held, held_bad);
  run(kernels::LinkValues::stored, stored, stored_bad);
  run(kernels::LinkValues::recomputed, recomputed, recomputed_bad);
  const std::string what = "link " + std::to_string(static_cast<int>(link)) + " S " +
                           std::to_string(s) + (with_quadratic ? " quadratic" : "") +
                           (with_nan ? " NaN" : "") + (sizeof(T) == 4 ? " float" : " double");
  EXPECT_EQ(std::memcmp(held.data(), stored.data(), held.size() * sizeof(T)), 0) << what;
  EXPECT_EQ(std::memcmp(recomputed.data(), stored.data(), held.size() * sizeof(T)), 0) << what;
  EXPECT_EQ(held_bad, stored_bad) << what;
  EXPECT_EQ(recomputed_bad, stored_bad) << what;
  const unsigned long long expected_bad =
      with_nan ? static_cast<unsigned long long>((first + 5) * s + s / 2) : ULLONG_MAX;
  EXPECT_EQ(held_bad, expected_bad) << what;
}

TEST(GpuProjectionKernel, HeldStoredAndRecomputedLinkValuesGiveTheSameBits) {
  CORESET_REQUIRE_GPU();
  for (const models::Link link : {models::Link::logistic, models::Link::poisson,
                                  models::Link::identity, models::Link::gaussian}) {
    for (const bool with_quadratic : {false, true}) {
      for (const index_t s : {1, 2, 31, 32, 33, 128, 129, 256, 257, 500, 512}) {
        expect_held_and_stored_alike<float>(link, with_quadratic, s, false);
        expect_held_and_stored_alike<double>(link, with_quadratic, s, false);
      }
    }
    expect_held_and_stored_alike<double>(link, false, 257, true);
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
