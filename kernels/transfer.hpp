// Every copy between host and device memory goes through these functions, which count the bytes
// moved in each direction (process-wide). The counters make "Phi never comes back to the host"
// a property a test can check (tests/cuda/test_cuda_transfers.cpp) instead of a code-review
// claim. Device-to-device copies are not counted: they cross no bus.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace coreset::kernels {

/// Bytes copied since the process started, per direction. Monotone; read with transfer_totals().
struct TransferTotals {
  std::size_t to_device = 0;
  std::size_t to_host = 0;
};
TransferTotals transfer_totals() noexcept;

/// cudaMemcpyAsync host -> device on `stream`, counted. From pageable memory it returns once the
/// data is staged, so `host` may go away; no-op for 0 bytes.
void copy_to_device_async(cudaStream_t stream, void* device, const void* host, std::size_t bytes);
/// cudaMemcpyAsync device -> host on `stream`, counted; the caller synchronises before reading.
void copy_to_host_async(cudaStream_t stream, void* host, const void* device, std::size_t bytes);
/// cudaMemcpy2DAsync host -> device of `height` rows of `width` bytes, counted as width * height.
void copy_2d_to_device_async(cudaStream_t stream, void* device, std::size_t device_pitch,
                             const void* host, std::size_t host_pitch, std::size_t width,
                             std::size_t height);

}  // namespace coreset::kernels
