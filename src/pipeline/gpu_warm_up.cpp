// coreset::GpuWarmUp (coreset/solver.hpp): the GPU's context made on a thread of its own while
// the caller reads its data, so that a job does not wait for it after.
#include <cstdlib>
#include <optional>
#include <system_error>
#include <thread>

#include "coreset/solver.hpp"
#include "cuda/solve_cuda.hpp"
#include "support/switch_value.hpp"

namespace coreset {

struct GpuWarmUp::Impl {
  std::thread thread;
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (thread.joinable()) {
      thread.join();
    }
  }
};

GpuWarmUp::GpuWarmUp(int ordinal) : impl_(std::make_unique<Impl>()) {
#if defined(CORESET_WITH_CUDA)
  const std::optional<bool> asked = support::parse_switch_value(std::getenv("CORESET_GPU_WARM_UP"));
  if (asked.value_or(true)) {
    try {
      impl_->thread = std::thread([ordinal] { cuda::warm_up_device(ordinal); });
    } catch (const std::system_error&) {
      // No thread to be had: the job makes the context itself, as it would without a warm-up.
    }
  }
#else
  (void)ordinal;
#endif
}

GpuWarmUp::~GpuWarmUp() = default;
GpuWarmUp::GpuWarmUp(GpuWarmUp&& other) noexcept = default;
GpuWarmUp& GpuWarmUp::operator=(GpuWarmUp&& other) noexcept = default;

bool GpuWarmUp::started() const noexcept {
  return impl_ != nullptr && impl_->thread.joinable();
}

}  // namespace coreset
