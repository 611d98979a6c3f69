// Where and how one job runs, decided once: build_coreset, evaluate_coreset, a PreparedProblem
// and a call of solve() each resolve one context, and every stage of the job (projection, solve,
// refit, evaluation) takes it rather than asking again whether a GPU is usable or how many
// threads to use. On a GPU the context carries the job's one GPU session (cuda/gpu_session.hpp):
// one stream, cuBLAS handle and CUB scratch for all of the job's device work.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coreset/distributed.hpp"
#include "coreset/progress.hpp"
#include "coreset/solver.hpp"
#include "cuda/gpu_session.hpp"
#include "support/threads.hpp"

namespace coreset::pipeline {

using support::resolve_threads;  // support/threads.hpp: what 0 threads means

class ExecutionContext {
 public:
  /// Resolves `requested` (Device::automatic: the GPU when one is usable, else the CPU, keeping
  /// the reason) and `threads`, and opens the GPU session on a GPU (no device call yet: the
  /// session's resources are made at first use). Throws DeviceError for Device::gpu without a
  /// usable GPU, saying why. `comm`: the ranks of a distributed job, of which this process is
  /// one; on a GPU it takes its GPU by its place on its machine (rank_gpu in
  /// pipeline/distributed.hpp), else GPU 0.
  ExecutionContext(Device requested, int threads, Precision precision, ProgressObserver* progress,
                   const Communicator* comm = nullptr);

  /// A job on GPU `ordinal`: the one that holds the caller's device arrays (DeviceArrayView).
  /// Throws DeviceError, saying why, without a usable GPU.
  static ExecutionContext on_gpu_number(int ordinal, int threads, Precision precision,
                                        ProgressObserver* progress);

  Device device() const noexcept { return device_; }  ///< cpu or gpu, never automatic
  bool on_gpu() const noexcept { return device_ == Device::gpu; }
  /// Where the job runs, for reports: "cpu", or "gpu N: name" (N the CUDA ordinal).
  std::string device_name() const;
  /// Why the job is not on the GPU when it asked for automatic (empty otherwise).
  const std::string& why_not_gpu() const noexcept { return why_not_gpu_; }
  int threads() const noexcept { return threads_; }  ///< >= 1
  Precision precision() const noexcept { return precision_; }
  ProgressObserver* progress() const noexcept { return progress_; }
  /// The job's GPU session (on_gpu() only; std::logic_error otherwise). Shared: a device Phi
  /// keeps it alive.
  const std::shared_ptr<cuda::GpuSession>& gpu_session() const;

  /// The context of one solve of this job: the same device and GPU session (never resolved
  /// again), with the solve's own thread count and progress observer (a PreparedProblem's
  /// solves may each ask for their own, e.g. one thread each when run side by side).
  ExecutionContext for_solve(const SolverSettings& solver) const;

  /// Which resolution this context came from: for_solve() keeps it, a new job gets a new one.
  std::uint64_t resolution() const noexcept { return resolution_; }
  /// How many contexts this process has resolved (tests: a job resolves exactly one).
  static std::uint64_t resolutions() noexcept;

 private:
  Device device_ = Device::cpu;
  std::string why_not_gpu_;
  int requested_threads_ = 0;
  int threads_ = 1;
  Precision precision_ = Precision::float64;
  ProgressObserver* progress_ = nullptr;
  std::shared_ptr<cuda::GpuSession> session_;
  std::uint64_t resolution_ = 0;
};

}  // namespace coreset::pipeline
