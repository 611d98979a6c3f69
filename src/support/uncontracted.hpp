// Double arithmetic that rounds after every operation, on the host and on the device alike.
//
// The CPU backend is ISO C++ without fused multiply-adds, so a + b * c rounds twice. nvcc
// contracts such expressions into one FMA unless told otherwise, which would round once, so the
// device spells each operation as its round-to-nearest intrinsic. The sparse steps
// (solvers/sparse_steps.hpp) use these, so that a selection downstream sees the same numbers on
// every backend.
#pragma once

#include "support/host_device.hpp"

namespace coreset::support {

CORESET_HOST_DEVICE inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

CORESET_HOST_DEVICE inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

CORESET_HOST_DEVICE inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

}  // namespace coreset::support
