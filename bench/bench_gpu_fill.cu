// Device-side fills for bench_gpu: Phi of 1e8 x 100 floats (40 GB) is generated where it is
// used, in milliseconds, instead of on the host and copied. And an empty kernel, for the cost of
// a graph node as such (bench_gpu_primitives.cpp).
#include <cuda_runtime.h>

#include <cstdint>

#include "bench_gpu_fill.hpp"
#include "kernels/check.hpp"
#include "support/splitmix.hpp"

namespace coreset::bench {
namespace {

// Entries uniform on [-sqrt(3/S), sqrt(3/S)): variance 1/S, like the tests' Gaussian Phi.
template <class T>
__global__ void fill_kernel(T* out, std::int64_t count, std::uint64_t seed, double scale) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double u =
        static_cast<double>(support::splitmix64(seed ^ static_cast<std::uint64_t>(i)) >> 11) *
        (1.0 / 9007199254740992.0);
    out[i] = static_cast<T>((2.0 * u - 1.0) * scale);
  }
}

__global__ void empty_kernel() {}

}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void fill_uniform(T* device, std::int64_t count, std::uint64_t seed, double scale) {
  fill_kernel<<<4096, 256>>>(device, count, seed, scale);
  CORESET_CUDA_CHECK_LAUNCH();
  CORESET_CUDA_TRY(cudaDeviceSynchronize());
}

template void fill_uniform<float>(float*, std::int64_t, std::uint64_t, double);
template void fill_uniform<double>(double*, std::int64_t, std::uint64_t, double);

}  // namespace coreset::bench
