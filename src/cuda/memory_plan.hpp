// A GPU job's device memory, checked once before its first device allocation: the dataset with
// the Laplace fit's scratch, Phi, and the larger of the projection's scratch and the solver's
// state (the one is freed before the other is made). Each stage's own size function gives its
// part, and each stage checks the same number again before it allocates (cuda::check_fits), so a
// job that cannot fit says so with every part named before it uploads a byte, rather than after
// Laplace, half-way through the projection. Free of CUDA headers; the size functions need a
// build with CUDA (without it they throw DeviceError, as every GPU entry point does).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "coreset/types.hpp"
#include "cuda/gpu_session.hpp"

namespace coreset::cuda {

/// Kept free beside every check: CUB's and cuBLAS's scratch, the context's own allocations.
inline constexpr std::size_t kDeviceReserveBytes = std::size_t{64} << 20;

/// "rows x cols, float" (or double, for entries of `element_bytes`): a matrix in the messages
/// about device memory.
std::string matrix_shape(index_t rows, index_t cols, std::size_t element_bytes);

/// One part of a job's device memory.
struct DevicePart {
  std::string what;
  std::size_t bytes = 0;
};

/// Throws DeviceError unless the parts plus kDeviceReserveBytes fit in `free_bytes`; the message
/// names `job`, every part with its size, the total, the free and the total memory of the
/// device, and `advice`. Pure arithmetic: the callers read the device's memory.
void check_parts_fit(const std::vector<DevicePart>& parts, std::size_t free_bytes,
                     std::size_t total_bytes, const std::string& job, const std::string& advice);

/// The stages' own sizes, each defined beside the stage that allocates it:
/// the dataset uploaded for the job (design, responses and offsets in double; at most that,
/// since offsets shared by every row take no buffer) with the Laplace fit's scratch
/// (cuda/device_dataset.cpp);
std::size_t dataset_bytes(index_t n, index_t d);
/// the projection's scratch beside Phi (cuda/projection_cuda.cpp);
std::size_t projection_scratch_bytes(index_t samples, index_t n, index_t d);
/// the solver's n-sized state beside Phi, for entries of `element_bytes` (cuda/cuda_backend.cpp).
std::size_t solver_state_bytes(index_t n, std::size_t element_bytes);

/// The parts of a GPU build of `n` datapoints (this process's), `d` parameters and `samples`
/// posterior samples, with Phi's entries of `element_bytes` (4: float, 8: double), at the moment
/// of its peak: the dataset and Laplace's scratch, Phi, and the larger of the projection's
/// scratch and the solver's state.
std::vector<DevicePart> gpu_build_parts(index_t n, index_t d, index_t samples,
                                        std::size_t element_bytes);

/// gpu_build_parts checked against the free memory of the session's GPU (DeviceError when they do
/// not fit, naming the options that shrink the job). Makes nothing on the device but its context.
void check_gpu_build_fits(GpuSession& session, index_t n, index_t d, index_t samples,
                          std::size_t element_bytes);

}  // namespace coreset::cuda
