// Launchers of the device Laplace's per-row pass (kernels/link_sums.cu), in plain C++. The host
// side (cuda/device_dataset.cpp) turns their output into the three sums of models/row_sums.hpp
// with cuBLAS: per block of kLinkSumRows rows, block^T [c .* block | g], a d x (d + 1) partial.
#pragma once

#include <cuda_runtime_api.h>

#include "coreset/types.hpp"
#include "models/link.hpp"
#include "models/offsets_view.hpp"

namespace coreset::kernels {

/// Rows per partial sum. Fixed, never a function of the device or of n, so that the partials,
/// and the order they are added in, are the same on every run.
constexpr index_t kLinkSumRows = 4096;

/// For the `count` rows first.. of the design (n x d, column-major, ld n), a_n = z_n . theta
/// and the link's terms at a_n. Row block b (kLinkSumRows rows, the last one shorter) writes
/// sum over its rows of (ell(a_n, y_n) + offset[n]), summed in a fixed tree, to
/// value[b * value_stride]. With `derivatives`, w (ld_w >= count, d + 1 columns) receives
/// w[r, j] = -ell''(a_n) z_nj for j < d and w[r, d] = ell'(a_n), r = n - first.
void link_terms(cudaStream_t s, const double* design, index_t n, index_t d, const double* theta,
                const double* response, models::OffsetsView offset, models::Link link,
                double precision, index_t first, index_t count, bool derivatives, double* w,
                index_t ld_w, double* value, index_t value_stride);

/// out[e] = sum over b < blocks, ascending, of partials[b * stride + e], for e < count: the
/// blocks' partial sums added in one fixed order.
void sum_partials(cudaStream_t s, const double* partials, index_t blocks, index_t stride,
                  index_t count, double* out);

}  // namespace coreset::kernels
