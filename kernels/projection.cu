// The fused pass of the GPU projection (cuda/projection_cuda.cpp): for each datapoint of a block,
// its S linear predictors z = theta_s . x_n (from the GEMM) become
//     phi_s = (ell(z_s, y_n) - q_s - mean) / sqrt(S),   mean = (1/S) sum_s (ell(z_s, y_n) - q_s),
// with ell the model's link (models/link.hpp, shared with the CPU) and q_s the shared quadratic
// 1/2 theta_s^T Q theta_s. One warp per datapoint: lanes over the samples, a fixed butterfly sum.
#include <cstdint>
#include <type_traits>

#include "kernels/centring.cuh"
#include "kernels/projection_launch.hpp"
#include "models/link.hpp"

namespace coreset::kernels {
namespace {

// kHeld > 0: each lane keeps its link values in registers (rows <= 32 * kHeld), so z is read
// once. kHeld = 0 (holds_link_values, projection_launch.hpp): the link's values overwrite the
// column's linear predictors and are read again for the centring, 16 more bytes an entry, each
// lane's loads a batch at a time (centre_column). kRecomputed: the centring loads z again and
// computes the link again (LinkValues::recomputed). The output bits are the same every way
// (centring.cuh). kHeld = 16 takes 80 registers where 0 takes 58 (ptxas, sm_90): fewer
// warps an SM, and on the H200 the slower of the two at S = 500; bench_gpu_link times both at
// S = 100, 250 and 500.
constexpr int kRecomputed = -1;

template <class T, int kHeld>
__global__ void __launch_bounds__(kBlock, kHeld <= 0 ? 4 : 1)
    link_center_kernel(double* z, index_t rows, index_t first, index_t width,
                       const double* response, const double* quadratic, models::Link link,
                       double precision, T* phi, unsigned long long* first_bad) {
  for (index_t j = global_warp(); j < width; j += warp_grid_stride()) {
    double* column = z + j * rows;
    const index_t row = first + j;
    const double y = response[row];
    // The link of the linear predictor z of sample s, less the shared quadratic.
    const auto link_of = [&](double predictor, index_t s) {
      double value = models::link_value(link, predictor, y, precision);
      if (quadratic != nullptr) {
        value = sub(value, quadratic[s]);
      }
      return value;
    };
    const auto flat_first = static_cast<unsigned long long>(row * rows);
    if constexpr (kHeld > 0) {
      const auto link_value = [&](index_t s) { return link_of(column[s], s); };
      centre_column_held<kHeld>(link_value, rows, flat_first, phi + row * rows, first_bad);
    } else {
      const auto load = [&](index_t s) { return column[s]; };
      centre_column(load, link_of, kHeld == kRecomputed ? nullptr : column, rows, flat_first,
                    phi + row * rows, first_bad);
    }
  }
}

}  // namespace

template <class T>
void link_center(cudaStream_t s, double* z, index_t rows, index_t first, index_t width,
                 const double* response, const double* quadratic, models::Link link,
                 double precision, T* phi, unsigned long long* first_bad, LinkValues values) {
  const auto launch = [&](auto held) {
    link_center_kernel<T, decltype(held)::value><<<blocks_for_warps(width), kBlock, 0, s>>>(
        z, rows, first, width, response, quadratic, link, precision, phi, first_bad);
  };
  if (values == LinkValues::recomputed) {
    launch(std::integral_constant<int, kRecomputed>{});
  } else if (!holds_link_values(values, rows)) {
    launch(std::integral_constant<int, 0>{});
  } else if (rows > 8 * kWarp) {
    launch(std::integral_constant<int, 16>{});
  } else if (rows > 4 * kWarp) {
    launch(std::integral_constant<int, 8>{});
  } else {
    launch(std::integral_constant<int, 4>{});
  }
  CORESET_CUDA_CHECK_LAUNCH();
}

template void link_center<float>(cudaStream_t, double*, index_t, index_t, index_t, const double*,
                                 const double*, models::Link, double, float*, unsigned long long*,
                                 LinkValues);
template void link_center<double>(cudaStream_t, double*, index_t, index_t, index_t, const double*,
                                  const double*, models::Link, double, double*, unsigned long long*,
                                  LinkValues);

}  // namespace coreset::kernels
