// Launcher of the GPU projection's fused kernel (kernels/projection.cu), in plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include "coreset/types.hpp"
#include "models/link.hpp"

namespace coreset::kernels {

/// For the `width` datapoints first.. of a block: z (S x width, the GEMM's output, overwritten)
/// becomes the centred, scaled columns first.. of phi (S x n). `quadratic` may be null.
/// first_bad receives (atomic min) the flat index datapoint * S + sample of any non-finite
/// log-likelihood; it must start at ULLONG_MAX.
template <class T>
void link_center(cudaStream_t s, double* z, index_t rows, index_t first, index_t width,
                 const double* response, const double* quadratic, models::Link link,
                 double precision, T* phi, unsigned long long* first_bad);

}  // namespace coreset::kernels
