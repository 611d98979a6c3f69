// bench_gpu_link: the GPU projection's fused link-and-centring pass (kernels/projection.cu) with
// each column's link values held in registers, stored over z and read back, or computed again
// from z, on one production-sized block of the GEMM's output, and the outputs compared bit for
// bit.
//
// Why: on an H200 at 816332d the N = 1e7, S = 500 projection spent 0.058 s in these passes (1193
// blocks) where writing Phi takes about 0.005 s. The stored way moves 28 bytes an entry (z read,
// written, read again; Phi written), the held one 12, with 88 registers a thread against 54; the
// recomputed one 20 (z read twice), with the link's arithmetic twice.
//
// Usage: bench_gpu_link [--repeats 20]   (exit 1 if the ways' outputs differ)
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_gpu_timing.hpp"
#include "kernels/check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/projection_launch.hpp"

namespace {

using coreset::index_t;
using coreset::kernels::DeviceBuffer;
using coreset::kernels::LinkValues;

// The projection's block: as many datapoints as make z (S x width doubles) 32 MiB.
constexpr index_t kBlockBytes = index_t{32} << 20;

constexpr LinkValues kWays[] = {LinkValues::held, LinkValues::stored, LinkValues::recomputed};

// The way's name, marked where LinkValues::automatic (the projection's) takes it at S = `rows`.
std::string label(LinkValues values, index_t rows) {
  const bool automatic_holds = coreset::kernels::holds_link_values(LinkValues::automatic, rows);
  const bool taken = values == (automatic_holds ? LinkValues::held : LinkValues::stored);
  const char* name = values == LinkValues::held     ? "held"
                     : values == LinkValues::stored ? "stored"
                                                    : "recomputed";
  return std::string(name) + (taken ? " (production)" : "");
}

// Bytes a way moves an entry: z read (and for stored written and read again, for recomputed
// read again), Phi written in float.
double bytes_per_entry(LinkValues values) {
  return values == LinkValues::stored ? 28.0 : values == LinkValues::recomputed ? 20.0 : 12.0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_gpu_link: the projection's link pass, its values held, stored or recomputed"};
  int repeats = 20;
  app.add_option("--repeats", repeats, "timed launches (median)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  cudaDeviceProp properties{};
  int device = 0;
  CORESET_CUDA_TRY(cudaGetDevice(&device));
  CORESET_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
  std::printf(
      "bench_gpu_link: %s; one block of the projection (z of 32 MiB), logistic link, float Phi; "
      "us per block (the median of %d timed alone, after one) and that times the blocks of "
      "N = 1e7\n",
      properties.name, repeats);
  std::printf("%6s %8s %-20s %10s %12s %14s\n", "S", "width", "link values", "us", "GB/s moved",
              "N = 1e7 (s)");
  bool all_equal = true;
  for (const index_t s : {index_t{100}, index_t{250}, index_t{500}}) {
    const index_t width = kBlockBytes / (s * 8);
    const index_t entries = s * width;
    std::vector<double> z_host(static_cast<std::size_t>(entries));
    std::vector<double> response_host(static_cast<std::size_t>(width));
    std::mt19937_64 generator(3);
    std::normal_distribution<double> normal(0.0, 2.0);
    for (double& x : z_host) {
      x = normal(generator);
    }
    for (double& y : response_host) {
      y = normal(generator) > 0.0 ? 1.0 : -1.0;
    }
    DeviceBuffer<double> z_fresh(entries);
    DeviceBuffer<double> z(entries);
    DeviceBuffer<double> response(width);
    DeviceBuffer<float> phi_by_way[3] = {DeviceBuffer<float>(entries), DeviceBuffer<float>(entries),
                                         DeviceBuffer<float>(entries)};
    DeviceBuffer<unsigned long long> first_bad(1);
    CORESET_CUDA_TRY(cudaMemcpy(z_fresh.data(), z_host.data(), entries * sizeof(double),
                                cudaMemcpyHostToDevice));
    CORESET_CUDA_TRY(cudaMemcpy(response.data(), response_host.data(), width * sizeof(double),
                                cudaMemcpyHostToDevice));
    const unsigned long long none = ULLONG_MAX;
    CORESET_CUDA_TRY(cudaMemcpy(first_bad.data(), &none, sizeof none, cudaMemcpyHostToDevice));
    const auto run = [&](LinkValues values, float* phi) {
      coreset::kernels::link_center<float>(nullptr, z.data(), s, 0, width, response.data(), nullptr,
                                           coreset::models::Link::logistic, 1.0, phi,
                                           first_bad.data(), values);
    };
    // The check: each way once on a fresh copy of z (the stored way overwrites it).
    std::vector<float> outputs[3];
    for (int way = 0; way < 3; ++way) {
      CORESET_CUDA_TRY(
          cudaMemcpy(z.data(), z_fresh.data(), entries * sizeof(double), cudaMemcpyDeviceToDevice));
      run(kWays[way], phi_by_way[way].data());
      outputs[way].resize(static_cast<std::size_t>(entries));
      CORESET_CUDA_TRY(cudaMemcpy(outputs[way].data(), phi_by_way[way].data(),
                                  entries * sizeof(float), cudaMemcpyDeviceToHost));
    }
    unsigned long long bad = 0;
    CORESET_CUDA_TRY(cudaMemcpy(&bad, first_bad.data(), sizeof bad, cudaMemcpyDeviceToHost));
    if (bad != none) {
      std::fprintf(stderr, "bench_gpu_link: a non-finite link value at flat index %llu\n", bad);
      return 1;
    }
    const std::size_t output_bytes = outputs[0].size() * sizeof(float);
    const bool equal = std::memcmp(outputs[0].data(), outputs[1].data(), output_bytes) == 0 &&
                       std::memcmp(outputs[2].data(), outputs[1].data(), output_bytes) == 0;
    all_equal = all_equal && equal;
    // The timings, each way from a fresh z (repeats of the stored way take the link of its last
    // output: the same work).
    for (const LinkValues values : kWays) {
      CORESET_CUDA_TRY(
          cudaMemcpy(z.data(), z_fresh.data(), entries * sizeof(double), cudaMemcpyDeviceToDevice));
      const double us =
          coreset::bench::event_us(repeats, [&] { run(values, phi_by_way[0].data()); });
      const double bytes = static_cast<double>(entries) * bytes_per_entry(values);
      std::printf("%6lld %8lld %-20s %10.1f %12.0f %14.4f%s\n", static_cast<long long>(s),
                  static_cast<long long>(width), label(values, s).c_str(), us, bytes / (us * 1e3),
                  us * 1e-6 * (1e7 / static_cast<double>(width)), equal ? "" : "  OUTPUTS DIFFER");
    }
  }
  std::printf("outputs: %s\n", all_equal ? "the three ways agree bit for bit" : "SOME DIFFER");
  return all_equal ? 0 : 1;
}
