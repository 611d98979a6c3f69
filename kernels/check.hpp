// Every CUDA runtime and cuBLAS call of the GPU backend goes through these macros, so a failure
// surfaces as a coreset::DeviceError naming the call, the error and where it was made, instead
// of a silently wrong result several kernels later.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <string>

#include "coreset/error.hpp"

namespace coreset::kernels {

/// "file:line: call failed: reason": the message of every DeviceError thrown for a failed call.
[[noreturn]] void throw_call_error(const char* call, const std::string& reason, const char* file,
                                   int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw_call_error(
        call, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")", file,
        line);
  }
}

/// cuBLAS' own names of its status codes (cublasGetStatusString needs no handle).
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw_call_error(call, cublasGetStatusString(status), file, line);
  }
}

}  // namespace coreset::kernels

#define CORESET_CUDA_TRY(call) ::coreset::kernels::check_cuda((call), #call, __FILE__, __LINE__)
#define CORESET_CUBLAS_TRY(call) ::coreset::kernels::check_cublas((call), #call, __FILE__, __LINE__)
/// After a kernel launch: launch-configuration errors are reported at once, not at the next sync.
#define CORESET_CUDA_CHECK_LAUNCH() CORESET_CUDA_TRY(cudaGetLastError())
