// Launcher of the GPU projection's fused kernel (kernels/projection.cu), in plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include "coreset/types.hpp"
#include "models/link.hpp"

namespace coreset::kernels {

/// How the fused pass keeps a column's link values between its sum and its centring: `held` in
/// each lane's registers when the column has at most 512 entries (z read once; longer columns
/// are stored), or `stored`, written over z and read back (16 more bytes an entry; any length).
/// The output bits are the same. `automatic` holds them up to kHeldLinkRows entries and stores
/// them beyond: bench_gpu_link on an H200 (bench/results/gpu_h200_20261127_4a3fc22) timed a block
/// at 60.2 us held against 72.8 stored at S = 100 (4 values a lane), but 72.5 held against 53.2
/// stored at S = 500 (16 a lane: 88 registers against 54, too few warps to hide the loads).
/// `recomputed`: neither; the centring loads z again and computes the link a second time (any
/// length; 20 bytes an entry moved against stored's 28, twice the link's arithmetic; not yet
/// timed, bench_gpu_link times it beside the other two).
enum class LinkValues { automatic, held, stored, recomputed };
inline constexpr index_t kHeldLinkRows = 128;

/// Whether link_center keeps the link values of columns of `rows` entries in registers.
constexpr bool holds_link_values(LinkValues values, index_t rows) {
  constexpr index_t kMostHeld = 512;  // 16 values a lane of a warp
  switch (values) {
    case LinkValues::automatic:
      return rows <= kHeldLinkRows;
    case LinkValues::held:
      return rows <= kMostHeld;
    case LinkValues::stored:
    case LinkValues::recomputed:
      break;
  }
  return false;
}

/// For the `width` datapoints first.. of a block: z (S x width, the GEMM's output; overwritten
/// when the link values are stored) becomes the centred, scaled columns first.. of phi (S x n).
/// `quadratic` may be null. first_bad receives (atomic min) the flat index datapoint * S + sample
/// of any non-finite log-likelihood; it must start at ULLONG_MAX.
template <class T>
void link_center(cudaStream_t s, double* z, index_t rows, index_t first, index_t width,
                 const double* response, const double* quadratic, models::Link link,
                 double precision, T* phi, unsigned long long* first_bad,
                 LinkValues values = LinkValues::automatic);

}  // namespace coreset::kernels
