#include "kernels/transfer.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

#include "coreset/error.hpp"
#include "kernels/check.hpp"
#include "kernels/stage_plan.hpp"

namespace coreset::kernels {
namespace {

// Relaxed: the counters order nothing; a reader wants totals after its own synchronised work.
std::atomic<std::size_t> to_device_bytes{0};
std::atomic<std::size_t> to_host_bytes{0};

std::atomic<std::size_t> staged_bytes{0};

// Memory the driver copies from at the bus's speed is pinned or managed host memory, or device
// memory; pageable memory (a std::vector, an Eigen matrix, a NumPy array) it stages itself.
bool pageable(const void* host) {
  return pointer_attributes(host).type == cudaMemoryTypeUnregistered;
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CORESET_CUDA_TRY(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

bool capture_error(cudaError_t status) {
  return status == cudaErrorStreamCaptureUnsupported ||
         status == cudaErrorStreamCaptureInvalidated || status == cudaErrorStreamCaptureImplicit ||
         status == cudaErrorStreamCaptureWrongThread;
}

// shape.buffers pinned buffers of shape.bytes and an event each, for one staged copy on
// `stream`. However the copy ends, the stream is drained before the buffers are freed: the bus
// may still be reading them. (Waiting on an event never recorded returns at once, so no flag says
// which buffer has been sent; on an error before the first send, the drain also waits for
// whatever the caller had queued on the stream, which is harmless.)
class PinnedStage {
 public:
  PinnedStage(cudaStream_t stream, StageShape shape)
      : stream_(stream), shape_(shape), done_(static_cast<std::size_t>(shape.buffers), nullptr) {}
  PinnedStage(const PinnedStage&) = delete;
  PinnedStage& operator=(const PinnedStage&) = delete;
  ~PinnedStage() {
    if (memory_ != nullptr) {
      cudaStreamSynchronize(stream_);
    }
    for (cudaEvent_t event : done_) {
      if (event != nullptr) {
        cudaEventDestroy(event);
      }
    }
    if (memory_ != nullptr) {
      cudaFreeHost(memory_);
    }
  }

  // False when pinned memory cannot be had (a container's limit, say): the plain copy runs.
  // A stream capture elsewhere in the process (another library's, in global mode) that forbids
  // the allocation is an error, not a reason to fall back: the allocation broke that capture.
  bool acquire() {
    const cudaError_t status = cudaHostAlloc(
        &memory_, static_cast<std::size_t>(shape_.buffers) * shape_.bytes, cudaHostAllocDefault);
    if (status != cudaSuccess) {
      memory_ = nullptr;
      if (capture_error(status)) {
        CORESET_CUDA_TRY(status);
      }
      cudaGetLastError();
      return false;
    }
    for (cudaEvent_t& event : done_) {
      CORESET_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    }
    return true;
  }
  // Buffer b, once the copies that last read it have finished.
  char* buffer(int b) {
    CORESET_CUDA_TRY(cudaEventSynchronize(done_[static_cast<std::size_t>(b)]));
    return buffer_address(b);
  }
  // Queues the copy of `bytes` of buffer b from `buffer_offset` on to `device`.
  void send(int b, std::size_t buffer_offset, char* device, std::size_t bytes) {
    CORESET_CUDA_TRY(cudaMemcpyAsync(device, buffer_address(b) + buffer_offset, bytes,
                                     cudaMemcpyHostToDevice, stream_));
  }
  // Marks buffer b as read by the copies queued so far.
  void sent(int b) {
    CORESET_CUDA_TRY(cudaEventRecord(done_[static_cast<std::size_t>(b)], stream_));
  }
  // Returns once every queued copy has finished.
  void finish() { CORESET_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  char* buffer_address(int b) const {
    return static_cast<char*>(memory_) + static_cast<std::size_t>(b) * shape_.bytes;
  }

  cudaStream_t stream_;
  StageShape shape_;
  void* memory_ = nullptr;
  std::vector<cudaEvent_t> done_;
};

// `bytes` from pageable `from` into pinned `to`, split over the host's threads: one thread's
// memcpy does not keep up with the bus. Parts of 1 MiB, or less for a small stage so that every
// thread has one (64 KiB at least; on a host of more than 8 threads the default 8 MiB stage
// too is cut finer than 1 MiB).
void copy_on_threads(char* to, const char* from, std::size_t bytes) {
  const auto threads = static_cast<std::size_t>(std::max(omp_get_max_threads(), 1));
  const std::size_t part =
      std::clamp<std::size_t>(bytes / threads, std::size_t{64} << 10, std::size_t{1} << 20);
  const auto parts = static_cast<long long>((bytes + part - 1) / part);
#pragma omp parallel for schedule(static)
  for (long long p = 0; p < parts; ++p) {
    const std::size_t first = static_cast<std::size_t>(p) * part;
    std::memcpy(to + first, from + first, std::min(part, bytes - first));
  }
}

// The copies' bytes as one stream through the shape's buffers, taken in turn (stage_plan.hpp):
// while one buffer is on the bus, the threads fill the next. False, with nothing copied, when no
// pinned memory could be had.
bool staged_copy_to_device(cudaStream_t stream, const std::vector<HostToDevice>& copies,
                           StageShape shape) {
  PinnedStage stage(stream, shape);
  if (!stage.acquire()) {
    return false;
  }
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (const HostToDevice& copy : copies) {
    sizes.push_back(copy.bytes);
    total += copy.bytes;
  }
  for (const staging::Fill& fill : staging::plan(sizes, shape.bytes, shape.buffers)) {
    char* buffer = stage.buffer(fill.buffer);
    for (const staging::Piece& piece : fill.pieces) {
      copy_on_threads(buffer + piece.buffer_offset,
                      static_cast<const char*>(copies[piece.array].host) + piece.offset,
                      piece.bytes);
    }
    for (const staging::Piece& piece : fill.pieces) {
      stage.send(fill.buffer, piece.buffer_offset,
                 static_cast<char*>(copies[piece.array].device) + piece.offset, piece.bytes);
    }
    stage.sent(fill.buffer);
  }
  stage.finish();
  staged_bytes.fetch_add(total, std::memory_order_relaxed);
  return true;
}

}  // namespace

cudaPointerAttributes pointer_attributes(const void* pointer) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status == cudaErrorInvalidValue) {
    cudaGetLastError();  // not sticky
    attributes.type = cudaMemoryTypeUnregistered;
    return attributes;
  }
  CORESET_CUDA_TRY(status);
  return attributes;
}

TransferTotals transfer_totals() noexcept {
  return {to_device_bytes.load(std::memory_order_relaxed),
          to_host_bytes.load(std::memory_order_relaxed),
          staged_bytes.load(std::memory_order_relaxed)};
}

void copy_to_device_async(cudaStream_t stream, void* device, const void* host, std::size_t bytes) {
  copy_all_to_device_async(stream, {{device, host, bytes}});
}

void copy_all_to_device_async(cudaStream_t stream, const std::vector<HostToDevice>& copies,
                              StageShape shape) {
  if (shape.bytes == 0 || shape.buffers < 1 ||
      shape.bytes >
          std::numeric_limits<std::size_t>::max() / static_cast<std::size_t>(shape.buffers)) {
    throw InvalidArgument(
        "a staged copy needs at least one stage buffer of at least one byte, and buffers whose "
        "bytes add up to a size");
  }
  std::size_t total = 0;
  for (const HostToDevice& copy : copies) {
    total += copy.bytes;
  }
  // The pageable copies, when they could add up to the bound: small copies (a Newton step's
  // theta) never pay for the pointer and capture queries.
  std::vector<HostToDevice> plain;
  std::vector<HostToDevice> pageable_copies;
  std::size_t pageable_bytes = 0;
  const bool may_stage = total >= kStagedCopyBytes && !capturing(stream);
  for (const HostToDevice& copy : copies) {
    if (copy.bytes == 0) {
      continue;
    }
    if (may_stage && pageable(copy.host)) {
      pageable_copies.push_back(copy);
      pageable_bytes += copy.bytes;
    } else {
      plain.push_back(copy);
    }
  }
  if (!(pageable_bytes >= kStagedCopyBytes &&
        staged_copy_to_device(stream, pageable_copies, shape))) {
    plain.insert(plain.end(), pageable_copies.begin(), pageable_copies.end());
  }
  for (const HostToDevice& copy : plain) {
    CORESET_CUDA_TRY(
        cudaMemcpyAsync(copy.device, copy.host, copy.bytes, cudaMemcpyHostToDevice, stream));
  }
  to_device_bytes.fetch_add(total, std::memory_order_relaxed);
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
