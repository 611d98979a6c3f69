// What every GPU operation of one solve shares: the device, one stream (so every kernel, copy
// and cuBLAS call is ordered without explicit syncs), a cuBLAS handle bound to that stream, one
// scratch buffer for CUB's temporary storage that grows and is reused (never allocated inside
// the iteration loop once it is large enough), a ring of device scalars and pinned host memory
// for the few values the host reads back.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "kernels/device_buffer.hpp"
#include "kernels/scratch.hpp"

namespace coreset::cuda {

/// Whether a GPU can be used, and if not, why (no driver, no device, ...). Never throws for a
/// missing driver: that is the normal state of the build machines.
bool gpu_usable(std::string* why_not = nullptr);

/// Free and total memory of the current device, in bytes.
void device_memory(std::size_t& free_bytes, std::size_t& total_bytes);

/// Throws DeviceError, saying how many bytes are needed and how many are free, unless
/// `matrix_bytes` + `working_bytes` (plus kDeviceReserveBytes, cuda/memory_plan.hpp) fit in the
/// free memory of the current device. `what` names the matrix in the message.
void check_fits(std::size_t matrix_bytes, std::size_t working_bytes, const std::string& what);

class Resources {
 public:
  /// Binds the calling thread to `device` and creates the stream and the cuBLAS handle.
  explicit Resources(int device = 0);
  ~Resources();
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;

  cudaStream_t stream() const noexcept { return stream_; }
  /// A second stream that only ever records: the body of a conditional node is captured on it
  /// while stream() is being captured (kernels::top_k). Nothing is launched on it otherwise.
  cudaStream_t body_stream() const noexcept { return body_stream_; }
  cublasHandle_t cublas() const noexcept { return cublas_; }

  /// CUB's temporary storage, shared by every selection on stream().
  kernels::Scratch& scratch() noexcept { return scratch_; }

  /// A fresh device slot for one double. Slots come round again after kScalarSlots calls, so a
  /// scalar must be consumed before that many more are made (the drivers keep a handful alive).
  double* next_scalar() noexcept;
  static constexpr int kScalarSlots = 4096;

  /// Pinned host memory for `count` doubles (device-to-host reads of scalars), reused.
  double* pinned(std::size_t count);

  /// Waits for everything queued on the stream; throws DeviceError for a failed kernel.
  void synchronize() const;

 private:
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaStream_t body_stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  kernels::Scratch scratch_;
  kernels::DeviceBuffer<unsigned char>
      cublas_workspace_;  // cuBLAS' own, never allocated in a graph
  kernels::DeviceBuffer<double> scalars_;
  int next_slot_ = 0;
  double* pinned_ = nullptr;
  std::size_t pinned_count_ = 0;
};

}  // namespace coreset::cuda
