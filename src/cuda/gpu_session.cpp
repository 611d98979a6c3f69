#include "cuda/gpu_session.hpp"

#include <cuda_runtime_api.h>

#include "cuda/resources.hpp"
#include "kernels/check.hpp"
#include "kernels/transfer.hpp"

namespace coreset::cuda {

TransferBytes transferred_bytes() noexcept {
  const kernels::TransferTotals totals = kernels::transfer_totals();
  return {totals.to_device, totals.to_host};
}

GpuSession::GpuSession(int device) : device_(device) {}

GpuSession::~GpuSession() = default;

std::unique_lock<std::mutex> GpuSession::lock() {
  std::unique_lock<std::mutex> held(mutex_);
  // The current device is per host thread, and a job's stages may run on different threads.
  // Before the resources exist there is nothing of the session's to bind to: resources() binds
  // the thread as it makes them (Resources' constructor), and a session that never makes them
  // (a rank without columns) never creates a context on its GPU (cudaSetDevice does, since
  // CUDA 12).
  if (resources_ != nullptr) {
    CORESET_CUDA_TRY(cudaSetDevice(device_));
  }
  return held;
}

Resources& GpuSession::resources() {
  if (resources_ == nullptr) {
    resources_ = std::make_unique<Resources>(device_);
  }
  return *resources_;
}

}  // namespace coreset::cuda
