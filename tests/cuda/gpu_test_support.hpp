// Shared by the GPU tests: skipping without a device, and moving vectors between the CPU
// backend (the oracle) and the GPU backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "coreset/solver.hpp"
#include "cuda/cuda_backend.hpp"
#include "solvers/sparse_vector.hpp"

/// Skips the test, with the reason, when no GPU is usable (the build machines).
#define CORESET_REQUIRE_GPU()                          \
  do {                                                 \
    std::string why_no_gpu;                            \
    if (!::coreset::gpu_usable(&why_no_gpu)) {         \
      GTEST_SKIP() << "no usable GPU: " << why_no_gpu; \
    }                                                  \
  } while (false)

namespace coreset::test {

template <class T>
solvers::SparseVector<T> to_cpu(const cuda::CudaBackend<T>& gpu, const cuda::DeviceSparse<T>& v) {
  solvers::SparseVector<T> out;
  gpu.download(v, out.index, out.value);
  return out;
}

template <class T>
void to_gpu(const cuda::CudaBackend<T>& gpu, const solvers::SparseVector<T>& v,
            cuda::DeviceSparse<T>& out) {
  gpu.from_host(v.index, std::vector<double>(v.value.begin(), v.value.end()), out);
}

/// m distinct ascending indices below n with non-zero values (positive only when asked).
template <class T>
solvers::SparseVector<T> random_sparse(index_t n, index_t m, std::uint64_t seed, bool positive) {
  std::mt19937_64 generator(seed);
  std::vector<index_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), index_t{0});
  std::shuffle(all.begin(), all.end(), generator);
  all.resize(static_cast<std::size_t>(std::min(m, n)));
  std::sort(all.begin(), all.end());
  std::uniform_real_distribution<double> uniform(0.1, 2.0);
  std::bernoulli_distribution sign(0.5);
  solvers::SparseVector<T> out;
  for (const index_t i : all) {
    const double magnitude = uniform(generator);
    out.push_back(i, static_cast<T>(positive || sign(generator) ? magnitude : -magnitude));
  }
  return out;
}

/// Tolerance of a GPU result against the CPU's for sums of `terms` products: both accumulate
/// differently (the GPU in double, the CPU partly in T), so allow a few ulps of T per term.
template <class T>
double sum_tolerance(index_t terms, double magnitude) {
  return 8.0 * std::numeric_limits<T>::epsilon() * std::sqrt(static_cast<double>(terms) + 1.0) *
         (magnitude + 1e-30);
}

}  // namespace coreset::test
