// The CUB-based pieces of the GPU backend, kept in one translation unit because CUB templates are
// slow to compile: stream compaction of a mask into an index list, the radix top-k
// (kernels/radix_select_logic.hpp: 8-bit digit histograms with the state on the device, never a
// sort of n), and the (hash, column) sort of the duplicate search.
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/radix_select_logic.hpp"

namespace coreset::kernels {
namespace {

using Counting = thrust::counting_iterator<index_t>;

template <class T>
struct KeyOf {
  const T* v;
  const Mask* exclude;
  bool by_magnitude;
  __device__ kernels::radix::key_t<T> operator()(index_t i) const {
    if (exclude != nullptr && exclude[i]) {
      return 0;
    }
    return kernels::radix::selection_key(v[i], by_magnitude);
  }
};

template <class T>
using State = kernels::radix::SelectState<kernels::radix::key_t<T>>;

template <class T>
__global__ void init_state_kernel(State<T>* state, index_t k) {
  State<T> fresh;
  fresh.remaining = k;
  *state = fresh;
}

// Per-block histograms in shared memory, added to the global one (exact integer counts, so the
// order of the atomic additions does not matter).
template <class T>
__global__ void histogram_kernel(index_t n, KeyOf<T> key_of, const State<T>* state,
                                 unsigned long long* histogram) {
  __shared__ unsigned int local[kernels::radix::kBins];
  for (int b = threadIdx.x; b < kernels::radix::kBins; b += blockDim.x) {
    local[b] = 0;
  }
  __syncthreads();
  const State<T> st = *state;
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    const auto key = key_of(i);
    if (st.counts(key)) {
      atomicAdd(&local[st.digit(key)], 1u);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kernels::radix::kBins; b += blockDim.x) {
    if (local[b] != 0) {
      atomicAdd(&histogram[b], static_cast<unsigned long long>(local[b]));
    }
  }
}

template <class T>
__global__ void advance_kernel(State<T>* state, const unsigned long long* histogram) {
  State<T> st = *state;
  st.advance(histogram);
  *state = st;
}

template <class T>
__global__ void take_above_kernel(index_t n, KeyOf<T> key_of, const State<T>* state, T* out_value,
                                  Mask* out_mask) {
  const State<T> st = *state;
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    const bool take = st.above(key_of(i));
    out_mask[i] = take;
    out_value[i] = take ? key_of.v[i] : T(0);
  }
}

template <class T>
struct IsTie {
  KeyOf<T> key_of;
  const State<T>* state;
  __device__ bool operator()(index_t i) const { return state->tie(key_of(i)); }
};

// The lowest-index ties fill the places left: ties are listed in ascending index order.
template <class T>
__global__ void take_ties_kernel(index_t bound, const index_t* ties, const index_t* tie_count,
                                 const State<T>* state, const T* v, T* out_value, Mask* out_mask) {
  const index_t take = min(*tie_count, state->remaining);
  for (index_t p = global_thread(); p < min(take, bound); p += grid_stride()) {
    const index_t i = ties[p];
    out_mask[i] = 1;
    out_value[i] = v[i];
  }
}

__global__ void iota_kernel(index_t n, index_t* values) {
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    values[i] = i;
  }
}

}  // namespace

void compact(cudaStream_t s, Scratch& scratch, index_t n, const Mask* mask, index_t* out_index,
             index_t* out_count) {
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::Flagged(nullptr, bytes, Counting(0), mask, out_index, out_count, n, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::Flagged(scratch.get(bytes), bytes, Counting(0), mask,
                                              out_index, out_count, n, s));
}

template <class T>
void top_k(cudaStream_t s, Scratch& scratch, index_t n, const T* v, bool by_magnitude,
           const Mask* exclude, index_t k, unsigned long long* histogram,
           unsigned char* state_bytes, index_t* ties, index_t* tie_count, T* out_value,
           Mask* out_mask) {
  static_assert(sizeof(State<T>) <= kTopKStateBytes, "top-k state does not fit its buffer");
  auto* state = reinterpret_cast<State<T>*>(state_bytes);
  const KeyOf<T> key_of{v, exclude, by_magnitude};
  init_state_kernel<T><<<1, 1, 0, s>>>(state, k);
  CORESET_CUDA_CHECK_LAUNCH();
  const unsigned int blocks = blocks_for(n, 4096);
  for (int pass = 0; pass < kernels::radix::pass_count<kernels::radix::key_t<T>>(); ++pass) {
    CORESET_CUDA_TRY(
        cudaMemsetAsync(histogram, 0, kernels::radix::kBins * sizeof(unsigned long long), s));
    histogram_kernel<T><<<blocks, kBlock, 0, s>>>(n, key_of, state, histogram);
    CORESET_CUDA_CHECK_LAUNCH();
    advance_kernel<T><<<1, 1, 0, s>>>(state, histogram);
    CORESET_CUDA_CHECK_LAUNCH();
  }
  take_above_kernel<T><<<blocks_for(n), kBlock, 0, s>>>(n, key_of, state, out_value, out_mask);
  CORESET_CUDA_CHECK_LAUNCH();
  const IsTie<T> is_tie{key_of, state};
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::If(nullptr, bytes, Counting(0), ties, tie_count, n, is_tie, s));
  CORESET_CUDA_TRY(
      cub::DeviceSelect::If(scratch.get(bytes), bytes, Counting(0), ties, tie_count, n, is_tie, s));
  const index_t bound = std::min(k, n);
  take_ties_kernel<T>
      <<<blocks_for(bound), kBlock, 0, s>>>(bound, ties, tie_count, state, v, out_value, out_mask);
  CORESET_CUDA_CHECK_LAUNCH();
}

void sort_pairs(cudaStream_t s, Scratch& scratch, index_t n, const std::uint64_t* keys_in,
                std::uint64_t* keys_out, const index_t* values_in, index_t* values_out) {
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in,
                                                   values_out, n, 0, 64, s));
  CORESET_CUDA_TRY(cub::DeviceRadixSort::SortPairs(scratch.get(bytes), bytes, keys_in, keys_out,
                                                   values_in, values_out, n, 0, 64, s));
}

void iota(cudaStream_t s, index_t n, index_t* values) {
  iota_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, values);
  CORESET_CUDA_CHECK_LAUNCH();
}

template void top_k<float>(cudaStream_t, Scratch&, index_t, const float*, bool, const Mask*,
                           index_t, unsigned long long*, unsigned char*, index_t*, index_t*, float*,
                           Mask*);
template void top_k<double>(cudaStream_t, Scratch&, index_t, const double*, bool, const Mask*,
                            index_t, unsigned long long*, unsigned char*, index_t*, index_t*,
                            double*, Mask*);

}  // namespace coreset::kernels
