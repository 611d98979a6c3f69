#include "cpu/simd/log_sigmoid.hpp"

#include "models/link.hpp"

namespace coreset::cpu::simd {

namespace detail {

void log_sigmoid_baseline(const double* a, double y, double* out, index_t count) {
  for (index_t j = 0; j < count; ++j) {
    out[j] = models::logistic_value(a[j], y);
  }
}

}  // namespace detail

void log_sigmoid(Isa isa, const double* a, double y, double* out, index_t count) {
  switch (isa) {
    case Isa::avx512:
      detail::log_sigmoid_avx512(a, y, out, count);
      return;
    case Isa::avx2:
      detail::log_sigmoid_avx2(a, y, out, count);
      return;
    case Isa::baseline:
    default:
      detail::log_sigmoid_baseline(a, y, out, count);
      return;
  }
}

void log_sigmoid(const double* a, double y, double* out, index_t count) {
  log_sigmoid(active_isa(), a, y, out, count);
}

}  // namespace coreset::cpu::simd
