// The solver drivers of solvers/ on the CUDA backend.
#include "cuda/solve_cuda.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coreset/distributed.hpp"
#include "cpu/distributed_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_column_block.hpp"
#include "cuda/resources.hpp"
#include "solvers/run_algorithm.hpp"

namespace coreset::cuda {

bool gpu_available(std::string* why_not) {
  return gpu_usable(why_not);
}

void warm_up_device(int ordinal) noexcept {
  // cudaFree(nullptr) is the runtime's idiom for "create the context now".
  if (cudaSetDevice(ordinal) == cudaSuccess && cudaFree(nullptr) == cudaSuccess) {
    cublasHandle_t handle = nullptr;
    if (cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle);
    }
  }
  cudaGetLastError();  // nothing left for the job's first check to take as its own
}

template <class T>
SolveResult solve_on_gpu(GpuSession& session, MatrixView<T> phi, const T* y,
                         const SolverOptions& options, const cpu::RankColumns* rank) {
  const auto held = session.lock();
  if (rank != nullptr) {
    // A block that does not fit its GPU (or any CUDA failure in the upload) stops every rank
    // alike: the others would otherwise wait for it in the backend's first collective.
    std::optional<DeviceColumnBlock<T>> block;
    on_every_rank(rank->comm, [&] { block.emplace(session, phi, rank->first); });
    cpu::DistributedBackend<T, DeviceColumnBlock<T>> backend(std::move(*block), rank->columns,
                                                             *rank->comm);
    return solvers::run_algorithm(backend, solvers::host_target(backend, y), options);
  }
  CudaBackend<T> backend(session.resources(), phi);
  auto target = backend.make_sample_vector();
  if (y != nullptr) {
    backend.upload(std::vector<T>(y, y + phi.rows), target);
  } else {
    backend.column_sums(target);
  }
  return solvers::run_algorithm(backend, target, options);
}

template SolveResult solve_on_gpu<float>(GpuSession&, MatrixView<float>, const float*,
                                         const SolverOptions&, const cpu::RankColumns*);
template SolveResult solve_on_gpu<double>(GpuSession&, MatrixView<double>, const double*,
                                          const SolverOptions&, const cpu::RankColumns*);

}  // namespace coreset::cuda
