#include "kernels/transfer.hpp"

#include <atomic>

#include "kernels/check.hpp"

namespace coreset::kernels {
namespace {

// Relaxed: the counters order nothing; a reader wants totals after its own synchronised work.
std::atomic<std::size_t> to_device_bytes{0};
std::atomic<std::size_t> to_host_bytes{0};

}  // namespace

TransferTotals transfer_totals() noexcept {
  return {to_device_bytes.load(std::memory_order_relaxed),
          to_host_bytes.load(std::memory_order_relaxed)};
}

void copy_to_device_async(cudaStream_t stream, void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  CORESET_CUDA_TRY(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  to_device_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void copy_to_host_async(cudaStream_t stream, void* host, const void* device, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  CORESET_CUDA_TRY(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  to_host_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void copy_2d_to_device_async(cudaStream_t stream, void* device, std::size_t device_pitch,
                             const void* host, std::size_t host_pitch, std::size_t width,
                             std::size_t height) {
  if (width == 0 || height == 0) {
    return;
  }
  CORESET_CUDA_TRY(cudaMemcpy2DAsync(device, device_pitch, host, host_pitch, width, height,
                                     cudaMemcpyHostToDevice, stream));
  to_device_bytes.fetch_add(width * height, std::memory_order_relaxed);
}

}  // namespace coreset::kernels
