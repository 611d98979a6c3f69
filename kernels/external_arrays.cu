// Kernels over arrays the caller owns in device memory (kernels/external_arrays_launch.hpp): a
// strided copy into the solver's column-major layout, and the centring of log-likelihoods into
// Phi, each with the non-finite scan that a host array gets from cpu::find_non_finite.
#include <climits>

#include "kernels/centring.cuh"
#include "kernels/external_arrays_launch.hpp"
#include "kernels/grid.cuh"

namespace coreset::kernels {
namespace {

template <class T>
__global__ void gather_strided_kernel(const T* in, index_t rows, index_t cols, index_t row_stride,
                                      index_t col_stride, T* out, unsigned long long* first_bad) {
  const index_t count = rows * cols;
  for (index_t flat = global_thread(); flat < count; flat += grid_stride()) {
    const index_t i = flat % rows;
    const index_t j = flat / rows;
    const T value = in[i * row_stride + j * col_stride];
    if (first_bad != nullptr && !isfinite(static_cast<double>(value))) {
      atomicMin(first_bad, static_cast<unsigned long long>(flat));
    }
    if (out != nullptr) {
      out[flat] = value;
    }
  }
}

// One warp per datapoint (grid-stride over them), lanes over its draws: the fixed butterfly sum
// of grid.cuh, so a column's mean is the same from run to run.
template <class T>
__global__ void __launch_bounds__(kBlock, 4)
    center_loglik_kernel(const T* loglik, index_t datapoints, index_t draws,
                         index_t datapoint_stride, index_t draw_stride, T* phi,
                         unsigned long long* first_bad) {
  for (index_t i = global_warp(); i < datapoints; i += warp_grid_stride()) {
    const T* in = loglik + i * datapoint_stride;
    const auto load = [&](index_t s) { return static_cast<double>(in[s * draw_stride]); };
    const auto as_is = [](double value, index_t) { return value; };
    centre_column(load, as_is, nullptr, draws, static_cast<unsigned long long>(i * draws),
                  phi + i * draws, first_bad);
  }
}

}  // namespace

template <class T>
void gather_strided(cudaStream_t s, const T* in, index_t rows, index_t cols, index_t row_stride,
                    index_t col_stride, T* out, unsigned long long* first_bad) {
  gather_strided_kernel<T><<<blocks_for(rows * cols), kBlock, 0, s>>>(in, rows, cols, row_stride,
                                                                      col_stride, out, first_bad);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void center_loglik(cudaStream_t s, const T* loglik, index_t datapoints, index_t draws,
                   index_t datapoint_stride, index_t draw_stride, T* phi,
                   unsigned long long* first_bad) {
  center_loglik_kernel<T><<<blocks_for_warps(datapoints), kBlock, 0, s>>>(
      loglik, datapoints, draws, datapoint_stride, draw_stride, phi, first_bad);
  CORESET_CUDA_CHECK_LAUNCH();
}

template void gather_strided<float>(cudaStream_t, const float*, index_t, index_t, index_t, index_t,
                                    float*, unsigned long long*);
template void gather_strided<double>(cudaStream_t, const double*, index_t, index_t, index_t,
                                     index_t, double*, unsigned long long*);
template void center_loglik<float>(cudaStream_t, const float*, index_t, index_t, index_t, index_t,
                                   float*, unsigned long long*);
template void center_loglik<double>(cudaStream_t, const double*, index_t, index_t, index_t, index_t,
                                    double*, unsigned long long*);

}  // namespace coreset::kernels
