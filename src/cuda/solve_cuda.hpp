// The GPU entry points seen by the rest of the library, free of CUDA headers. In a build without
// CUDA (CORESET_ENABLE_CUDA=OFF or no toolkit) they come from solve_cuda_disabled.cpp, where
// gpu_available() is false and the others throw DeviceError saying the build has no CUDA.
#pragma once

#include <string>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cpu/solve_cpu.hpp"
#include "cuda/gpu_session.hpp"

namespace coreset::cuda {

/// A usable GPU (driver, device, CUDA support compiled in); else false and the reason. The
/// pipeline asks once per job (pipeline/execution_context.hpp).
bool gpu_available(std::string* why_not);

/// Makes GPU `ordinal` ready for a job on the calling thread: its primary context, and cuBLAS's
/// state (a handle made and released). Errors are cleared and ignored: the job's own calls report
/// them. Nothing in a build without CUDA. For coreset::GpuWarmUp's thread.
void warm_up_device(int ordinal) noexcept;

/// Runs options.algorithm (solvers/run_algorithm.hpp) on the session's GPU for a Phi on the
/// host, which is copied there first; inputs are assumed validated. Throws DeviceError when Phi
/// does not fit in the free device memory or a CUDA call fails. `rank` (null: one process):
/// this process's block of a distributed solve, on the distributed backend over a device block
/// (cuda/device_column_block.hpp); every rank gets the whole result.
template <class T>
SolveResult solve_on_gpu(GpuSession& session, MatrixView<T> phi, const T* y,
                         const SolverOptions& options, const cpu::RankColumns* rank = nullptr);

}  // namespace coreset::cuda
