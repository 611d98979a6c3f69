// Which kernel computes the GPU backend's Phi^T r (cuda/cuda_backend.cpp) for columns of S
// entries: one rule, read by the backend, bench_gpu and the tests.
//
//   tiled     S <= 128 in float, 94 in double (kernels/tiled_columns_logic.hpp): 0.85-0.97 of the
//             copy bandwidth at S = 100 and n >= 1e6 on an H200, where cuBLAS' gemv reached
//             0.61-0.70 (bench/results/gpu_h200_20261126_*);
//   streamed  longer columns up to S = 1024 in float, 512 in double
//             (kernels/streamed_columns_logic.hpp): chosen over cuBLAS (0.72 / 0.88 at n = 1e6 /
//             1e7, S = 500 on an H200 at 816332d) before a GPU has timed it; bench_gpu times the
//             three side by side and A-IHT II with cuBLAS' instead;
//   cublas    the rest (cublas<t>gemv_64, CUBLAS_OP_T).
#pragma once

#include "coreset/types.hpp"
#include "kernels/streamed_columns_logic.hpp"
#include "kernels/tiled_columns_logic.hpp"

namespace coreset::kernels {

enum class PhiTr { automatic, tiled, streamed, cublas };

/// The kernel the backend takes for columns of `rows` entries of `element_bytes`.
constexpr PhiTr phi_t_r_kernel(index_t rows, index_t element_bytes) {
  if (tiled_columns::preferred(rows, element_bytes)) {
    return PhiTr::tiled;
  }
  if (streamed_columns::fits(rows, element_bytes)) {
    return PhiTr::streamed;
  }
  return PhiTr::cublas;
}

/// Whether `kernel` takes such columns (automatic and cuBLAS take any).
constexpr bool phi_t_r_takes(PhiTr kernel, index_t rows, index_t element_bytes) {
  switch (kernel) {
    case PhiTr::tiled:
      return tiled_columns::fits(rows, element_bytes);
    case PhiTr::streamed:
      return streamed_columns::fits(rows, element_bytes);
    default:
      return true;
  }
}

constexpr const char* to_string(PhiTr kernel) {
  switch (kernel) {
    case PhiTr::tiled:
      return "column tiles";
    case PhiTr::streamed:
      return "streamed columns";
    case PhiTr::cublas:
      return "cuBLAS gemv";
    default:
      return "automatic";
  }
}

}  // namespace coreset::kernels
