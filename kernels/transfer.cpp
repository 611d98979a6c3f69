#include "kernels/transfer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "kernels/check.hpp"

namespace coreset::kernels {
namespace {

// Relaxed: the counters order nothing; a reader wants totals after its own synchronised work.
std::atomic<std::size_t> to_device_bytes{0};
std::atomic<std::size_t> to_host_bytes{0};

// Memory the driver copies from at the bus's speed: pinned or managed host memory, or device
// memory. Pageable memory (the usual std::vector, Eigen, NumPy array) it must stage itself.
bool pageable(const void* host) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();  // clears the error this query may leave behind
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered;
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CORESET_CUDA_TRY(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

// Two pinned buffers of kStageBytes and an event each, for one staged copy; released (after the
// stream has drained them) however the copy ends.
class PinnedStage {
 public:
  // False when the pinned memory could not be had (a container's limit, say).
  bool acquire() {
    if (cudaHostAlloc(&memory_, 2 * kStageBytes, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();
      memory_ = nullptr;
      return false;
    }
    for (cudaEvent_t& event : done_) {
      CORESET_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    }
    return true;
  }
  PinnedStage() = default;
  PinnedStage(const PinnedStage&) = delete;
  PinnedStage& operator=(const PinnedStage&) = delete;
  ~PinnedStage() {
    for (int b = 0; b < 2; ++b) {
      if (used_[b]) {
        cudaEventSynchronize(done_[b]);  // the bus may still be reading it
      }
      if (done_[b] != nullptr) {
        cudaEventDestroy(done_[b]);
      }
    }
    if (memory_ != nullptr) {
      cudaFreeHost(memory_);
    }
  }
  // Buffer b, once the copy that last read it has finished.
  char* buffer(int b) {
    if (used_[b]) {
      CORESET_CUDA_TRY(cudaEventSynchronize(done_[b]));
    }
    return static_cast<char*>(memory_) + static_cast<std::size_t>(b) * kStageBytes;
  }
  // Marks buffer b as read by the work queued on `stream` so far.
  void queued(int b, cudaStream_t stream) {
    CORESET_CUDA_TRY(cudaEventRecord(done_[b], stream));
    used_[b] = true;
  }
  void finish() {
    for (int b = 0; b < 2; ++b) {
      if (used_[b]) {
        CORESET_CUDA_TRY(cudaEventSynchronize(done_[b]));
        used_[b] = false;
      }
    }
  }

 private:
  void* memory_ = nullptr;
  cudaEvent_t done_[2] = {nullptr, nullptr};
  bool used_[2] = {false, false};
};

// `bytes` from pageable `host` into pinned `to`, split over the host's threads: one thread's
// memcpy does not keep up with the bus.
void copy_on_threads(char* to, const char* from, std::size_t bytes) {
  constexpr std::size_t kPart = std::size_t{1} << 20;
  const auto parts = static_cast<long long>((bytes + kPart - 1) / kPart);
#pragma omp parallel for schedule(static)
  for (long long p = 0; p < parts; ++p) {
    const std::size_t first = static_cast<std::size_t>(p) * kPart;
    std::memcpy(to + first, from + first, std::min(kPart, bytes - first));
  }
}

// Chunks of kStageBytes alternate between the two buffers: while one is on the bus the threads
// fill the other.
bool staged_copy_to_device(cudaStream_t stream, char* device, const char* host, std::size_t bytes) {
  PinnedStage stage;
  if (!stage.acquire()) {
    return false;
  }
  int b = 0;
  for (std::size_t offset = 0; offset < bytes; offset += kStageBytes, b = 1 - b) {
    const std::size_t size = std::min(kStageBytes, bytes - offset);
    char* buffer = stage.buffer(b);
    copy_on_threads(buffer, host + offset, size);
    CORESET_CUDA_TRY(
        cudaMemcpyAsync(device + offset, buffer, size, cudaMemcpyHostToDevice, stream));
    stage.queued(b, stream);
  }
  stage.finish();
  return true;
}

}  // namespace

TransferTotals transfer_totals() noexcept {
  return {to_device_bytes.load(std::memory_order_relaxed),
          to_host_bytes.load(std::memory_order_relaxed)};
}

void copy_to_device_async(cudaStream_t stream, void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const bool staged = bytes >= kStagedCopyBytes && !capturing(stream) && pageable(host) &&
                      staged_copy_to_device(stream, static_cast<char*>(device),
                                            static_cast<const char*>(host), bytes);
  if (!staged) {
    CORESET_CUDA_TRY(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  }
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
