// The GPU entry points seen by the rest of the library, free of CUDA headers. In a build without
// CUDA (CORESET_ENABLE_CUDA=OFF or no toolkit) they come from solve_cuda_disabled.cpp, where
// gpu_available() is false and the others throw DeviceError saying the build has no CUDA.
#pragma once

#include <string>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"

namespace coreset::cuda {

/// A usable GPU (driver, device, CUDA support compiled in); else false and the reason.
bool gpu_available(std::string* why_not);

/// Runs options.algorithm (solvers/run_algorithm.hpp) on GPU 0; inputs are assumed validated.
/// Throws DeviceError when no GPU is usable or Phi does not fit in its free memory.
template <class T>
SolveResult solve_on_gpu(MatrixView<T> phi, const T* y, const SolverOptions& options);

}  // namespace coreset::cuda
