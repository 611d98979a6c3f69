#include "cuda/resources.hpp"

#include <string>

#include "coreset/error.hpp"
#include "cuda/memory_plan.hpp"
#include "kernels/check.hpp"

namespace coreset::cuda {
namespace {
constexpr index_t kCublasWorkspaceBytes = index_t{32} << 20;
}  // namespace

bool gpu_usable(std::string* why_not) {
  int count = 0;  // left untouched when the call fails (no driver: cudaErrorInsufficientDriver)
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    if (why_not != nullptr) {
      *why_not = std::string("the CUDA runtime reports ") + cudaGetErrorString(status);
    }
    return false;
  }
  if (count < 1) {
    if (why_not != nullptr) {
      *why_not = "the CUDA runtime found no device";
    }
    return false;
  }
  return true;
}

void device_memory(std::size_t& free_bytes, std::size_t& total_bytes) {
  CORESET_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void check_fits(std::size_t matrix_bytes, std::size_t working_bytes, const std::string& what) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  check_parts_fit({{"the matrix", matrix_bytes}, {"the working vectors", working_bytes}},
                  free_bytes, total_bytes, what,
                  "use --device cpu, --precision float, or fewer samples");
}

void check_gpu_build_fits(GpuSession& session, index_t n, index_t d, index_t samples,
                          std::size_t element_bytes) {
  const auto held = session.lock();
  CORESET_CUDA_TRY(cudaSetDevice(session.device()));  // its memory, without making resources
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  device_memory(free_bytes, total_bytes);
  check_parts_fit(gpu_build_parts(n, d, samples, element_bytes), free_bytes, total_bytes,
                  "the GPU build (" + std::to_string(n) + " datapoints, " + std::to_string(d) +
                      " parameters, " + std::to_string(samples) + " samples)",
                  "use fewer --samples, --precision float, more ranks (mpirun), or --device cpu");
}

Resources::Resources(int device) : device_(device) {
  CORESET_CUDA_TRY(cudaSetDevice(device));
  CORESET_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  try {
    CORESET_CUDA_TRY(cudaStreamCreateWithFlags(&body_stream_, cudaStreamNonBlocking));
    CORESET_CUBLAS_TRY(cublasCreate(&cublas_));
    CORESET_CUBLAS_TRY(cublasSetStream(cublas_, stream_));
    // A workspace of our own (after cublasSetStream, which resets it): a call recorded into a
    // CUDA graph then uses it instead of allocating inside the graph, the host loop and the
    // graph run the same kernels, and the memory is counted before any plan reads free memory.
    // 32 MiB is cuBLAS' recommendation for Hopper.
    cublas_workspace_.resize_discard(kCublasWorkspaceBytes);
    CORESET_CUBLAS_TRY(cublasSetWorkspace(cublas_, cublas_workspace_.data(),
                                          static_cast<std::size_t>(kCublasWorkspaceBytes)));
    // Scalars alpha and beta of every call are host values.
    CORESET_CUBLAS_TRY(cublasSetPointerMode(cublas_, CUBLAS_POINTER_MODE_HOST));
    scalars_.resize_discard(kScalarSlots);
  } catch (...) {
    if (cublas_ != nullptr) {
      cublasDestroy(cublas_);
    }
    if (body_stream_ != nullptr) {
      cudaStreamDestroy(body_stream_);
    }
    cudaStreamDestroy(stream_);
    throw;
  }
}

Resources::~Resources() {
  // Nothing may throw here; pending work is waited for so buffers freed after us are idle.
  cudaStreamSynchronize(stream_);
  if (pinned_ != nullptr) {
    cudaFreeHost(pinned_);
  }
  cublasDestroy(cublas_);
  cudaStreamDestroy(body_stream_);
  cudaStreamDestroy(stream_);
}

double* Resources::next_scalar() noexcept {
  double* slot = scalars_.data() + next_slot_;
  next_slot_ = (next_slot_ + 1) % kScalarSlots;
  return slot;
}

double* Resources::pinned(std::size_t count) {
  if (count > pinned_count_) {
    if (pinned_ != nullptr) {
      CORESET_CUDA_TRY(cudaFreeHost(pinned_));
      pinned_ = nullptr;
      pinned_count_ = 0;
    }
    void* pointer = nullptr;
    CORESET_CUDA_TRY(cudaMallocHost(&pointer, count * sizeof(double)));
    pinned_ = static_cast<double*>(pointer);
    pinned_count_ = count;
  }
  return pinned_;
}

void Resources::synchronize() const {
  CORESET_CUDA_TRY(cudaStreamSynchronize(stream_));
}

}  // namespace coreset::cuda
