#include "pipeline/execution_context.hpp"

#include <atomic>
#include <stdexcept>

#include "coreset/error.hpp"
#include "coreset/version.hpp"
#include "cuda/solve_cuda.hpp"
#include "pipeline/distributed.hpp"

namespace coreset::pipeline {
namespace {

std::atomic<std::uint64_t> resolved{0};

}  // namespace

ExecutionContext::ExecutionContext(Device requested, int threads, Precision precision,
                                   ProgressObserver* progress, const Communicator* comm)
    : requested_threads_(threads),
      threads_(resolve_threads(threads)),
      precision_(precision),
      progress_(progress),
      resolution_(++resolved) {
  if (requested == Device::cpu) {
    device_ = Device::cpu;
  } else if (std::string why; cuda::gpu_available(&why)) {
    device_ = Device::gpu;
    session_ = std::make_shared<cuda::GpuSession>(comm == nullptr ? 0 : rank_gpu(*comm));
  } else if (requested == Device::gpu) {
    throw DeviceError("the GPU was requested but none is usable: " + why +
                      " (use the CPU device instead)");
  } else {
    device_ = Device::cpu;
    why_not_gpu_ = std::move(why);
  }
}

ExecutionContext ExecutionContext::on_gpu_number(int ordinal, int threads, Precision precision,
                                                 ProgressObserver* progress) {
  ExecutionContext context(Device::gpu, threads, precision, progress);
  context.session_ = std::make_shared<cuda::GpuSession>(ordinal);
  return context;
}

std::string ExecutionContext::device_name() const {
  if (session_ == nullptr) {
    return "cpu";
  }
  const int ordinal = session_->device();
  for (const DeviceInfo& device : list_devices()) {
    if (device.ordinal == ordinal) {
      return "gpu " + std::to_string(ordinal) + ": " + device.name;
    }
  }
  return "gpu " + std::to_string(ordinal);
}

const std::shared_ptr<cuda::GpuSession>& ExecutionContext::gpu_session() const {
  if (session_ == nullptr) {
    throw std::logic_error("ExecutionContext::gpu_session: the job runs on the CPU");
  }
  return session_;
}

ExecutionContext ExecutionContext::for_solve(const SolverSettings& solver) const {
  ExecutionContext solve = *this;
  if (solver.threads != requested_threads_) {
    solve.requested_threads_ = solver.threads;
    solve.threads_ = resolve_threads(solver.threads);
  }
  solve.progress_ = solver.progress;
  return solve;
}

std::uint64_t ExecutionContext::resolutions() noexcept {
  return resolved.load();
}

}  // namespace coreset::pipeline
