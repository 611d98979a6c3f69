// Phi^T r by streamed columns (kernels/streamed_columns_logic.hpp gives the arithmetic and the
// shapes): a warp per column, or per few short ones, with every load of a lane's entries issued
// before the first product, and r held in registers for the whole launch.
//
// Why: cuBLAS' gemv reached 0.72 / 0.88 of the copy bandwidth at n = 1e6 / 1e7, S = 500 on an
// H200 (bench/results/gpu_h200_20261127_816332d), and the tiled kernel with a warp a column 0.77 /
// 0.78 (248d8f7): it stages each tile in shared memory between two barriers, so a block's loads
// stop while it computes. Here nothing waits on a barrier, and a lane has up to 128 bytes of Phi on
// the way at once (16-byte loads where the columns are aligned). Not yet timed on a GPU;
// bench_gpu times it beside cuBLAS and the tiled kernel.
#include <algorithm>
#include <cstddef>
#include <string>

#include "coreset/error.hpp"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/streamed_columns_logic.hpp"

namespace coreset::kernels {
namespace {

// kWidth consecutive entries, loaded as one access (16 bytes when kWidth * sizeof(T) is).
template <class T, int kWidth>
struct alignas(sizeof(T) * kWidth) Entries {
  T value[kWidth];
};

// kEntries of each column per lane, in loads of kWidth; kColumns consecutive columns per step of
// a warp. Lane l's m-th load starts at entry (l + 32 m) * kWidth (streamed_columns::lane_sum).
template <class T, int kEntries, int kWidth, int kColumns>
__global__ void __launch_bounds__(kBlock, 2)
    phi_t_times_streamed_kernel(const T* __restrict__ phi, index_t rows, index_t cols,
                                const T* __restrict__ r, T* __restrict__ out) {
  static_assert(kEntries % kWidth == 0, "whole loads");
  constexpr int kLoads = kEntries / kWidth;
  using Load = Entries<T, kWidth>;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  // This lane's entries of r, the same in every column (0 past the end, never used).
  double r_held[kEntries];
#pragma unroll
  for (int m = 0; m < kLoads; ++m) {
#pragma unroll
    for (int w = 0; w < kWidth; ++w) {
      const index_t i = (lane + index_t{kWarp} * m) * kWidth + w;
      r_held[m * kWidth + w] = i < rows ? static_cast<double>(r[i]) : 0.0;
    }
  }
  // Which of this lane's loads lie within a column: the same in every column.
  const int lane_start = lane * kWidth;
  const auto loads_in_column = static_cast<int>(
      rows > lane_start ? (rows - lane_start + kWarp * kWidth - 1) / (kWarp * kWidth) : 0);
  const index_t steps = (cols + kColumns - 1) / kColumns;
  for (index_t step = global_warp(); step < steps; step += warp_grid_stride()) {
    const index_t first = step * kColumns;
    const T* lane_entries = phi + first * rows + lane_start;
    // Every load of the step first, so that they are all in flight together.
    Load loaded[kColumns][kLoads] = {};
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
#pragma unroll
      for (int m = 0; m < kLoads; ++m) {
        if (first + c < cols && m < loads_in_column) {
          loaded[c][m] =
              *reinterpret_cast<const Load*>(lane_entries + c * rows + m * kWarp * kWidth);
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kColumns; ++c) {
      double sum = 0.0;
#pragma unroll
      for (int m = 0; m < kLoads; ++m) {
#pragma unroll
        for (int w = 0; w < kWidth; ++w) {
          if (lane_start + m * kWarp * kWidth + w < rows) {
            sum = add(sum, mul(static_cast<double>(loaded[c][m].value[w]), r_held[m * kWidth + w]));
          }
        }
      }
      sum = warp_sum(sum);
      if (lane == 0 && first + c < cols) {
        out[first + c] = static_cast<T>(sum);
      }
    }
  }
}

template <class T, int kEntries, int kWidth>
void launch_streamed(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r, T* out,
                     index_t max_blocks) {
  if constexpr (kEntries <= streamed_columns::most_entries_per_lane(sizeof(T))) {
    constexpr auto kColumns = static_cast<int>(
        streamed_columns::columns_per_step_for(kEntries, static_cast<index_t>(sizeof(T))));
    const index_t steps = (cols + kColumns - 1) / kColumns;
    const auto blocks = static_cast<unsigned int>(
        std::min<index_t>(blocks_for_warps(steps), std::max<index_t>(max_blocks, 1)));
    phi_t_times_streamed_kernel<T, kEntries, kWidth, kColumns>
        <<<blocks, kBlock, 0, s>>>(phi, rows, cols, r, out);
    CORESET_CUDA_CHECK_LAUNCH();
  }
}

template <class T, int kWidth>
void launch_streamed_width(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r,
                           T* out, index_t max_blocks) {
  switch (streamed_columns::entries_per_lane(rows)) {
    case 4:
      launch_streamed<T, 4, kWidth>(s, phi, rows, cols, r, out, max_blocks);
      break;
    case 8:
      launch_streamed<T, 8, kWidth>(s, phi, rows, cols, r, out, max_blocks);
      break;
    case 16:
      launch_streamed<T, 16, kWidth>(s, phi, rows, cols, r, out, max_blocks);
      break;
    default:
      launch_streamed<T, 32, kWidth>(s, phi, rows, cols, r, out, max_blocks);
      break;
  }
}

}  // namespace

template <class T>
void phi_t_times_streamed(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r,
                          T* out, index_t max_blocks) {
  if (!streamed_columns::fits(rows, sizeof(T))) {
    throw InvalidArgument("phi_t_times_streamed: columns of " + std::to_string(rows) +
                          " rows are longer than a warp's registers hold (streamed_columns::fits)");
  }
  if (cols <= 0) {
    return;
  }
  constexpr int kVectorWidth = static_cast<int>(16 / sizeof(T));
  if (streamed_columns::load_width(phi, rows, sizeof(T)) == kVectorWidth) {
    launch_streamed_width<T, kVectorWidth>(s, phi, rows, cols, r, out, max_blocks);
  } else {
    launch_streamed_width<T, 1>(s, phi, rows, cols, r, out, max_blocks);
  }
}

template void phi_t_times_streamed<float>(cudaStream_t, const float*, index_t, index_t,
                                          const float*, float*, index_t);
template void phi_t_times_streamed<double>(cudaStream_t, const double*, index_t, index_t,
                                           const double*, double*, index_t);

}  // namespace coreset::kernels
