// Every copy between host and device memory goes through these functions, which count the bytes
// moved in each direction (process-wide). The counters make "Phi never comes back to the host"
// a property a test can check (tests/cuda/test_cuda_transfers.cpp) instead of a code-review
// claim. Device-to-device copies are not counted: they cross no bus.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "coreset/types.hpp"
#include "kernels/device_buffer.hpp"

namespace coreset::kernels {

/// Bytes copied since the process started, per direction. Monotone; read with transfer_totals().
struct TransferTotals {
  std::size_t to_device = 0;
  std::size_t to_host = 0;
  std::size_t staged_to_device = 0;  ///< the part of to_device sent through pinned stages
};
TransferTotals transfer_totals() noexcept;

/// Host -> device copies from pageable memory of at least kStagedCopyBytes go through pinned
/// buffers (by default kStageBuffers of kStageBytes), each filled by every host thread while the
/// others are on the bus (copy_to_device_async). The bound was 256 MiB, a guess; on the H200
/// host of d8c69d2 (bench/results/gpu_h200_20261128_d8c69d2) the N = 1e6 build's 168 MB went
/// the driver's pageable way at 6.5 GB/s (0.026 s), while N = 1e7's 1.68 GB, staged, pinned
/// buffers allocated and freed included, took 0.047 s (36 GB/s), and pinning pages ran at
/// 0.02-0.06 ms a MB (cudaHostRegister of the dataset): at 64 MiB the pageable copy takes about
/// 10 ms, the stages' 32 MiB about 2 ms to pin and the copy about 2 ms more. Not yet run so.
inline constexpr std::size_t kStageBytes = std::size_t{8} << 20;
inline constexpr int kStageBuffers = 4;
inline constexpr std::size_t kStagedCopyBytes = std::size_t{64} << 20;
/// The pinned buffers of a staged copy: how large, and how many the fills take in turn. The
/// default, four of 8 MiB, is the fastest of the six shapes bench_gpu --end-to-end timed on an
/// H200 host (upload_by_stage_shape, bench/results/gpu_h200_20261127_4a3fc22): at N = 1e7 it
/// carried the model's 1.8 GB at 39.0 GB/s where two of 32 MiB, the earlier default, took 29.0;
/// at N = 1e8, 51.4 GB/s against 47.7. A likely cause, not measured: a 32 MiB fill leaves the
/// host's last-level cache before the bus reads it, an 8 MiB one need not.
struct StageShape {
  std::size_t bytes = kStageBytes;  ///< > 0
  int buffers = kStageBuffers;      ///< >= 1
};

/// What the runtime knows of `pointer`: device, managed, pinned host memory, or
/// cudaMemoryTypeUnregistered for memory it does not know (pageable host memory, which some
/// runtimes report as cudaErrorInvalidValue: cleared here, so that the next check does not report
/// it as its own). Any other error throws CudaError.
cudaPointerAttributes pointer_attributes(const void* pointer);

/// cudaMemcpyAsync host -> device on `stream`, counted. From pageable memory it returns once the
/// data is staged, so `host` may go away; no-op for 0 bytes. A pageable copy of kStagedCopyBytes
/// or more is staged through pinned memory by this function (the driver's own staging ran at
/// 7.1-8.0 GB/s on the H100 machine), and returns once it is on the device; if
/// pinned memory cannot be had, the plain copy runs instead.
void copy_to_device_async(cudaStream_t stream, void* device, const void* host, std::size_t bytes);
/// One array of copy_all_to_device_async.
struct HostToDevice {
  void* device = nullptr;
  const void* host = nullptr;
  std::size_t bytes = 0;
};
/// copy_to_device_async for each of `copies`, except that the pageable ones go through one pair
/// of pinned stages together (kernels/stage_plan.hpp) when their bytes add up to
/// kStagedCopyBytes or more: a dataset's design, responses and offsets as one staged stream,
/// where the short arrays would each have taken the driver's pageable path (6.0-7.7 GB/s on the
/// H200 machine). Returns once the staged copies are on the device; the others are queued.
/// `shape`: the stages' size and count (the default unless a benchmark compares others); the
/// bound for staging is kStagedCopyBytes whatever the shape.
void copy_all_to_device_async(cudaStream_t stream, const std::vector<HostToDevice>& copies,
                              StageShape shape = {});
/// cudaMemcpyAsync device -> host on `stream`, counted; the caller synchronises before reading.
void copy_to_host_async(cudaStream_t stream, void* host, const void* device, std::size_t bytes);
/// cudaMemcpy2DAsync host -> device of `height` rows of `width` bytes, counted as width * height.
void copy_2d_to_device_async(cudaStream_t stream, void* device, std::size_t device_pitch,
                             const void* host, std::size_t host_pitch, std::size_t width,
                             std::size_t height);

/// `out` resized to hold `count` values (at least one element, so that an empty input still
/// has a valid pointer), and the copy of `host`'s values into it, for copy_all_to_device_async.
template <class U>
HostToDevice sized_for(DeviceBuffer<U>& out, const U* host, index_t count) {
  out.resize_discard(std::max<index_t>(count, 1));
  return {out.data(), host, static_cast<std::size_t>(count) * sizeof(U)};
}

/// `count` host values into `out`, resized to hold them (sized_for), on `stream`.
template <class U>
void upload_async(cudaStream_t stream, DeviceBuffer<U>& out, const U* host, index_t count) {
  const HostToDevice copy = sized_for(out, host, count);
  copy_to_device_async(stream, copy.device, copy.host, copy.bytes);
}

}  // namespace coreset::kernels
