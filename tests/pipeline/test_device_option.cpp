// The device option without a GPU (the build machines, CI): `automatic` falls back to the CPU
// and gives the CPU's answer, `gpu` is a clear DeviceError. Label `cpu`; each test that needs
// the absence of a GPU skips where one is usable.
#include <gtest/gtest.h>

#include <string>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/random_problem.hpp"

namespace coreset {
namespace {

TEST(DeviceOption, NamesRoundTrip) {
  for (const Device device : {Device::cpu, Device::gpu, Device::automatic}) {
    EXPECT_EQ(parse_device(to_string(device)), device);
  }
  EXPECT_EQ(to_string(Device::automatic), "auto");
  EXPECT_THROW(parse_device("tpu"), InvalidArgument);
}

TEST(DeviceOption, TheLibraryDefaultIsTheCpu) {
  EXPECT_EQ(SolverOptions{}.device, Device::cpu);
  const Matrix<double> phi = test::gaussian_matrix(10, 30, 2);
  SolverOptions options;
  options.k = 3;
  EXPECT_EQ(solve(phi.view(), nullptr, options).device, Device::cpu);
}

TEST(DeviceOption, AutomaticWithoutAGpuGivesTheCpuAnswer) {
  std::string why;
  if (gpu_usable(&why)) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  EXPECT_FALSE(why.empty());
  const Matrix<double> phi = test::gaussian_matrix(30, 200, 3);
  SolverOptions options;
  options.k = 10;
  const SolveResult cpu = solve(phi.view(), nullptr, options);
  options.device = Device::automatic;
  const SolveResult automatic = solve(phi.view(), nullptr, options);
  EXPECT_EQ(automatic.device, Device::cpu);
  EXPECT_EQ(automatic.coreset.indices, cpu.coreset.indices);
  EXPECT_EQ(automatic.coreset.weights, cpu.coreset.weights);
}

TEST(DeviceOption, GpuWithoutAGpuIsADeviceErrorThatSaysWhy) {
  std::string why;
  if (gpu_usable(&why)) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  const Matrix<float> phi = test::gaussian_matrix<float>(10, 40, 4);
  SolverOptions options;
  options.k = 3;
  options.device = Device::gpu;
  try {
    solve(phi.view(), nullptr, options);
    FAIL() << "solve on a missing GPU returned";
  } catch (const DeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("GPU"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace coreset
