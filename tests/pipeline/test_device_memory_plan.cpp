// The GPU build's device memory, checked once before its first device allocation
// (cuda/memory_plan.hpp): the decision and its message (pure arithmetic, on any machine), and
// the parts of a build (the stages' own sizes: compiled with CUDA, needing no GPU).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "cuda/memory_plan.hpp"

namespace coreset::cuda {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

std::string refusal(const std::vector<DevicePart>& parts, std::size_t free_bytes) {
  try {
    check_parts_fit(parts, free_bytes, 80 * kGiB, "the job", "use less");
  } catch (const DeviceError& error) {
    return error.what();
  }
  return "";
}

TEST(DeviceMemoryPlan, PartsThatFitWithTheReservePass) {
  const std::vector<DevicePart> parts{{"the data", 3 * kGiB}, {"Phi", 20 * kGiB}};
  const std::size_t needed = 23 * kGiB + kDeviceReserveBytes;
  EXPECT_EQ(refusal(parts, needed), "");
  EXPECT_EQ(refusal({}, kDeviceReserveBytes), "");
  // One byte short, or the parts alone without the reserve: refused.
  EXPECT_NE(refusal(parts, needed - 1), "");
  EXPECT_NE(refusal(parts, 23 * kGiB), "");
}

TEST(DeviceMemoryPlan, ARefusalNamesEveryPartTheTotalTheFreeMemoryAndTheAdvice) {
  const std::string message =
      refusal({{"the data", 3 * kGiB}, {"Phi (500 x 10000000, float)", 20 * kGiB}}, 10 * kGiB);
  ASSERT_NE(message, "");
  for (const char* expected : {"the job needs about 23.06 GiB of GPU memory", "the data 3.00 GiB",
                               "Phi (500 x 10000000, float) 20.00 GiB", "scratch reserve 0.06 GiB",
                               "only 10.00 GiB of 80.00 GiB is free", "use less"}) {
    EXPECT_NE(message.find(expected), std::string::npos) << expected << " not in: " << message;
  }
}

bool compiled_with_cuda() {
  try {
    dataset_bytes(1, 1);
    return true;
  } catch (const DeviceError&) {
    return false;
  }
}

TEST(DeviceMemoryPlan, ABuildsPartsAreItsDatasetPhiAndTheLargerOfProjectionAndSolver) {
  if (!compiled_with_cuda()) {
    GTEST_SKIP() << "built without CUDA: the stages' sizes are not compiled";
  }
  const index_t n = 10000000;
  const index_t d = 21;
  const index_t s = 500;
  for (const std::size_t element : {std::size_t{4}, std::size_t{8}}) {
    const std::vector<DevicePart> parts = gpu_build_parts(n, d, s, element);
    ASSERT_EQ(parts.size(), 3u);
    // The dataset: design, responses and offsets in double, and the Laplace fit's scratch.
    EXPECT_GE(parts[0].bytes, static_cast<std::size_t>(n) * (d + 2) * 8);
    EXPECT_EQ(parts[0].bytes, dataset_bytes(n, d));
    // Phi, exactly, in the job's precision.
    EXPECT_EQ(parts[1].bytes, static_cast<std::size_t>(s) * n * element);
    EXPECT_NE(parts[1].what.find(element == 4 ? "float" : "double"), std::string::npos);
    // At n = 1e7 the solver's vectors outweigh the projection's 32 MiB block.
    EXPECT_EQ(parts[2].bytes, solver_state_bytes(n, element));
    EXPECT_GT(parts[2].bytes, projection_scratch_bytes(s, n, d));
    EXPECT_EQ(parts[2].what, "the solver's vectors");
  }
  // Few datapoints and many samples: the projection's block is the larger.
  const std::vector<DevicePart> wide = gpu_build_parts(100, 3, 100000, 8);
  EXPECT_EQ(wide[2].what, "the projection's scratch");
  EXPECT_EQ(wide[2].bytes, projection_scratch_bytes(100000, 100, 3));
  EXPECT_GT(wide[2].bytes, solver_state_bytes(100, 8));
  // The solver's state grows with n and with the element size.
  EXPECT_GT(solver_state_bytes(2000, 8), solver_state_bytes(2000, 4));
  EXPECT_EQ(solver_state_bytes(2000, 4), 2 * solver_state_bytes(1000, 4));
}

}  // namespace
}  // namespace coreset::cuda
