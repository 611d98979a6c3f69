#include "cpu/simd/log_sigmoid.hpp"

#include "models/link.hpp"

namespace coreset::cpu::simd {

namespace detail {

double log_sigmoid_sum_baseline(const double* a, double y, double* out, index_t count) {
  // Four partial sums in the same lane pattern as nothing else: the scalar path only has to be
  // deterministic, not bitwise equal to the vector ones (they differ by FMA rounding anyway).
  double sum[4] = {0.0, 0.0, 0.0, 0.0};
  for (index_t j = 0; j < count; ++j) {
    out[j] = models::logistic_value(a[j], y);
    sum[j % 4] += out[j];
  }
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

}  // namespace detail

double log_sigmoid_sum(Isa isa, const double* a, double y, double* out, index_t count) {
  switch (isa) {
    case Isa::avx512:
      return detail::log_sigmoid_sum_avx512(a, y, out, count);
    case Isa::avx2:
      return detail::log_sigmoid_sum_avx2(a, y, out, count);
    case Isa::baseline:
    default:
      return detail::log_sigmoid_sum_baseline(a, y, out, count);
  }
}

double log_sigmoid_sum(const double* a, double y, double* out, index_t count) {
  return log_sigmoid_sum(active_isa(), a, y, out, count);
}

}  // namespace coreset::cpu::simd
