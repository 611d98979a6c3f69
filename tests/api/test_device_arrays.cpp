// solve() and solve_loglik() on arrays in GPU memory (DeviceArrayView), through the shared
// library: what is decided before any device memory is touched, on every machine. Solving real
// device arrays is tests/cuda/test_cuda_device_arrays.cpp (label gpu).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/error_message.hpp"

namespace coreset {
namespace {

// A valid-looking view over host memory: never dereferenced by the checks these tests reach.
template <class T>
DeviceArrayView<T> host_backed_view(const std::vector<T>& values, index_t rows, index_t cols) {
  return DeviceArrayView<T>{values.data(), rows, cols, 1, rows, nullptr};
}

SolverOptions gpu_options() {
  SolverOptions options;
  options.k = 3;
  options.device = Device::gpu;
  return options;
}

using test::invalid_argument_message;

class OneRank : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(std::int64_t*, std::size_t) const override {}
  std::vector<std::string> all_gather(const std::string& bytes) const override { return {bytes}; }
  std::string description() const override { return "one rank"; }
};

TEST(DeviceArrays, AViewWithoutDataSizeOrValidStridesIsRefusedOnAnyMachine) {
  const std::vector<double> values(12, 1.0);
  const SolverOptions options = gpu_options();
  DeviceArrayView<double> view = host_backed_view(values, 3, 4);
  view.data = nullptr;
  EXPECT_NE(invalid_argument_message([&] {
              solve(view, nullptr, options);
            }).find("Phi in GPU memory must have data"),
            std::string::npos);
  view = host_backed_view(values, 0, 4);
  EXPECT_NE(invalid_argument_message([&] { solve_loglik(view, nullptr, options); })
                .find("the log-likelihood matrix in GPU memory must have data and at least one "
                      "row and one column (got 0 x 4)"),
            std::string::npos);
  view = host_backed_view(values, 3, 4);
  view.col_stride = -3;
  EXPECT_NE(invalid_argument_message([&] {
              solve(view, nullptr, options);
            }).find("non-negative strides (got 1, -3)"),
            std::string::npos);
  SolverOptions no_budget = options;
  no_budget.k = 0;  // the options are checked first, as for a host Phi
  EXPECT_NE(invalid_argument_message([&] {
              solve(host_backed_view(values, 3, 4), nullptr, no_budget);
            }).find("k must be at least 1"),
            std::string::npos);
}

TEST(DeviceArrays, TheCpuDeviceAndADistributedSolveAreRefused) {
  const std::vector<float> values(12, 1.0f);
  SolverOptions options = gpu_options();
  options.device = Device::cpu;
  EXPECT_NE(invalid_argument_message([&] {
              solve(host_backed_view(values, 3, 4), nullptr, options);
            }).find("Phi is in GPU memory: solve it with device gpu or automatic"),
            std::string::npos);
  options.device = Device::automatic;
  options.communicator = std::make_shared<OneRank>();
  EXPECT_NE(invalid_argument_message([&] {
              solve_loglik(host_backed_view(values, 4, 3), nullptr, options);
            }).find("a distributed solve reads each rank's block of Phi from host memory"),
            std::string::npos);
  options.communicator = nullptr;
  options.initial_weights = Coreset{{7}, {1.0}};  // column 7 of 4
  EXPECT_NE(invalid_argument_message([&] {
              solve(host_backed_view(values, 3, 4), nullptr, options);
            }).find("coreset index 7 is outside Phi's 4 columns"),
            std::string::npos);
}

TEST(DeviceArrays, AHostCopyChecksItsViewAndNeedsAGpu) {
  const std::vector<double> values(12, 1.0);
  DeviceArrayView<double> view = host_backed_view(values, 3, 4);
  view.row_stride = -1;
  EXPECT_NE(invalid_argument_message([&] {
              copy_to_host(view);
            }).find("the array in GPU memory needs non-negative strides"),
            std::string::npos);
  if (!gpu_usable()) {
    EXPECT_THROW(copy_to_host(host_backed_view(values, 3, 4)), DeviceError);
  } else {
    EXPECT_NE(invalid_argument_message([&] {
                copy_to_host(host_backed_view(values, 3, 4));
              }).find("the array is not in CUDA device memory"),
              std::string::npos);
  }
}

TEST(DeviceArrays, WithoutAGpuTheCallIsADeviceErrorNotAHostRead) {
  if (gpu_usable()) {
    GTEST_SKIP() << "checks a machine without a usable GPU";
  }
  const std::vector<double> values(12, 1.0);
  for (const Device device : {Device::gpu, Device::automatic}) {
    SolverOptions options = gpu_options();
    options.device = device;
    try {
      solve(host_backed_view(values, 3, 4), nullptr, options);
      ADD_FAILURE() << "expected DeviceError";
    } catch (const DeviceError& error) {
      EXPECT_NE(std::string(error.what()).find("Phi is in GPU memory but no GPU is usable"),
                std::string::npos)
          << error.what();
    }
    EXPECT_THROW(solve_loglik(host_backed_view(values, 4, 3), values.data(), options), DeviceError);
  }
}

}  // namespace
}  // namespace coreset
