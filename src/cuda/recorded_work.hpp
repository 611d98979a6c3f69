// Device work recorded once and replayed: a CUDA graph captured from the backend's stream. The
// IHT driver's tracked loop (solvers/iht_driver.hpp: run_tracked) records two iterations, about a
// hundred launches, and replays them, so the host issues one launch per two iterations instead.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace coreset::cuda {

/// An instantiated CUDA graph. Move-only; destroys its graph.
class RecordedWork {
 public:
  RecordedWork() = default;
  RecordedWork(const RecordedWork&) = delete;
  RecordedWork& operator=(const RecordedWork&) = delete;
  RecordedWork(RecordedWork&& other) noexcept;
  RecordedWork& operator=(RecordedWork&& other) noexcept;
  ~RecordedWork();

  /// Queues the recorded work `times` times on `stream`, in order. No synchronisation.
  void launch(cudaStream_t stream, int times) const;
  /// The graph's nodes: kernels, copies and memsets as recorded.
  std::size_t nodes() const noexcept { return nodes_; }

  /// Records what is queued on `stream` from construction to finish(). Thread-local capture
  /// mode: a call that could synchronise or allocate (cudaMalloc, a blocking copy) fails while
  /// recording (a DeviceError), so work that is not fit for a graph cannot slip in silently.
  class Capture {
   public:
    explicit Capture(cudaStream_t stream);
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;
    /// Ends an unfinished capture (after an exception) and drops what it held.
    ~Capture();
    RecordedWork finish();

   private:
    cudaStream_t stream_;
    bool open_ = true;
  };

 private:
  cudaGraphExec_t exec_ = nullptr;
  std::size_t nodes_ = 0;
};

}  // namespace coreset::cuda
