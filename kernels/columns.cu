// Kernels that read columns of Phi (S x n, column-major, ld = S): the products over a support
// list, per-column dot products and norms, Phi^T r by column tiles, gathers for the host, and
// duplicate detection.
// Column offsets are 64-bit: j * S passes 2^31 at ordinary sizes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "coreset/error.hpp"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/list_product_logic.hpp"
#include "kernels/tiled_columns_logic.hpp"
#include "support/splitmix.hpp"
#include "support/uncontracted.hpp"

namespace coreset::kernels {
namespace {

// One warp per listed column: lanes stride over the rows (coalesced), then a fixed shuffle tree.
template <class T>
__global__ void columns_dot_kernel(const T* phi, index_t rows, const index_t* cols,
                                   const index_t* count, index_t m, const T* r, DotsAt at, T* out,
                                   ListCopy copy) {
  const index_t limit = count != nullptr ? min(*count, m) : m;
  if (copy.count != nullptr && global_thread() == 0) {
    *copy.count = *count;
  }
  const int lane = threadIdx.x % kWarp;
  for (index_t p = global_warp(); p < limit; p += warp_grid_stride()) {
    const index_t j = cols[p];
    if (copy.index != nullptr && lane == 0) {
      copy.index[p] = j;
    }
    const T* column = phi + j * rows;
    double sum = 0.0;
    for (index_t i = lane; i < rows; i += kWarp) {
      sum += static_cast<double>(column[i]) * static_cast<double>(r[i]);
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      out[at == DotsAt::position ? p : j] = static_cast<T>(sum);
    }
  }
}

template <class T>
__global__ void column_norms_kernel(const T* phi, index_t rows, index_t n, T* out) {
  const int lane = threadIdx.x % kWarp;
  for (index_t j = global_warp(); j < n; j += warp_grid_stride()) {
    const T* column = phi + j * rows;
    double sum = 0.0;
    for (index_t i = lane; i < rows; i += kWarp) {
      const double v = column[i];
      sum += v * v;
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      out[j] = static_cast<T>(sqrt(sum));
    }
  }
}

// Block (chunk c, row tile): thread = one row; adds its row's products over the chunk's places
// in order (list_product_logic.hpp). The places' column offsets and values are staged in shared
// memory first, kStagedPlaces at a time, so that no load of Phi waits on a load of the list, and
// the unrolled loop keeps eight loads of Phi in flight a thread.
template <class T>
__global__ void phi_times_chunks_kernel(const T* phi, index_t rows, const index_t* index,
                                        const index_t* count, index_t chunk, const T* value,
                                        double* partials) {
  constexpr int kStaged = list_product::kStagedPlaces;
  static_assert(kStaged <= kBlock, "a thread stages each place");
  __shared__ index_t offsets[kStaged];
  __shared__ T values[kStaged];
  const index_t row = static_cast<index_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  const index_t first = static_cast<index_t>(blockIdx.x) * chunk;
  // The same in every thread, so the barriers hold. A list's count is at most its bound.
  const index_t last = min(first + chunk, *count);
  double sum = 0.0;
  for (index_t start = first; start < last; start += kStaged) {
    const int width = static_cast<int>(min(static_cast<index_t>(kStaged), last - start));
    __syncthreads();  // the last tile's places are read
    if (static_cast<int>(threadIdx.x) < width) {
      offsets[threadIdx.x] = index[start + threadIdx.x] * rows;
      values[threadIdx.x] = value[start + threadIdx.x];
    }
    __syncthreads();
    if (row < rows) {
#pragma unroll 8
      for (int e = 0; e < width; ++e) {
        sum = list_product::add_product(sum, values[e], phi[offsets[e] + row]);
      }
    }
  }
  if (row < rows) {
    partials[static_cast<index_t>(blockIdx.x) * rows + row] = sum;
  }
}

// One warp per row: lanes stride over the chunks' partials, then a fixed shuffle tree
// (list_product_logic.hpp). A thread per row adding every partial in turn leaves S threads in all
// (500 at S = 500), each a chain of hundreds of loads at k = 10^4; an A-IHT II iteration (six
// products) took 0.6-0.7 ms more at k = 10^4 than at k = 100 on an H100 (bench_gpu at f516e67).
// With y and residual (phi_times_list's fused residual): also residual = y - out, the subtraction
// rounded in T as kernels::subtract rounds it.
template <class T>
__global__ void phi_times_final_kernel(const double* partials, index_t rows, index_t chunks, T* out,
                                       const T* y, T* residual) {
  const int lane = threadIdx.x % kWarp;
  for (index_t row = global_warp(); row < rows; row += warp_grid_stride()) {
    double sum = 0.0;
    for (index_t c = lane; c < chunks; c += kWarp) {
      sum += partials[c * rows + row];
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      const T product = static_cast<T>(sum);
      out[row] = product;
      if (residual != nullptr) {
        residual[row] = y[row] - product;
      }
    }
  }
}

// Phi^T r by column tiles (tiled_columns::fits): a block stages a tile of whole columns, contiguous
// in Phi, in shared memory with 16-byte loads when Phi allows, and `Parts` threads share each
// column (tiled_columns_logic.hpp: 4 up to 128 entries, a warp beyond), so that every load of Phi
// is coalesced whatever S is. (With 4 parts a warp's reads of the tile meet in one bank 8 ways
// when S is a multiple of 8, and not at all at S = 100: a pad per column would even that out, if
// the measurements say it matters.) Measured on an H200 in three runs
// (bench/results/gpu_h200_20261126_*/): at S = 100 this kernel reached 0.52-0.57 / 0.85-0.86 /
// 0.95-0.96 of the copy bandwidth at n = 1e5 / 1e6 / 1e7, where cuBLAS' gemv reached 0.34-0.37 /
// 0.61-0.62 / 0.68-0.70; at S = 500 (248d8f7), a warp a column, 0.66 / 0.77 / 0.78 against gemv's
// 0.64 / 0.72 / 0.88 (tiled_columns::preferred). A warp's
// tile is 8 columns; larger tiles (opting in to more shared memory) or loads kept in flight
// across tiles (cp.async) are the untried ways to keep long columns at the bus's rate.
template <int Parts>
constexpr int tile_columns() {
  static_assert(kBlock == tiled_columns::kTileThreads, "the logic's tile sizes are the kernel's");
  return kBlock / Parts;
}

template <class T>
__device__ void stage_tile(const T* from, index_t count, T* tile) {
  const bool aligned = (reinterpret_cast<std::uintptr_t>(from) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(tile) % 16 == 0);
  index_t done = 0;
  if (aligned) {
    constexpr index_t kPerVector = 16 / sizeof(T);
    const index_t vectors = count / kPerVector;
    const auto* source = reinterpret_cast<const uint4*>(from);
    auto* target = reinterpret_cast<uint4*>(tile);
    for (index_t v = threadIdx.x; v < vectors; v += blockDim.x) {
      target[v] = source[v];
    }
    done = vectors * kPerVector;
  }
  for (index_t e = done + threadIdx.x; e < count; e += blockDim.x) {
    tile[e] = from[e];
  }
}

template <class T, int Parts>
__global__ void phi_t_times_tiled_kernel(const T* phi, index_t rows, index_t cols, const T* r,
                                         T* out) {
  static_assert(Parts >= 1 && Parts <= kWarp && kWarp % Parts == 0, "a column within a warp");
  constexpr int kTileColumns = tile_columns<Parts>();
  extern __shared__ uint4 shared_storage[];  // uint4: 16-byte aligned
  T* tile = reinterpret_cast<T*>(shared_storage);
  T* r_shared = tile + static_cast<index_t>(kTileColumns) * rows;
  for (index_t i = threadIdx.x; i < rows; i += blockDim.x) {
    r_shared[i] = r[i];
  }
  const int column = static_cast<int>(threadIdx.x) / Parts;
  const int part = static_cast<int>(threadIdx.x) % Parts;
  const index_t tiles = (cols + kTileColumns - 1) / kTileColumns;
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t first = t * kTileColumns;
    const index_t width = min(static_cast<index_t>(kTileColumns), cols - first);
    __syncthreads();  // the last tile's reads are done (and r is staged, on the first)
    stage_tile(phi + first * rows, width * rows, tile);
    __syncthreads();
    double sum = 0.0;
    if (column < width) {
      sum = tiled_columns::part_sum(tile + column * rows, r_shared, rows, part, Parts);
    }
    // The parts of a column are consecutive lanes: halving trees, as tiled_columns::dot, the
    // column's sum in its part 0 (other lanes add a neighbour's parts, and are not read).
#pragma unroll
    for (int half = Parts / 2; half >= 1; half /= 2) {
      sum = support::add(sum, __shfl_down_sync(0xffffffffu, sum, half));
    }
    if (part == 0 && column < width) {
      out[first + column] = static_cast<T>(sum);
    }
  }
}

template <class T, int Parts>
void launch_tiled(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r, T* out,
                  index_t max_blocks) {
  const index_t tiles = (cols + tile_columns<Parts>() - 1) / tile_columns<Parts>();
  const auto blocks = static_cast<unsigned int>(
      std::min({tiles, std::max<index_t>(max_blocks, 1), index_t{1} << 16}));
  const auto shared_bytes = static_cast<std::size_t>(
      tiled_columns::tile_bytes(rows, static_cast<index_t>(sizeof(T)), Parts));
  phi_t_times_tiled_kernel<T, Parts><<<blocks, kBlock, shared_bytes, s>>>(phi, rows, cols, r, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

// An order-independent hash of a column: the sum over entries of a mix of (bits, position), so
// a warp may add its lanes' parts in any order. Equal columns always hash equal; the exact
// comparison in mark_duplicates decides.
template <class T>
__device__ inline std::uint64_t bits_of(T value) {
  if constexpr (sizeof(T) == 4) {
    return __float_as_uint(value);
  } else {
    return static_cast<std::uint64_t>(__double_as_longlong(value));
  }
}

template <class T>
__global__ void column_hashes_kernel(const T* phi, index_t rows, index_t n, std::uint64_t* out) {
  const int lane = threadIdx.x % kWarp;
  for (index_t j = global_warp(); j < n; j += warp_grid_stride()) {
    const T* column = phi + j * rows;
    std::uint64_t h = 0;
    for (index_t i = lane; i < rows; i += kWarp) {
      h += support::splitmix64(bits_of(column[i]) ^ (static_cast<std::uint64_t>(i) << 40));
    }
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
      h += __shfl_down_sync(0xffffffffu, h, offset);
    }
    if (lane == 0) {
      out[j] = h;
    }
  }
}

template <class T>
__device__ bool same_bits(const T* a, const T* b, index_t rows) {
  for (index_t i = 0; i < rows; ++i) {
    if (bits_of(a[i]) != bits_of(b[i])) {
      return false;
    }
  }
  return true;
}

// Equality is transitive, so comparing with every earlier member of the run of equal hashes
// until one matches decides "equal to some lower-index column" exactly; runs of distinct
// columns stop at the first different hash.
template <class T>
__global__ void mark_duplicates_kernel(const T* phi, index_t rows, index_t n,
                                       const std::uint64_t* sorted_hash, const index_t* order,
                                       Mask* flag) {
  for (index_t p = global_thread(); p < n; p += grid_stride()) {
    const index_t j = order[p];
    Mask duplicate = 0;
    for (index_t q = p - 1; q >= 0 && sorted_hash[q] == sorted_hash[p]; --q) {
      if (same_bits(phi + order[q] * rows, phi + j * rows, rows)) {
        duplicate = 1;
        break;
      }
    }
    flag[j] = duplicate;
  }
}

template <class T>
__global__ void gather_columns_kernel(const T* phi, index_t rows, const index_t* cols, index_t m,
                                      double* out) {
  const index_t total = m * rows;
  for (index_t e = global_thread(); e < total; e += grid_stride()) {
    const index_t p = e / rows;
    const index_t i = e - p * rows;
    out[e] = static_cast<double>(phi[cols[p] * rows + i]);
  }
}

}  // namespace

template <class T>
void columns_dot(cudaStream_t s, const T* phi, index_t rows, const index_t* cols,
                 const index_t* count, index_t m, const T* r, DotsAt at, T* out, ListCopy copy) {
  if (copy.count != nullptr && count == nullptr) {
    throw InvalidArgument("columns_dot: a list's copy needs its count on the device");
  }
  if (m <= 0 && copy.count == nullptr) {
    return;
  }
  // At least one warp, for the count of an empty list.
  columns_dot_kernel<<<blocks_for_warps(std::max<index_t>(m, 1)), kBlock, 0, s>>>(
      phi, rows, cols, count, std::max<index_t>(m, 0), r, at, out, copy);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void phi_t_times_tiled(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r, T* out,
                       index_t max_blocks) {
  if (cols <= 0) {
    return;
  }
  if (!tiled_columns::fits(rows, sizeof(T))) {
    throw InvalidArgument("phi_t_times_tiled: a tile of columns of " + std::to_string(rows) +
                          " rows does not fit in shared memory (tiled_columns::fits)");
  }
  if (tiled_columns::parts_for(rows, static_cast<index_t>(sizeof(T))) == 4) {
    launch_tiled<T, 4>(s, phi, rows, cols, r, out, max_blocks);
  } else {
    launch_tiled<T, tiled_columns::kMostParts>(s, phi, rows, cols, r, out, max_blocks);
  }
}

static_assert(kProductChunk == list_product::kLeastChunk, "launch.hpp's default is the logic's");

void require_least_chunk(index_t least_chunk) {
  if (least_chunk < 1) {
    throw InvalidArgument(
        "a product's chunks need at least one place (asked for chunks of at least " +
        std::to_string(least_chunk) + ")");
  }
}

index_t phi_times_partials(index_t bound, index_t rows, index_t least_chunk) {
  require_least_chunk(least_chunk);
  return list_product::chunks(bound, least_chunk) * rows;
}

template <class T>
void phi_times_list(cudaStream_t s, const T* phi, index_t rows, const index_t* index,
                    const index_t* count, index_t bound, const T* value, double* partials, T* out,
                    const T* y, T* residual, index_t least_chunk) {
  require_least_chunk(least_chunk);
  const index_t chunks = list_product::chunks(bound, least_chunk);
  const dim3 grid(static_cast<unsigned int>(chunks),
                  static_cast<unsigned int>((rows + kBlock - 1) / kBlock));
  phi_times_chunks_kernel<<<grid, kBlock, 0, s>>>(
      phi, rows, index, count, list_product::chunk_entries(bound, least_chunk), value, partials);
  CORESET_CUDA_CHECK_LAUNCH();
  phi_times_final_kernel<<<blocks_for_warps(rows), kBlock, 0, s>>>(partials, rows, chunks, out, y,
                                                                   residual);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void column_norms(cudaStream_t s, const T* phi, index_t rows, index_t n, T* out) {
  column_norms_kernel<<<blocks_for_warps(n), kBlock, 0, s>>>(phi, rows, n, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void gather_columns(cudaStream_t s, const T* phi, index_t rows, const index_t* cols, index_t m,
                    double* out) {
  if (m <= 0) {
    return;
  }
  gather_columns_kernel<<<blocks_for(m * rows), kBlock, 0, s>>>(phi, rows, cols, m, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void column_hashes(cudaStream_t s, const T* phi, index_t rows, index_t n, std::uint64_t* out) {
  column_hashes_kernel<<<blocks_for_warps(n), kBlock, 0, s>>>(phi, rows, n, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void mark_duplicates(cudaStream_t s, const T* phi, index_t rows, index_t n,
                     const std::uint64_t* sorted_hash, const index_t* order, Mask* flag) {
  mark_duplicates_kernel<<<blocks_for(n), kBlock, 0, s>>>(phi, rows, n, sorted_hash, order, flag);
  CORESET_CUDA_CHECK_LAUNCH();
}

#define CORESET_INSTANTIATE(T)                                                                     \
  template void columns_dot<T>(cudaStream_t, const T*, index_t, const index_t*, const index_t*,    \
                               index_t, const T*, DotsAt, T*, ListCopy);                           \
  template void phi_times_list<T>(cudaStream_t, const T*, index_t, const index_t*, const index_t*, \
                                  index_t, const T*, double*, T*, const T*, T*, index_t);          \
  template void column_norms<T>(cudaStream_t, const T*, index_t, index_t, T*);                     \
  template void phi_t_times_tiled<T>(cudaStream_t, const T*, index_t, index_t, const T*, T*,       \
                                     index_t);                                                     \
  template void gather_columns<T>(cudaStream_t, const T*, index_t, const index_t*, index_t,        \
                                  double*);                                                        \
  template void column_hashes<T>(cudaStream_t, const T*, index_t, index_t, std::uint64_t*);        \
  template void mark_duplicates<T>(cudaStream_t, const T*, index_t, index_t, const std::uint64_t*, \
                                   const index_t*, Mask*);

CORESET_INSTANTIATE(float)
CORESET_INSTANTIATE(double)
#undef CORESET_INSTANTIATE

}  // namespace coreset::kernels
