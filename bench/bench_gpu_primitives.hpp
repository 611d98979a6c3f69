// bench_gpu --primitives: each primitive of an A-IHT II iteration timed alone inside a CUDA
// graph, as the tracked loop runs it (bench_gpu_primitives.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "coreset/types.hpp"
#include "cuda/cuda_backend.hpp"

namespace coreset::bench {

/// Microseconds and graph nodes per call of each primitive of an A-IHT II iteration at budget k
/// on `backend`'s Phi (y = Phi 1), and of an empty kernel node: `calls` calls recorded as one
/// graph, replayed `replays` times between two events; medians of `repeats`.
nlohmann::json primitive_costs(cuda::CudaBackend<float>& backend,
                               const kernels::DeviceBuffer<float>& y, index_t k, int repeats);

}  // namespace coreset::bench
