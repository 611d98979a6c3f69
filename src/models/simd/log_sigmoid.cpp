#include "models/simd/log_sigmoid.hpp"

#include "models/link.hpp"

namespace coreset::models::simd {

namespace detail {

void log_sigmoid_baseline(const double* m, double* out, index_t count) {
  for (index_t j = 0; j < count; ++j) {
    out[j] = models::logistic_value(m[j], 1.0);
  }
}

}  // namespace detail

void log_sigmoid(Isa isa, const double* m, double* out, index_t count) {
  switch (isa) {
    case Isa::avx512:
      detail::log_sigmoid_avx512(m, out, count);
      return;
    case Isa::avx2:
      detail::log_sigmoid_avx2(m, out, count);
      return;
    case Isa::baseline:
    default:
      detail::log_sigmoid_baseline(m, out, count);
      return;
  }
}

void log_sigmoid(const double* m, double* out, index_t count) {
  log_sigmoid(active_isa(), m, out, count);
}

}  // namespace coreset::models::simd
