// Timing device work with CUDA events, for the GPU benchmarks (bench_gpu.cpp,
// bench_gpu_primitives.cpp, bench_gpu_histogram.cu, bench_gpu_link.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "bench_machine.hpp"
#include "kernels/check.hpp"

namespace coreset::bench {

/// Two CUDA events, destroyed however the timing ends.
class EventPair {
 public:
  EventPair() {
    CORESET_CUDA_TRY(cudaEventCreate(&start));
    CORESET_CUDA_TRY(cudaEventCreate(&stop));
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

/// Milliseconds of `work` on the stream, by CUDA events: median of `repeats` after a warm-up.
template <class Work>
double event_ms(cudaStream_t stream, int repeats, Work&& work) {
  const EventPair events;
  work();  // warm-up
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    CORESET_CUDA_TRY(cudaEventRecord(events.start, stream));
    work();
    CORESET_CUDA_TRY(cudaEventRecord(events.stop, stream));
    CORESET_CUDA_TRY(cudaEventSynchronize(events.stop));
    float ms = 0.0f;
    CORESET_CUDA_TRY(cudaEventElapsedTime(&ms, events.start, events.stop));
    times.push_back(ms);
  }
  return median(times);
}

/// The same in microseconds, on the default stream (bench_gpu_histogram.cu, bench_gpu_link.cu).
template <class Work>
double event_us(int repeats, Work&& work) {
  return 1e3 * event_ms(nullptr, repeats, work);
}

}  // namespace coreset::bench
