// The centring pass with AVX2 (4 doubles per vector). This file alone is compiled with -mavx2 and
// without FMA (src/CMakeLists.txt), so the compiler cannot fuse the subtraction and the scaling
// into one rounding; it is only called when supported() says so.
#include "cpu/simd/columns.hpp"

namespace coreset::cpu::simd::detail {
namespace {

typedef double Double4 __attribute__((vector_size(32)));
typedef float Float4 __attribute__((vector_size(16)));

constexpr index_t kLanes = 4;
constexpr index_t kColumnsAtOnce = 8;  // two add units of latency 4: eight chains in flight

inline Double4 load(const double* from) {
  Double4 v;
  __builtin_memcpy(&v, from, sizeof v);
  return v;
}

inline void store(double* to, Double4 v) {
  __builtin_memcpy(to, &v, sizeof v);
}

inline void store(float* to, Double4 v) {
  const Float4 narrow = __builtin_convertvector(v, Float4);  // rounds to nearest, as a cast does
  __builtin_memcpy(to, &narrow, sizeof narrow);
}

/// Finishes cpu::column_sum's order from the four lanes of partial sums over the first `full`
/// values: the remaining values go to partial (index % 4), then (p0 + p1) + (p2 + p3).
double finish(Double4 partial, const double* column, index_t full, index_t rows) {
  double p[kLanes] = {partial[0], partial[1], partial[2], partial[3]};
  for (index_t j = full; j < rows; ++j) {
    p[j % kLanes] += column[j];
  }
  return (p[0] + p[1]) + (p[2] + p[3]);
}

}  // namespace

void column_sums_avx2(const double* block, index_t rows, index_t width, double* sums) {
  const index_t full = rows - rows % kLanes;
  index_t i = 0;
  for (; i + kColumnsAtOnce <= width; i += kColumnsAtOnce) {
    const double* first = block + i * rows;
    Double4 partial[kColumnsAtOnce] = {};
    for (index_t j = 0; j < full; j += kLanes) {
#pragma GCC unroll 8
      for (index_t c = 0; c < kColumnsAtOnce; ++c) {
        partial[c] += load(first + c * rows + j);
      }
    }
    for (index_t c = 0; c < kColumnsAtOnce; ++c) {
      sums[i + c] = finish(partial[c], first + c * rows, full, rows);
    }
  }
  for (; i < width; ++i) {
    const double* column = block + i * rows;
    Double4 partial = {};
    for (index_t j = 0; j < full; j += kLanes) {
      partial += load(column + j);
    }
    sums[i] = finish(partial, column, full, rows);
  }
}

template <class T>
void subtract_and_scale_avx2(const double* block, index_t rows, index_t width, const double* means,
                             double scale, T* out) {
  const Double4 factor = Double4{} + scale;
  for (index_t i = 0; i < width; ++i) {
    const double* column = block + i * rows;
    T* to = out + i * rows;
    const Double4 mean = Double4{} + means[i];
    index_t j = 0;
    for (; j + kLanes <= rows; j += kLanes) {
      store(to + j, (load(column + j) - mean) * factor);  // centred(), lane by lane
    }
    for (; j < rows; ++j) {
      to[j] = static_cast<T>(centred(column[j], means[i], scale));
    }
  }
}

template void subtract_and_scale_avx2<double>(const double*, index_t, index_t, const double*,
                                              double, double*);
template void subtract_and_scale_avx2<float>(const double*, index_t, index_t, const double*, double,
                                             float*);

}  // namespace coreset::cpu::simd::detail
