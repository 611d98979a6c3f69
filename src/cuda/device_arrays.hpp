// Arrays the caller already holds in GPU memory (coreset::DeviceArrayView: CuPy, PyTorch, JAX or
// Numba arrays handed in from Python, or a C++ caller's own cudaMalloc), solved where they are.
// Free of CUDA headers; a build without CUDA gets stand-ins (solve_cuda_disabled.cpp) that throw
// DeviceError.
#pragma once

#include <string>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cuda/gpu_session.hpp"

namespace coreset::cuda {

/// The CUDA ordinal of the GPU whose memory `pointer` points into. Throws InvalidArgument naming
/// `what` when it is not device or managed memory (a host pointer, say), DeviceError when CUDA
/// cannot tell.
int device_of(const void* pointer, const std::string& what);

/// `count` values from host or device memory (the kind is found from the pointer), on the host.
template <class T>
std::vector<T> read_values(const T* values, index_t count);

/// Runs options.algorithm on the session's GPU (the one that holds `array`) for Phi = `array`
/// (S x n; read in place when its strides are (1, S), else gathered once on the device) or, with
/// `loglik`, for the Phi centred from `array` (n x S log-likelihoods, kernels::center_loglik).
/// `y` (host, already checked finite) or null for Phi 1. The view's shape and the options are
/// assumed validated; InvalidArgument names a non-finite entry of the array.
template <class T>
SolveResult solve_device_array(GpuSession& session, DeviceArrayView<T> array, bool loglik,
                               const T* y, const SolverOptions& options);

/// coreset::copy_to_host on the session's GPU (the one that holds `array`); the view is assumed
/// validated.
template <class T>
Matrix<T> copy_to_host(GpuSession& session, DeviceArrayView<T> array);

}  // namespace coreset::cuda
