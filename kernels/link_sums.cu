// The per-row pass of the device Laplace (kernels/link_sums_launch.hpp): the linear predictor,
// the model's link (models/link.hpp, the code the CPU runs), and the per-block value sums. The
// products with the design are cuBLAS's (cuda/device_dataset.cpp); every sum here is a fixed
// tree or a fixed sequence, so a call gives the same bits every time.
#include <algorithm>

#include "kernels/grid.cuh"
#include "kernels/link_sums_launch.hpp"
#include "models/link.hpp"

namespace coreset::kernels {
namespace {

// One thread block per kLinkSumRows rows: its value sum is one fixed tree.
__global__ void link_terms_kernel(const double* design, index_t n, index_t d, const double* theta,
                                  const double* response, models::OffsetsView offset,
                                  models::Link link, double precision, index_t first, index_t count,
                                  bool derivatives, double* w, index_t ld_w, double* value,
                                  index_t value_stride) {
  const index_t begin = static_cast<index_t>(blockIdx.x) * kLinkSumRows;
  const index_t end = std::min(count, begin + kLinkSumRows);
  double sum = 0.0;
  for (index_t r = begin + threadIdx.x; r < end; r += blockDim.x) {
    const index_t row = first + r;
    // Column-major: thread r reads entry row of each column, so a warp's loads coalesce.
    double a = 0.0;
    for (index_t j = 0; j < d; ++j) {
      a += design[row + j * n] * theta[j];
    }
    if (!derivatives) {
      // A line search's pass: the value alone (the same bits as evaluate_link's value).
      sum += models::link_value(link, a, response[row], precision) + offset[row];
      continue;
    }
    const models::LinkTerms terms = models::evaluate_link(link, a, response[row], precision);
    sum += terms.value + offset[row];
    const double c = -terms.second;  // -ell''(a) >= 0 up to round-off
    for (index_t j = 0; j < d; ++j) {
      w[r + j * ld_w] = c * design[row + j * n];
    }
    w[r + d * ld_w] = terms.first;
  }
  const double total = block_sum(sum);
  if (threadIdx.x == 0) {
    value[static_cast<index_t>(blockIdx.x) * value_stride] = total;
  }
}

__global__ void sum_partials_kernel(const double* partials, index_t blocks, index_t stride,
                                    index_t count, double* out) {
  for (index_t e = global_thread(); e < count; e += grid_stride()) {
    double total = 0.0;
    for (index_t b = 0; b < blocks; ++b) {
      total += partials[b * stride + e];
    }
    out[e] = total;
  }
}

}  // namespace

void link_terms(cudaStream_t s, const double* design, index_t n, index_t d, const double* theta,
                const double* response, models::OffsetsView offset, models::Link link,
                double precision, index_t first, index_t count, bool derivatives, double* w,
                index_t ld_w, double* value, index_t value_stride) {
  if (count <= 0) {
    return;
  }
  const auto blocks = static_cast<unsigned int>((count + kLinkSumRows - 1) / kLinkSumRows);
  link_terms_kernel<<<blocks, kBlock, 0, s>>>(design, n, d, theta, response, offset, link,
                                              precision, first, count, derivatives, w, ld_w, value,
                                              value_stride);
  CORESET_CUDA_CHECK_LAUNCH();
}

void sum_partials(cudaStream_t s, const double* partials, index_t blocks, index_t stride,
                  index_t count, double* out) {
  if (count <= 0) {
    return;
  }
  sum_partials_kernel<<<blocks_for(count), kBlock, 0, s>>>(partials, blocks, stride, count, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

}  // namespace coreset::kernels
