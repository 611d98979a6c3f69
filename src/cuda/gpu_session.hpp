// One job's hold on the GPU, free of CUDA headers so that the pipeline can own one: the stream,
// cuBLAS handle and CUB scratch of one cuda::Resources, created on first use and shared by every
// stage of the job (projection, solves, refits, evaluation) instead of being rebuilt per call.
// In a build without CUDA the stand-ins (gpu_session_disabled.cpp) throw DeviceError.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

namespace coreset::cuda {

class Resources;

/// Bytes copied between host and device since the process started (every copy of the CUDA code
/// goes through kernels/transfer.hpp, which counts them); zeros in a build without CUDA.
struct TransferBytes {
  std::size_t to_device = 0;
  std::size_t to_host = 0;
};
TransferBytes transferred_bytes() noexcept;

class GpuSession {
 public:
  /// Creates nothing on the device yet: the first resources() does, so a session can be made
  /// (and its users' argument checks run) before any CUDA call. Whether a GPU is usable is the
  /// execution context's question (pipeline/execution_context.hpp), asked once per job.
  explicit GpuSession(int device = 0);
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  /// Serialises the session's users: its stream, scalar ring and the backends' scratch are
  /// single-threaded, and a job may be solved from several threads (PreparedProblem is). Also
  /// binds the calling thread to the session's device once resources() has made them (which
  /// binds it itself), so that a session which never needs the device never touches it.
  std::unique_lock<std::mutex> lock();

  /// The session's resources, created on the first call (DeviceError when that fails). Call
  /// under lock().
  Resources& resources();

  int device() const noexcept { return device_; }
  /// Whether resources() has made them (a rank without columns never does).
  bool has_resources() const noexcept { return resources_ != nullptr; }

 private:
  int device_ = 0;
  std::mutex mutex_;
  std::unique_ptr<Resources> resources_;
};

}  // namespace coreset::cuda
