// The fused pass of the GPU projection (cuda/projection_cuda.cpp): for each datapoint of a block,
// its S linear predictors z = theta_s . x_n (from the GEMM) become
//     phi_s = (ell(z_s, y_n) - q_s - mean) / sqrt(S),   mean = (1/S) sum_s (ell(z_s, y_n) - q_s),
// with ell the model's link (models/link.hpp, shared with the CPU) and q_s the shared quadratic
// 1/2 theta_s^T Q theta_s. One warp per datapoint: lanes over the samples, a fixed butterfly sum.
#include <cstdint>

#include "kernels/centring.cuh"
#include "kernels/projection_launch.hpp"
#include "models/link.hpp"

namespace coreset::kernels {
namespace {

template <class T>
__global__ void link_center_kernel(double* z, index_t rows, index_t first, index_t width,
                                   const double* response, const double* quadratic,
                                   models::Link link, double precision, T* phi,
                                   unsigned long long* first_bad) {
  for (index_t j = global_warp(); j < width; j += warp_grid_stride()) {
    double* column = z + j * rows;
    const index_t row = first + j;
    const double y = response[row];
    // The link's values overwrite the column's linear predictors, read again for the centring.
    const auto link_value = [&](index_t s) {
      double value = models::link_value(link, column[s], y, precision);
      if (quadratic != nullptr) {
        value = sub(value, quadratic[s]);
      }
      column[s] = value;
      return value;
    };
    const auto stored = [&](index_t s) { return column[s]; };
    centre_column(link_value, stored, rows, static_cast<unsigned long long>(row * rows),
                  phi + row * rows, first_bad);
  }
}

}  // namespace

template <class T>
void link_center(cudaStream_t s, double* z, index_t rows, index_t first, index_t width,
                 const double* response, const double* quadratic, models::Link link,
                 double precision, T* phi, unsigned long long* first_bad) {
  link_center_kernel<T><<<blocks_for_warps(width), kBlock, 0, s>>>(
      z, rows, first, width, response, quadratic, link, precision, phi, first_bad);
  CORESET_CUDA_CHECK_LAUNCH();
}

template void link_center<float>(cudaStream_t, double*, index_t, index_t, index_t, const double*,
                                 const double*, models::Link, double, float*, unsigned long long*);
template void link_center<double>(cudaStream_t, double*, index_t, index_t, index_t, const double*,
                                  const double*, models::Link, double, double*,
                                  unsigned long long*);

}  // namespace coreset::kernels
