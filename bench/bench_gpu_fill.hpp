#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace coreset::bench {

/// count pseudo-random values in [-scale, scale) into device memory; synchronises.
template <class T>
void fill_uniform(T* device, std::int64_t count, std::uint64_t seed, double scale);

/// One empty kernel (one block of 32 threads) on `stream`: what a graph node costs as such.
void launch_empty_kernel(cudaStream_t stream);

}  // namespace coreset::bench
