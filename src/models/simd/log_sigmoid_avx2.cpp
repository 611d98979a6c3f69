// log_sigmoid for AVX2 + FMA: eight 4-lane vectors per step. This file alone is compiled with
// the instruction set's flags (src/CMakeLists.txt) and is only called when supported() says so.
#include "models/simd/log_sigmoid.hpp"
#include "models/simd/log_sigmoid_kernel.hpp"

namespace coreset::models::simd::detail {

void log_sigmoid_avx2(const double* m, double* out, index_t count) {
  typedef double Vector __attribute__((vector_size(32)));
  typedef long long IntVector __attribute__((vector_size(32)));  // NOLINT(runtime/int)
  log_sigmoid_impl<Vector, IntVector, 8>(m, out, count);
}

}  // namespace coreset::models::simd::detail
