// solve() and solve_loglik() on arrays already in GPU memory (DeviceArrayView): read in place,
// or gathered once on the device, never through the host; the same coreset as the same numbers
// solved from host memory on the GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/solver.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/gpu_test_support.hpp"
#include "helpers/error_message.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "kernels/device_buffer.hpp"

namespace coreset {
namespace {

constexpr index_t kSamples = 48;
constexpr index_t kPoints = 900;

// `count` host values copied into new device memory.
template <class T>
kernels::DeviceBuffer<T> on_device(const T* values, index_t count) {
  kernels::DeviceBuffer<T> buffer(count);
  EXPECT_EQ(cudaMemcpy(buffer.data(), values, static_cast<std::size_t>(count) * sizeof(T),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  return buffer;
}

template <class T>
Matrix<T> planted_phi() {
  return test::shared_direction_matrix<T>(kSamples, kPoints, 31, 0.7);
}

SolverOptions gpu_options(Algorithm algorithm) {
  SolverOptions options;
  options.algorithm = algorithm;
  options.k = 25;
  options.max_iterations = 80;
  options.device = Device::gpu;
  return options;
}

/// One solve reached two ways (test::expect_same_solve), on the GPU.
void expect_same(const SolveResult& got, const SolveResult& expected, const std::string& where) {
  SCOPED_TRACE(where);
  test::expect_same_solve(got, expected);
  EXPECT_EQ(got.device, Device::gpu);
}

template <class T>
constexpr std::size_t phi_bytes() {
  return static_cast<std::size_t>(kSamples) * kPoints * sizeof(T);
}

template <class T>
void check_in_place_and_gathered() {
  const Matrix<T> phi = planted_phi<T>();
  const kernels::DeviceBuffer<T> column_major = on_device(phi.data(), kSamples * kPoints);
  // The same numbers row-major (a C-ordered S x n array): strides (n, 1), gathered on the device.
  std::vector<T> row_major(static_cast<std::size_t>(kSamples * kPoints));
  for (index_t i = 0; i < kSamples; ++i) {
    for (index_t j = 0; j < kPoints; ++j) {
      row_major[static_cast<std::size_t>(i * kPoints + j)] = phi(i, j);
    }
  }
  const kernels::DeviceBuffer<T> c_order = on_device(row_major.data(), kSamples * kPoints);
  for (const Algorithm algorithm : {Algorithm::aiht2, Algorithm::giga, Algorithm::iht}) {
    const SolverOptions options = gpu_options(algorithm);
    const SolveResult expected = solve(phi.view(), nullptr, options);
    const cuda::TransferBytes before = cuda::transferred_bytes();
    const SolveResult in_place =
        solve(DeviceArrayView<T>{column_major.data(), kSamples, kPoints, 1, kSamples, nullptr},
              nullptr, options);
    const cuda::TransferBytes after = cuda::transferred_bytes();
    expect_same(in_place, expected, to_string(algorithm) + ", in place");
    // Phi never crossed the bus: what did is scalars, the coreset and y-sized vectors.
    EXPECT_LT(after.to_device - before.to_device, phi_bytes<T>() / 10) << to_string(algorithm);
    EXPECT_LT(after.to_host - before.to_host, phi_bytes<T>() / 10) << to_string(algorithm);
    const SolveResult gathered =
        solve(DeviceArrayView<T>{c_order.data(), kSamples, kPoints, kPoints, 1, nullptr}, nullptr,
              options);
    expect_same(gathered, expected, to_string(algorithm) + ", gathered");
  }
}

TEST(GpuDeviceArrays, PhiInDeviceMemoryGivesTheHostPhisGpuSolveBitForBit) {
  CORESET_REQUIRE_GPU();
  check_in_place_and_gathered<double>();
  check_in_place_and_gathered<float>();
}

TEST(GpuDeviceArrays, AHostCopyIsTheArrayColumnMajorWhateverItsStrides) {
  CORESET_REQUIRE_GPU();
  const Matrix<float> phi = planted_phi<float>();
  const kernels::DeviceBuffer<float> column_major = on_device(phi.data(), kSamples * kPoints);
  const Matrix<float> direct = copy_to_host(
      DeviceArrayView<float>{column_major.data(), kSamples, kPoints, 1, kSamples, nullptr});
  EXPECT_TRUE(std::equal(phi.data(), phi.data() + kSamples * kPoints, direct.data()));
  // The transpose of the same memory (n x S, strides (S, 1)): gathered on the device first.
  const Matrix<float> transposed = copy_to_host(
      DeviceArrayView<float>{column_major.data(), kPoints, kSamples, kSamples, 1, nullptr});
  ASSERT_EQ(transposed.rows(), kPoints);
  ASSERT_EQ(transposed.cols(), kSamples);
  for (index_t i = 0; i < kPoints; ++i) {
    for (index_t s = 0; s < kSamples; ++s) {
      ASSERT_EQ(transposed(i, s), phi(s, i)) << i << ", " << s;
    }
  }
}

TEST(GpuDeviceArrays, YInDeviceMemoryIsYInHostMemory) {
  CORESET_REQUIRE_GPU();
  const Matrix<double> phi = planted_phi<double>();
  std::vector<double> y(kSamples);
  for (index_t i = 0; i < kSamples; ++i) {
    y[static_cast<std::size_t>(i)] = 0.8 * phi(i, 3) + 1.5 * phi(i, 400);
  }
  const kernels::DeviceBuffer<double> phi_device = on_device(phi.data(), kSamples * kPoints);
  const kernels::DeviceBuffer<double> y_device = on_device(y.data(), kSamples);
  const SolverOptions options = gpu_options(Algorithm::aiht2);
  const DeviceArrayView<double> view{phi_device.data(), kSamples, kPoints, 1, kSamples, nullptr};
  expect_same(solve(view, y_device.data(), options), solve(view, y.data(), options), "y");
  expect_same(solve(view, y.data(), options), solve(phi.view(), y.data(), options), "host Phi");
}

TEST(GpuDeviceArrays, DeviceLogLikelihoodsGiveTheHostProjectionsCoreset) {
  CORESET_REQUIRE_GPU();
  // n x S log-likelihoods, C order (strides (S, 1)), and the same numbers as S x n read with
  // strides (1, n): both are datapoint i at draw s.
  const Matrix<double> draws_by_points = planted_phi<double>();
  std::vector<double> points_by_draws(static_cast<std::size_t>(kSamples * kPoints));
  for (index_t i = 0; i < kPoints; ++i) {
    for (index_t s = 0; s < kSamples; ++s) {
      points_by_draws[static_cast<std::size_t>(i * kSamples + s)] = draws_by_points(s, i) - 2.0;
    }
  }
  const Matrix<double> host_phi =
      projection_from_loglik(points_by_draws.data(), kPoints, kSamples, kSamples, 1);
  const SolverOptions options = gpu_options(Algorithm::aiht2);
  const SolveResult expected = solve(host_phi.view(), nullptr, options);
  const kernels::DeviceBuffer<double> c_order =
      on_device(points_by_draws.data(), kSamples * kPoints);
  const SolveResult got =
      solve_loglik(DeviceArrayView<double>{c_order.data(), kPoints, kSamples, kSamples, 1, nullptr},
                   nullptr, options);
  // The means are summed in another order than the host's: equal to rounding, not bit for bit.
  EXPECT_EQ(got.coreset.indices, expected.coreset.indices);
  EXPECT_NEAR(got.relative_error, expected.relative_error, 1e-9 * expected.relative_error);
  std::vector<double> draw_major(static_cast<std::size_t>(kSamples * kPoints));
  for (index_t i = 0; i < kPoints; ++i) {
    for (index_t s = 0; s < kSamples; ++s) {
      draw_major[static_cast<std::size_t>(s * kPoints + i)] =
          points_by_draws[static_cast<std::size_t>(i * kSamples + s)];
    }
  }
  const kernels::DeviceBuffer<double> s_by_n = on_device(draw_major.data(), kSamples * kPoints);
  const SolveResult transposed =
      solve_loglik(DeviceArrayView<double>{s_by_n.data(), kPoints, kSamples, 1, kPoints, nullptr},
                   nullptr, options);
  expect_same(transposed, got, "S x n layout");
}

using test::invalid_argument_message;

TEST(GpuDeviceArrays, NonFiniteEntriesAndHostPointersAreNamedErrors) {
  CORESET_REQUIRE_GPU();
  Matrix<float> phi = planted_phi<float>();
  phi(3, 417) = std::numeric_limits<float>::quiet_NaN();
  const kernels::DeviceBuffer<float> bad = on_device(phi.data(), kSamples * kPoints);
  const SolverOptions options = gpu_options(Algorithm::aiht2);
  EXPECT_NE(invalid_argument_message([&] {
              solve(DeviceArrayView<float>{bad.data(), kSamples, kPoints, 1, kSamples, nullptr},
                    nullptr, options);
            }).find("Phi has a non-finite entry at row 3, column 417 (0-based)"),
            std::string::npos);
  // Read as n x S log-likelihoods (strides (1, S)): datapoint 417, draw 3.
  EXPECT_NE(invalid_argument_message([&] {
              solve_loglik(
                  DeviceArrayView<float>{bad.data(), kPoints, kSamples, kSamples, 1, nullptr},
                  nullptr, options);
            }).find("datapoint 417, draw 3 (0-based)"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              solve(DeviceArrayView<float>{phi.data(), kSamples, kPoints, 1, kSamples, nullptr},
                    nullptr, options);
            }).find("Phi is not in CUDA device memory"),
            std::string::npos);
  const std::vector<float> y(kSamples, std::numeric_limits<float>::infinity());
  const kernels::DeviceBuffer<float> y_device = on_device(y.data(), kSamples);
  const Matrix<float> good = planted_phi<float>();
  const kernels::DeviceBuffer<float> phi_device = on_device(good.data(), kSamples * kPoints);
  EXPECT_NE(
      invalid_argument_message([&] {
        solve(DeviceArrayView<float>{phi_device.data(), kSamples, kPoints, 1, kSamples, nullptr},
              y_device.data(), options);
      }).find("y has a non-finite entry at position 0"),
      std::string::npos);
}

TEST(GpuDeviceArrays, TheProducersStreamIsWaitedForBeforePhiIsRead) {
  CORESET_REQUIRE_GPU();
  const Matrix<double> phi = planted_phi<double>();
  const SolverOptions options = gpu_options(Algorithm::aiht2);
  const SolveResult expected = solve(phi.view(), nullptr, options);
  cudaStream_t producer = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking), cudaSuccess);
  double* pinned = nullptr;
  const std::size_t bytes = phi_bytes<double>();
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes), cudaSuccess);
  std::copy(phi.data(), phi.data() + kSamples * kPoints, pinned);
  kernels::DeviceBuffer<double> device(kSamples * kPoints);
  // Queued, not finished, when solve() is called: only the wait on `producer` orders them.
  ASSERT_EQ(cudaMemcpyAsync(device.data(), pinned, bytes, cudaMemcpyHostToDevice, producer),
            cudaSuccess);
  const SolveResult got =
      solve(DeviceArrayView<double>{device.data(), kSamples, kPoints, 1, kSamples, producer},
            nullptr, options);
  expect_same(got, expected, "producer stream");
  EXPECT_EQ(cudaStreamDestroy(producer), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

}  // namespace
}  // namespace coreset
