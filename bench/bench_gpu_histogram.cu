// bench_gpu_histogram: one histogram pass of the radix top-k (kernels/select.cu) by each way of
// adding to a shared-memory bin (kernels/bin_add.cuh) and two grid sizes, against one read of the
// same entries, on the vectors a solver selects from.
//
// Why: on an H200 at 816332d the top-k's full passes over n = 1e7 floats took 257 us, four
// histogram passes and two compactions that read 40 MB each, 57 us at the copy bandwidth that
// run measured (4.23 TB/s).
// Each pass's keys mostly share their first digits (the exponent's). The pass then added with a
// labelled partition of each warp's lanes (__match_any_sync) on 4096 blocks; this times that,
// plain shared atomics and a uniform-digit vote with atomics, on 4096 blocks and on the
// production grid (kernels::top_k_pass_blocks). Its first run, on an H200 at 4a3fc22, found
// plain atomics on eight blocks an SM fastest, which the production pass now takes; its second,
// at d8c69d2, found the one-block selection 4-7x slower with them (a block queued on one
// address), which since adds by partition again. Every variant's
// histogram must equal the host's, or the program fails (exit 1). Then the production selection
// (kernels::top_k, no hint) whole: in one block at 256 to 16384 keys, and by the full passes over
// 1e6 and 1e7.
//
// The repeated launches read 1e6 and 1e7 floats (4 and 40 MB) from L2 mostly (50 MB on an H100
// or H200); 1e8 (400 MB) from memory.
//
// Usage: bench_gpu_histogram [--sizes 1e6,1e7,1e8] [--repeats 20]
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_gpu_timing.hpp"
#include "kernels/bin_add.cuh"
#include "kernels/check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/radix_select_logic.hpp"
#include "kernels/scratch.hpp"

namespace {

using coreset::index_t;
namespace radix = coreset::kernels::radix;
namespace bins = coreset::kernels::bins;
using coreset::kernels::DeviceBuffer;

constexpr int kBins = radix::kBins;

enum class Strategy { partition, each, uniform_or_each };

const char* name_of(Strategy strategy) {
  switch (strategy) {
    case Strategy::partition:
      return "partition";
    case Strategy::each:
      return "each lane (production)";
    case Strategy::uniform_or_each:
      return "uniform vote, else each";
  }
  return "?";
}

// A pass's keys and digits are the production selection's: radix::SelectState after the passes
// before it (fresh for the first).
using State = radix::SelectState<std::uint32_t>;

template <Strategy kStrategy>
__device__ void add(unsigned int* local, int digit) {
  if constexpr (kStrategy == Strategy::partition) {
    bins::add_by_partition(local, digit);
  } else if constexpr (kStrategy == Strategy::each) {
    bins::add_each(local, digit);
  } else {
    bins::add_uniform_or_each(local, digit);
  }
}

template <Strategy kStrategy>
__global__ void histogram_kernel(index_t n, const float* v, State state,
                                 unsigned long long* histogram) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    local[b] = 0;
  }
  __syncthreads();
  for (index_t i = coreset::kernels::global_thread(); i < n; i += coreset::kernels::grid_stride()) {
    const std::uint32_t key = radix::selection_key(v[i], true);
    if (state.counts(key)) {
      add<kStrategy>(local, state.digit(key));
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) {
      atomicAdd(&histogram[b], static_cast<unsigned long long>(local[b]));
    }
  }
}

// The floor: the same entries read once by the same grid, their keys summed (so that the read
// is not optimised away).
__global__ void read_kernel(index_t n, const float* v, unsigned long long* sink) {
  unsigned long long sum = 0;
  for (index_t i = coreset::kernels::global_thread(); i < n; i += coreset::kernels::grid_stride()) {
    sum += radix::selection_key(v[i], true);
  }
  if (sum == 1) {  // never, in practice; keeps the loads
    atomicAdd(sink, sum);
  }
}

std::vector<unsigned long long> host_histogram(const std::vector<float>& v, const State& state) {
  std::vector<unsigned long long> out(kBins, 0);
  for (const float x : v) {
    const std::uint32_t key = radix::selection_key(x, true);
    if (state.counts(key)) {
      ++out[static_cast<std::size_t>(state.digit(key))];
    }
  }
  return out;
}

// The vectors: a solver's gradient late in a solve (Gaussian entries of one scale), uniform
// entries on (0, 1), and every entry equal (every key in one bin at every pass: the worst case).
std::vector<float> make_vector(const std::string& kind, index_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::mt19937_64 generator(5);
  if (kind == "gaussian") {
    std::normal_distribution<float> normal(0.0f, 1e-3f);
    for (float& x : v) {
      x = normal(generator);
    }
  } else if (kind == "uniform") {
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& x : v) {
      x = uniform(generator);
    }
  } else {
    std::fill(v.begin(), v.end(), 0.5f);
  }
  return v;
}

// The production selection, kernels::top_k without a hint: the one-block selection when n is at
// most the capacity, else the full passes (four histogram passes, two compactions, the merge).
// Microseconds per selection, the median of `repeats` timed alone, after one.
double top_k_microseconds(const float* v, index_t n, index_t k, index_t capacity, int repeats) {
  coreset::kernels::Scratch scratch;
  DeviceBuffer<unsigned long long> histogram(kBins);
  DeviceBuffer<unsigned int> blocks_done(1);
  DeviceBuffer<unsigned char> state(coreset::kernels::kTopKStateBytes);
  DeviceBuffer<index_t> above(k);
  DeviceBuffer<index_t> ties(n);
  DeviceBuffer<index_t> counts(3);
  DeviceBuffer<index_t> positions(k);
  DeviceBuffer<index_t> count(1);
  CORESET_CUDA_TRY(cudaMemset(histogram.data(), 0, kBins * sizeof(unsigned long long)));
  CORESET_CUDA_TRY(cudaMemset(blocks_done.data(), 0, sizeof(unsigned int)));
  coreset::kernels::TopKWork work;
  work.histogram = histogram.data();
  work.blocks_done = blocks_done.data();
  work.state = state.data();
  work.above = above.data();
  work.ties = ties.data();
  work.counts = counts.data();
  work.capacity = capacity;
  return coreset::bench::event_us(repeats, [&] {
    coreset::kernels::top_k<float>(nullptr, scratch, n, v, true, nullptr, k, work, positions.data(),
                                   count.data());
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_gpu_histogram: the top-k's histogram pass by each way of adding to a bin"};
  std::vector<double> sizes{1e6, 1e7, 1e8};
  int repeats = 20;
  app.add_option("--sizes", sizes, "n values")->delimiter(',');
  app.add_option("--repeats", repeats, "timed launches (median)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  int device = 0;
  cudaDeviceProp properties{};
  CORESET_CUDA_TRY(cudaGetDevice(&device));
  CORESET_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
  std::printf(
      "bench_gpu_histogram: %s, %d SMs; us per pass (the median of %d launches timed alone, "
      "after one), and its ratio to one read of the entries by the same grid\n",
      properties.name, properties.multiProcessorCount, repeats);
  std::printf("%10s %-9s %4s %-22s %-26s %10s %8s\n", "n", "vector", "pass", "grid", "add", "us",
              "vs read");
  bool all_equal = true;
  DeviceBuffer<unsigned long long> histogram(kBins);
  {
    // The clocks up before the first timing: reads of 64 MB for a few milliseconds.
    const index_t warm_n = index_t{1} << 24;
    DeviceBuffer<float> warm(warm_n);
    CORESET_CUDA_TRY(cudaMemset(warm.data(), 0, static_cast<std::size_t>(warm_n) * 4));
    coreset::bench::event_us(200, [&] {
      read_kernel<<<coreset::kernels::blocks_for(warm_n, 4096), coreset::kernels::kBlock>>>(
          warm_n, warm.data(), histogram.data());
      CORESET_CUDA_CHECK_LAUNCH();
    });
  }
  for (const double size : sizes) {
    const auto n = static_cast<index_t>(size);
    for (const std::string kind : {"gaussian", "uniform", "equal"}) {
      const std::vector<float> host = make_vector(kind, n);
      DeviceBuffer<float> v(n);
      CORESET_CUDA_TRY(cudaMemcpy(v.data(), host.data(), static_cast<std::size_t>(n) * 4,
                                  cudaMemcpyHostToDevice));
      // Pass 1 over every key; pass 2 over the keys of pass 1's fullest bin.
      const State first_pass = State::fresh(1);
      const std::vector<unsigned long long> first = host_histogram(host, first_pass);
      State second_pass = first_pass;
      second_pass.advance(radix::DigitChoice{
          static_cast<int>(std::max_element(first.begin(), first.end()) - first.begin()), 1});
      struct Grid {
        const char* name;
        unsigned int blocks;
      };
      const Grid grids[] = {{"4096 blocks", coreset::kernels::blocks_for(n, 4096)},
                            {"production", coreset::kernels::top_k_pass_blocks(n)}};
      for (const int pass : {1, 2}) {
        const State& state = pass == 1 ? first_pass : second_pass;
        const std::vector<unsigned long long> expected =
            pass == 1 ? first : host_histogram(host, state);
        for (const Grid& grid : grids) {
          const double read_us = coreset::bench::event_us(repeats, [&] {
            read_kernel<<<grid.blocks, coreset::kernels::kBlock>>>(n, v.data(), histogram.data());
            CORESET_CUDA_CHECK_LAUNCH();
          });
          std::printf("%10lld %-9s %4d %-22s %-26s %10.2f %8s\n", static_cast<long long>(n),
                      kind.c_str(), pass, grid.name, "read only", read_us, "1.00");
          const auto run = [&](Strategy strategy) {
            const auto launch = [&] {
              switch (strategy) {
                case Strategy::partition:
                  histogram_kernel<Strategy::partition><<<grid.blocks, coreset::kernels::kBlock>>>(
                      n, v.data(), state, histogram.data());
                  break;
                case Strategy::each:
                  histogram_kernel<Strategy::each><<<grid.blocks, coreset::kernels::kBlock>>>(
                      n, v.data(), state, histogram.data());
                  break;
                case Strategy::uniform_or_each:
                  histogram_kernel<Strategy::uniform_or_each>
                      <<<grid.blocks, coreset::kernels::kBlock>>>(n, v.data(), state,
                                                                  histogram.data());
                  break;
              }
              CORESET_CUDA_CHECK_LAUNCH();
            };
            // One launch on a zeroed histogram for the check, then the timed ones.
            CORESET_CUDA_TRY(cudaMemset(histogram.data(), 0, kBins * sizeof(unsigned long long)));
            launch();
            std::vector<unsigned long long> got(kBins);
            CORESET_CUDA_TRY(cudaMemcpy(got.data(), histogram.data(),
                                        kBins * sizeof(unsigned long long),
                                        cudaMemcpyDeviceToHost));
            const bool equal = got == expected;
            all_equal = all_equal && equal;
            const double us = coreset::bench::event_us(repeats, launch);
            std::printf("%10lld %-9s %4d %-22s %-26s %10.2f %8.2f%s\n", static_cast<long long>(n),
                        kind.c_str(), pass, grid.name, name_of(strategy), us, us / read_us,
                        equal ? "" : "  HISTOGRAM DIFFERS FROM THE HOST'S");
          };
          for (const Strategy strategy :
               {Strategy::partition, Strategy::each, Strategy::uniform_or_each}) {
            run(strategy);
          }
        }
      }
    }
  }
  // Whole selections: the one block at the sizes of its tiles, and the full passes over n, to set
  // the passes above beside what a selection costs in all.
  const index_t capacity = coreset::kernels::prepare_top_k<float>();
  std::printf(
      "\nkernels::top_k, no hint, Gaussian entries (one-block capacity %lld keys): us per "
      "selection\n%10s %8s %-22s %10s\n",
      static_cast<long long>(capacity), "n", "k", "path", "us");
  for (const index_t n : {index_t{256}, index_t{1024}, index_t{4096}, index_t{16384},
                          index_t{1000000}, index_t{10000000}}) {
    const std::vector<float> host = make_vector("gaussian", n);
    DeviceBuffer<float> v(n);
    CORESET_CUDA_TRY(
        cudaMemcpy(v.data(), host.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice));
    for (const index_t k : {n / 10, n / 2, index_t{1000}}) {
      if (k < 1 || k >= n || (n > capacity && k != 1000) || (n <= capacity && k == 1000)) {
        continue;  // over n: k = 1000 alone; within one block: a tenth and a half of the keys
      }
      const double us = top_k_microseconds(v.data(), n, k, capacity, repeats);
      std::printf("%10lld %8lld %-22s %10.2f\n", static_cast<long long>(n),
                  static_cast<long long>(k), n <= capacity ? "one block" : "full passes", us);
    }
  }
  std::printf("histograms: %s\n", all_equal ? "every one the host's" : "SOME DIFFER");
  return all_equal ? 0 : 1;
}
