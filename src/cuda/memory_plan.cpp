// Free of CUDA: compiled with and without it (the parts' sizes throw DeviceError without).
#include "cuda/memory_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "coreset/error.hpp"

namespace coreset::cuda {
namespace {

std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return text;
}

}  // namespace

std::string matrix_shape(index_t rows, index_t cols, std::size_t element_bytes) {
  return std::to_string(rows) + " x " + std::to_string(cols) + ", " +
         (element_bytes == 4 ? "float" : "double");
}

void check_parts_fit(const std::vector<DevicePart>& parts, std::size_t free_bytes,
                     std::size_t total_bytes, const std::string& job, const std::string& advice) {
  std::size_t needed = kDeviceReserveBytes;
  std::string list;
  for (const DevicePart& part : parts) {
    needed += part.bytes;
    list += part.what + " " + gib(part.bytes) + ", ";
  }
  if (needed <= free_bytes) {
    return;
  }
  throw DeviceError(job + " needs about " + gib(needed) + " of GPU memory (" + list +
                    "scratch reserve " + gib(kDeviceReserveBytes) + ") but only " +
                    gib(free_bytes) + " of " + gib(total_bytes) + " is free; " + advice);
}

std::vector<DevicePart> gpu_build_parts(index_t n, index_t d, index_t samples,
                                        std::size_t element_bytes) {
  const std::size_t projection = projection_scratch_bytes(samples, n, d);
  const std::size_t solver = solver_state_bytes(n, element_bytes);
  return {
      {"the dataset and the Laplace fit's scratch", dataset_bytes(n, d)},
      {"Phi (" + matrix_shape(samples, n, element_bytes) + ")",
       static_cast<std::size_t>(samples) * static_cast<std::size_t>(n) * element_bytes},
      {projection >= solver ? "the projection's scratch" : "the solver's vectors",
       std::max(projection, solver)},
  };
}

}  // namespace coreset::cuda
