// Phi stays where it is solved: a GPU job projects Phi into device memory and every solve,
// refit and evaluation reads it there. Every host<->device copy of the CUDA code is counted
// (kernels/transfer.hpp), so these tests bound what crosses the bus against what the job needs
// on the host, far below the S x n of Phi.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/gpu_test_support.hpp"
#include "helpers/error_message.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/transfer.hpp"

namespace coreset {
namespace {

constexpr index_t kRows = 20000;   // n
constexpr index_t kSamples = 256;  // S
constexpr index_t kBudget = 20;    // k

BuildOptions gpu_options() {
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.samples = kSamples;
  options.seed = 2;
  options.precision = Precision::float32;
  options.solver.k = kBudget;
  options.solver.device = Device::gpu;
  options.solver.refit = true;  // the refit reads the support's columns: part of the bound
  return options;
}

std::size_t phi_bytes() {
  return static_cast<std::size_t>(kSamples) * kRows * sizeof(float);
}

// What one solve needs on the host, in bytes: the refit's S x k columns (in double) and y
// (S floats), the coreset (k indices and weights) and its count, three scalars per iteration
// plus a handful (||y||^2, the duplicate search's count), with 4 KiB for the odd flag.
std::size_t solve_bound(const SolverSettings& solver) {
  const auto s = static_cast<std::size_t>(kSamples);
  const auto k = static_cast<std::size_t>(solver.k);
  const auto iterations = static_cast<std::size_t>(solver.max_iterations);
  return 8 * s * k + sizeof(float) * s + (8 + sizeof(float)) * k + 8 * (3 * iterations + 16) + 4096;
}

// The device Laplace fit, per evaluation of the log joint (Newton steps and line-search points,
// at most 128 for these data): theta (d doubles) up, the summed d x (d + 1) + 1 partials down.
cuda::TransferBytes laplace_bound(std::size_t d) {
  constexpr std::size_t kEvaluations = 128;
  return {kEvaluations * 8 * d, kEvaluations * 8 * (d * (d + 1) + 1)};
}

TEST(GpuTransfers, ABuildCopiesNoPhiBackToTheHost) {
  CORESET_REQUIRE_GPU();
  const Dataset data = synthetic_logistic_dataset(kRows, 1);
  const BuildOptions options = gpu_options();
  const cuda::TransferBytes before = cuda::transferred_bytes();
  const BuildResult result = build_coreset(data, options);
  const cuda::TransferBytes after = cuda::transferred_bytes();
  EXPECT_EQ(result.solve.device, Device::gpu);
  EXPECT_GT(result.solve.coreset.size(), 0);

  const std::size_t to_host = after.to_host - before.to_host;
  const auto d = static_cast<std::size_t>(result.parameters);
  EXPECT_LE(to_host, solve_bound(options.solver) + laplace_bound(d).to_host)
      << "Phi is " << phi_bytes() << " bytes";
  EXPECT_LT(to_host * 20, phi_bytes());
  // Up go the dataset once (the design's stored columns, d - 1 of them, and the responses: the
  // device writes the intercept's ones and the shared zero offsets itself), the samples and
  // Laplace's iterates, never Phi.
  const std::size_t to_device = after.to_device - before.to_device;
  const std::size_t inputs = 8 * (kRows * d + kSamples * (d + 1));
  EXPECT_LE(to_device, inputs + laplace_bound(d).to_device + 64 * 1024);
  EXPECT_LT(to_device, phi_bytes());
}

TEST(GpuTransfers, APreparedProblemSolvesManyTimesOnOneDevicePhi) {
  CORESET_REQUIRE_GPU();
  const Dataset data = synthetic_logistic_dataset(kRows, 2);
  const BuildOptions options = gpu_options();
  const PreparedProblem problem(data, options);
  const cuda::TransferBytes before = cuda::transferred_bytes();
  std::size_t bound = 0;
  for (const BuildAlgorithm algorithm :
       {BuildAlgorithm::aiht2, BuildAlgorithm::iht, BuildAlgorithm::giga}) {
    BuildSolverOptions solver = options.solver;
    solver.algorithm = algorithm;
    const CoresetRun run = problem.solve_and_evaluate(solver);
    EXPECT_EQ(run.solve.device, Device::gpu);
    const Quality quality = problem.evaluate(run.solve.coreset);
    EXPECT_NEAR(quality.relative_projection_error, run.solve.relative_error, 1e-3);
    // giga reads one argmax (16 bytes) per step; iht reads a few scalars per power step.
    bound += solve_bound(solver) + 16 * static_cast<std::size_t>(solver.k) + 8 * 1024;
  }
  const cuda::TransferBytes after = cuda::transferred_bytes();
  EXPECT_LE(after.to_host - before.to_host, bound);
  EXPECT_LT(after.to_device - before.to_device, phi_bytes() / 10);
}

// The problem's solves share one stream and one backend: concurrent callers are serialised,
// and each gets what it would alone.
TEST(GpuTransfers, ConcurrentSolvesOnOneProblemAgreeWithSequentialOnes) {
  CORESET_REQUIRE_GPU();
  const Dataset data = synthetic_logistic_dataset(4000, 3);
  const PreparedProblem problem(data, gpu_options());
  const BuildSolverOptions solver = gpu_options().solver;
  const SolveResult alone = problem.solve(solver);
  std::vector<SolveResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] { results[t] = problem.solve(solver); });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const SolveResult& result : results) {
    EXPECT_EQ(result.coreset.indices, alone.coreset.indices);
    EXPECT_EQ(result.coreset.weights, alone.coreset.weights);
  }
}

TEST(GpuTransfers, AJobTooLargeForTheDeviceIsRefusedBeforeItsFirstUpload) {
  CORESET_REQUIRE_GPU();
  // Phi of 2e6 samples x 1e4 datapoints in double is 160 GB: more than any one GPU has. The
  // job must say so, naming Phi, before the dataset is uploaded or Laplace runs.
  const Dataset data = synthetic_logistic_dataset(10000, 4);
  BuildOptions options = gpu_options();
  options.samples = 2000000;
  options.precision = Precision::float64;
  const cuda::TransferBytes before = cuda::transferred_bytes();
  const std::string message = test::message_of<DeviceError>([&] { build_coreset(data, options); });
  EXPECT_NE(message.find("Phi (2000000 x 10000, double)"), std::string::npos) << message;
  EXPECT_NE(message.find("is free"), std::string::npos) << message;
  const cuda::TransferBytes after = cuda::transferred_bytes();
  EXPECT_EQ(after.to_device, before.to_device);
  EXPECT_EQ(after.to_host, before.to_host);
}

// A pageable upload of kStagedCopyBytes or more goes through the pinned buffers
// (kernels/transfer.cpp). Its bytes must arrive intact whatever the chunking: a size that is no
// multiple of a stage, from an odd host address. The call returns with the data on the device,
// so the host buffer may be overwritten at once. Counted once, as a plain copy is.
TEST(GpuTransfers, ALargePageableUploadArrivesIntactThroughThePinnedStages) {
  CORESET_REQUIRE_GPU();
  const std::size_t bytes = kernels::kStagedCopyBytes + kernels::kStageBytes / 2 + 7;
  const auto pattern = [](std::size_t i) {
    return static_cast<unsigned char>((i * 2654435761u) >> 13);
  };
  std::vector<unsigned char> host(bytes + 1);
  for (std::size_t i = 0; i < bytes; ++i) {
    host[i + 1] = pattern(i);
  }
  kernels::DeviceBuffer<unsigned char> device(static_cast<index_t>(bytes));
  const kernels::TransferTotals before = kernels::transfer_totals();
  kernels::copy_to_device_async(nullptr, device.data(), host.data() + 1, bytes);
  std::fill(host.begin(), host.end(), 0);  // the copy has returned: the source is free
  const kernels::TransferTotals after = kernels::transfer_totals();
  EXPECT_EQ(after.to_device - before.to_device, bytes);
  // It did go through the stages (a machine without pinned memory to give would fail here).
  EXPECT_EQ(after.staged_to_device - before.staged_to_device, bytes);
  std::vector<unsigned char> back(bytes);
  kernels::copy_to_host_async(nullptr, back.data(), device.data(), bytes);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  std::size_t wrong = 0;
  std::size_t first_wrong = bytes;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (back[i] != pattern(i)) {
      first_wrong = std::min(first_wrong, i);
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << "first wrong byte at " << first_wrong << " of " << bytes;

  // Below the bound, and from pinned memory at any size, the plain copy runs.
  const kernels::TransferTotals plain = kernels::transfer_totals();
  kernels::copy_to_device_async(nullptr, device.data(), back.data(), kernels::kStagedCopyBytes - 1);
  unsigned char* pinned = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pinned), bytes, cudaHostAllocDefault),
            cudaSuccess);
  kernels::copy_to_device_async(nullptr, device.data(), pinned, bytes);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  cudaFreeHost(pinned);
  EXPECT_EQ(kernels::transfer_totals().staged_to_device, plain.staged_to_device);
}

// The stages' shape (kernels::StageShape) changes how the bytes travel, never what arrives: one
// buffer (each fill waits for the last send), an odd stage size with three buffers, and eight
// small ones, each from an odd host address. A shape with no buffer or no bytes is refused
// before anything is copied.
TEST(GpuTransfers, EveryStageShapeCarriesTheBytesIntact) {
  CORESET_REQUIRE_GPU();
  const std::size_t bytes = kernels::kStagedCopyBytes + 12345;
  std::vector<unsigned char> host(bytes + 1);
  for (std::size_t i = 0; i < bytes; ++i) {
    host[i + 1] = static_cast<unsigned char>((i * 2654435761u) >> 9);
  }
  kernels::DeviceBuffer<unsigned char> device(static_cast<index_t>(bytes));
  const std::vector<kernels::HostToDevice> copies = {{device.data(), host.data() + 1, bytes}};
  const std::size_t kMiB = std::size_t{1} << 20;
  for (const kernels::StageShape shape :
       {kernels::StageShape{kernels::kStageBytes, 1}, kernels::StageShape{kMiB + 3, 3},
        kernels::StageShape{2 * kMiB, 8}}) {
    SCOPED_TRACE(testing::Message() << shape.buffers << " buffers of " << shape.bytes);
    ASSERT_EQ(cudaMemset(device.data(), 0, bytes), cudaSuccess);
    const kernels::TransferTotals before = kernels::transfer_totals();
    kernels::copy_all_to_device_async(nullptr, copies, shape);
    EXPECT_EQ(kernels::transfer_totals().staged_to_device - before.staged_to_device, bytes);
    std::vector<unsigned char> back(bytes);
    kernels::copy_to_host_async(nullptr, back.data(), device.data(), bytes);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) {
      wrong += back[i] != host[i + 1] ? 1 : 0;
    }
    EXPECT_EQ(wrong, 0u);
  }
  const kernels::TransferTotals before = kernels::transfer_totals();
  EXPECT_THROW(kernels::copy_all_to_device_async(nullptr, copies, {0, 2}), InvalidArgument);
  EXPECT_THROW(kernels::copy_all_to_device_async(nullptr, copies, {kMiB, 0}), InvalidArgument);
  EXPECT_EQ(kernels::transfer_totals().to_device, before.to_device);
}

// A dataset's arrays in one call (kernels::copy_all_to_device_async): pageable arrays that are
// each below the staging bound but reach it together go through the stages as one stream, with
// fills that straddle the arrays' boundaries. Every array must arrive intact at its own address;
// an empty array in the same call is skipped, and a pinned one takes the plain path.
TEST(GpuTransfers, ADatasetsArraysShareThePinnedStagesAndArriveIntact) {
  CORESET_REQUIRE_GPU();
  const std::vector<std::size_t> sizes = {kernels::kStagedCopyBytes / 2 + 13, 0,
                                          kernels::kStagedCopyBytes / 2 + kernels::kStageBytes / 3,
                                          5};
  std::vector<std::vector<unsigned char>> host(sizes.size());
  std::vector<kernels::DeviceBuffer<unsigned char>> device;
  device.reserve(sizes.size());
  std::vector<kernels::HostToDevice> copies;
  std::size_t total = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    host[a].resize(sizes[a] + 1);
    for (std::size_t i = 0; i < sizes[a]; ++i) {
      host[a][i] = static_cast<unsigned char>((i * 2654435761u + a * 97u) >> 11);
    }
    device.emplace_back(static_cast<index_t>(sizes[a] + 1));
    copies.push_back({device[a].data(), host[a].data(), sizes[a]});
    total += sizes[a];
  }
  unsigned char* pinned = nullptr;
  const std::size_t pinned_bytes = 1000;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pinned), pinned_bytes, cudaHostAllocDefault),
            cudaSuccess);
  std::fill(pinned, pinned + pinned_bytes, static_cast<unsigned char>(42));
  kernels::DeviceBuffer<unsigned char> pinned_device(static_cast<index_t>(pinned_bytes));
  copies.push_back({pinned_device.data(), pinned, pinned_bytes});

  const kernels::TransferTotals before = kernels::transfer_totals();
  kernels::copy_all_to_device_async(nullptr, copies);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  cudaFreeHost(pinned);
  const kernels::TransferTotals after = kernels::transfer_totals();
  EXPECT_EQ(after.to_device - before.to_device, total + pinned_bytes);
  EXPECT_EQ(after.staged_to_device - before.staged_to_device, total)
      << "the pageable arrays should have gone through the stages together";
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    std::vector<unsigned char> back(sizes[a]);
    kernels::copy_to_host_async(nullptr, back.data(), device[a].data(), sizes[a]);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < sizes[a]; ++i) {
      wrong += back[i] != host[a][i] ? 1 : 0;
    }
    EXPECT_EQ(wrong, 0u) << "array " << a << " of " << sizes[a] << " bytes";
  }
  std::vector<unsigned char> pinned_back(pinned_bytes);
  kernels::copy_to_host_async(nullptr, pinned_back.data(), pinned_device.data(), pinned_bytes);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(std::count(pinned_back.begin(), pinned_back.end(), 42),
            static_cast<std::ptrdiff_t>(pinned_bytes));
}

}  // namespace
}  // namespace coreset
