// Eigen, with its matrix products made to sum in the same order on every machine.
//
// Eigen splits the inner dimension of a product into blocks sized from the L1, L2 and L3 caches
// it detects on the running CPU. The summation order, and so the last bits of every long product
// (the Laplace fit's X^T D X over n rows, the exact posterior's X^T X, the projection's GEMM),
// then differ between machines whose caches differ, and hard thresholding is sensitive enough to
// land on another coreset: the built-in example took 474 iterations to a relative error of 0.225
// on a CPU with a 32 KiB L1 and 433 to 0.259 on one with 48 KiB, from the same binary. The one
// variable below fixes the sizes Eigen plans with before main() runs, in every program that
// includes this header (every layer that multiplies Eigen matrices does, through models/,
// solvers/nnls.hpp or cpu/cpu_backend.hpp), and keeps Eigen from choosing its blocking by thread
// count. What the CPU results still depend on: README, "Reproducibility".
#pragma once

#include <Eigen/Core>
#include <cstddef>

namespace coreset::support {

/// The cache sizes Eigen's products are blocked for, whatever the CPU: a common server geometry
/// (32 KiB L1 data, 1 MiB L2, 32 MiB L3). Only the blocking changes; speed is within noise.
inline constexpr std::ptrdiff_t kEigenL1Bytes = std::ptrdiff_t{32} << 10;
inline constexpr std::ptrdiff_t kEigenL2Bytes = std::ptrdiff_t{1} << 20;
inline constexpr std::ptrdiff_t kEigenL3Bytes = std::ptrdiff_t{32} << 20;

/// Also keeps Eigen from parallelising a product on its own: it would re-plan the blocking for
/// the number of threads it got. The library parallelises explicitly instead, over fixed blocks
/// summed in a fixed order (models/row_sums.hpp, the projection's column blocks).
inline bool pin_eigen_products() {
  Eigen::setCpuCacheSizes(kEigenL1Bytes, kEigenL2Bytes, kEigenL3Bytes);
  Eigen::setNbThreads(1);
  return true;
}

/// Initialised once per program, before main(), wherever this header is included.
inline const bool eigen_products_pinned = pin_eigen_products();

}  // namespace coreset::support
