// The Laplace fit of a GPU job takes its sums over datapoints from the job's device copy of the
// dataset (cuda/device_dataset.hpp). Against the host reference (models/row_sums.hpp): the sums
// at a point and the fitted mode and covariance on every model, to round-off, with row counts
// that cross the device's row blocks and chunks; the sums are deterministic; and a GPU build
// uploads the design once, for Laplace and the projection together. Label `gpu`.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "cuda/device_data.hpp"
#include "cuda/device_dataset.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/gpu_test_support.hpp"
#include "helpers/eigen_expect.hpp"
#include "helpers/model_datasets.hpp"
#include "kernels/check.hpp"
#include "kernels/link_sums_launch.hpp"
#include "models/model.hpp"
#include "posterior/posterior.hpp"

namespace coreset {
namespace {

// Three full row blocks and a partial one; with one block per chunk, four chunks.
constexpr index_t kRows = 3 * kernels::kLinkSumRows + 777;
constexpr index_t kDims = 5;

models::Model model_of(ModelKind kind, index_t rows = kRows) {
  ModelOptions options;
  options.kind = kind;
  return models::make_model(test::model_dataset(kind, rows, kDims, 21), options, 21);
}

void expect_relative(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected, double tolerance,
                     const std::string& what) {
  test::expect_matrix_near(got, expected, tolerance, 0.0, what);
}

TEST(GpuLaplace, TheDeviceSumsAreTheHostSumsToRoundOff) {
  CORESET_REQUIRE_GPU();
  const auto session = std::make_shared<cuda::GpuSession>();
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const models::Model model = model_of(kind);
    for (const index_t chunk_blocks : {index_t{0}, index_t{1}, index_t{3}}) {
      SCOPED_TRACE("chunk_blocks " + std::to_string(chunk_blocks));
      const cuda::DeviceDataset device(session, model, chunk_blocks);
      ASSERT_EQ(device.rows(), model.rows());
      ASSERT_EQ(device.dim(), model.dim());
      const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), -0.4, 0.3);
      Eigen::VectorXd g_host;
      Eigen::VectorXd g_device;
      Eigen::MatrixXd h_host;
      Eigen::MatrixXd h_device;
      const double host = models::log_joint(model, nullptr, theta, &g_host, &h_host);
      const double on_device =
          models::log_joint(model, nullptr, theta, &g_device, &h_device, &device);
      EXPECT_NEAR(on_device, host, 1e-12 * std::abs(host));
      expect_relative(g_device, g_host, 1e-11, "gradient");
      expect_relative(h_device, h_host, 1e-12, "negative Hessian");
      // The value alone, and the gradient without the Hessian, read other partial slots.
      EXPECT_NEAR(models::log_joint(model, nullptr, theta, nullptr, nullptr, &device), host,
                  1e-12 * std::abs(host));
      Eigen::VectorXd g_only;
      models::log_joint(model, nullptr, theta, &g_only, nullptr, &device);
      expect_relative(g_only, g_host, 1e-11, "gradient alone");
    }
  }
}

// The device holds the design whole (n x d, ld n), whatever the host holds: the covariates read
// in place, a share's rows (a column at a time, their stride the whole dataset's), or the columns
// a model computed. It holds every row's design, response and offset as the host reads them: the
// design's unit column, which the host does not store, written on the device
// (cuda::fill_unit_column), offsets shared by every row as their one value, the rest uploaded.
TEST(GpuLaplace, TheDeviceDataIsTheHostDataWithWhatTheHostDoesNotStore) {
  CORESET_REQUIRE_GPU();
  const auto session = std::make_shared<cuda::GpuSession>();
  const Dataset data = test::model_dataset(ModelKind::logistic, kRows, kDims, 23);
  ModelOptions options;
  const models::Model borrowed =
      models::make_model(data, options, 23, {}, models::CovariateStorage::borrowed);
  ASSERT_TRUE(borrowed.design.has_unit_column());
  options.intercept = false;
  const models::Model no_intercept = models::make_model(data, options, 23);
  const models::Model gaussian = model_of(ModelKind::gaussian);
  const models::Model linear = model_of(ModelKind::linear);
  const models::Model poisson = model_of(ModelKind::poisson);
  ASSERT_FALSE(borrowed.offset.stored());
  ASSERT_FALSE(linear.offset.stored());
  ASSERT_NE(linear.offset.shared_value(), 0.0);
  ASSERT_TRUE(poisson.offset.stored());
  const std::pair<const char*, models::Model> cases[] = {
      {"covariates in place", borrowed},
      {"a share of them", models::rows_of(borrowed, 300, kRows - 1000)},
      {"without an intercept", no_intercept},
      {"computed columns and stored offsets", gaussian},
      {"a shared offset that is not 0", linear},
      {"stored offsets", poisson}};
  for (const auto& [what, model] : cases) {
    const cuda::DeviceDataset device(session, model);
    const index_t n = model.rows();
    const index_t d = model.dim();
    ASSERT_EQ(device.rows(), n) << what;
    ASSERT_EQ(device.dim(), d) << what;
    Eigen::MatrixXd on_device(n, d);
    CORESET_CUDA_TRY(cudaMemcpy(on_device.data(), device.data().design.data(),
                                static_cast<std::size_t>(n * d) * sizeof(double),
                                cudaMemcpyDeviceToHost));
    EXPECT_TRUE(on_device == model.design.dense()) << what;
    Eigen::VectorXd response(n);
    CORESET_CUDA_TRY(cudaMemcpy(response.data(), device.data().response.data(),
                                static_cast<std::size_t>(n) * sizeof(double),
                                cudaMemcpyDeviceToHost));
    EXPECT_TRUE(response == model.response) << what;
    // Stored offsets are on the device; shared ones are their one value there too, no buffer.
    const models::OffsetsView offsets = device.data().offsets();
    ASSERT_EQ(offsets.stored != nullptr, model.offset.stored()) << what;
    if (model.offset.stored()) {
      Eigen::VectorXd offset(n);
      CORESET_CUDA_TRY(cudaMemcpy(offset.data(), offsets.stored,
                                  static_cast<std::size_t>(n) * sizeof(double),
                                  cudaMemcpyDeviceToHost));
      EXPECT_TRUE(offset == model.offset.dense()) << what;
    } else {
      EXPECT_EQ(offsets.shared, model.offset.shared_value()) << what;
    }
  }
}

TEST(GpuLaplace, TheDeviceSumsAreDeterministic) {
  CORESET_REQUIRE_GPU();
  const auto session = std::make_shared<cuda::GpuSession>();
  const models::Model model = model_of(ModelKind::poisson, 50000);
  const cuda::DeviceDataset device(session, model);
  const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), 0.2, -0.1);
  const models::RowSums first = device.link_sums(theta, true, true);
  for (int repeat = 0; repeat < 3; ++repeat) {
    const models::RowSums again = device.link_sums(theta, true, true);
    EXPECT_EQ(again.value, first.value);
    EXPECT_TRUE(again.vector == first.vector);
    EXPECT_TRUE(again.matrix == first.matrix);
  }
}

TEST(GpuLaplace, TheDeviceFitIsTheHostFitOnEveryModel) {
  CORESET_REQUIRE_GPU();
  const auto session = std::make_shared<cuda::GpuSession>();
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const models::Model model = model_of(kind);
    const cuda::DeviceDataset device(session, model, 1);
    posterior::LaplaceOptions options;
    const posterior::LaplaceFit host = posterior::laplace(model, nullptr, options);
    options.full_data = &device;
    const posterior::LaplaceFit fit = posterior::laplace(model, nullptr, options);
    expect_relative(fit.posterior.mean, host.posterior.mean, 1e-10, "mode");
    expect_relative(fit.posterior.covariance, host.posterior.covariance, 1e-10, "covariance");
  }
}

TEST(GpuLaplace, ADeviceDatasetOfAnotherModelIsRefused) {
  CORESET_REQUIRE_GPU();
  const auto session = std::make_shared<cuda::GpuSession>();
  const models::Model model = model_of(ModelKind::logistic);
  const cuda::DeviceDataset other(session, model_of(ModelKind::logistic, 1000));
  posterior::LaplaceOptions options;
  options.full_data = &other;
  EXPECT_THROW(posterior::laplace(model, nullptr, options), InvalidArgument);
}

// A GPU build fits Laplace and projects Phi from one upload of the design: what goes up is the
// dataset once (the design's stored columns and the responses; the logistic model's offsets are
// shared, one value, not uploaded), the samples and Laplace's iterates. Two uploads of the design
// (Laplace's and the projection's) would exceed the bound by n x (d - 1).
TEST(GpuLaplace, AGpuBuildUploadsTheDesignOnce) {
  CORESET_REQUIRE_GPU();
  const index_t rows = 200000;
  const Dataset data = test::model_dataset(ModelKind::logistic, rows, kDims, 5);
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.samples = 32;
  options.seed = 5;
  options.precision = Precision::float32;
  options.solver.k = 20;
  options.solver.device = Device::gpu;
  const cuda::TransferBytes before = cuda::transferred_bytes();
  const BuildResult result = build_coreset(data, options);
  const cuda::TransferBytes after = cuda::transferred_bytes();
  EXPECT_EQ(result.pihat, Pihat::laplace);
  const auto n = static_cast<std::size_t>(rows);
  const auto d = static_cast<std::size_t>(result.parameters);
  // The design's stored columns: the covariates, d - 1 (the device writes the intercept's ones).
  const std::size_t design = 8 * n * (d - 1);
  ASSERT_FALSE(models::make_model(data, options.model, options.seed).offset.stored());
  const std::size_t dataset = design + 8 * n;  // and the responses
  const std::size_t to_device = after.to_device - before.to_device;
  EXPECT_GE(to_device, dataset);  // the dataset went up: Laplace ran on the device
  EXPECT_LT(to_device, dataset + design / 4);

  // And it fitted the host's posterior: the same pi-hat mean, to round-off.
  BuildOptions on_cpu = options;
  on_cpu.solver.device = Device::cpu;
  const BuildResult reference = build_coreset(data, on_cpu);
  ASSERT_EQ(result.full_posterior_mean.size(), reference.full_posterior_mean.size());
  for (std::size_t i = 0; i < reference.full_posterior_mean.size(); ++i) {
    EXPECT_NEAR(result.full_posterior_mean[i], reference.full_posterior_mean[i],
                1e-10 * (1.0 + std::abs(reference.full_posterior_mean[i])));
  }
}

}  // namespace
}  // namespace coreset
