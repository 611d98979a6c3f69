// Launcher of the GPU projection's fused kernel (kernels/projection.cu), in plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include "coreset/types.hpp"
#include "models/link.hpp"

namespace coreset::kernels {

/// How the fused pass keeps a column's link values between its sum and its centring: in each
/// lane's registers when the column has at most 512 entries (z read once), or written over z
/// and read back (16 more bytes an entry; any length). The output bits are the same.
enum class LinkValues { held_when_short, stored };

/// For the `width` datapoints first.. of a block: z (S x width, the GEMM's output; overwritten
/// when the link values are stored) becomes the centred, scaled columns first.. of phi (S x n).
/// `quadratic` may be null. first_bad receives (atomic min) the flat index datapoint * S + sample
/// of any non-finite log-likelihood; it must start at ULLONG_MAX.
template <class T>
void link_center(cudaStream_t s, double* z, index_t rows, index_t first, index_t width,
                 const double* response, const double* quadratic, models::Link link,
                 double precision, T* phi, unsigned long long* first_bad,
                 LinkValues values = LinkValues::held_when_short);

}  // namespace coreset::kernels
