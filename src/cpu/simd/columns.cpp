#include "cpu/simd/columns.hpp"

#include "cpu/projection.hpp"

namespace coreset::cpu::simd {

namespace detail {

void column_sums_baseline(const double* block, index_t rows, index_t width, double* sums) {
  for (index_t i = 0; i < width; ++i) {
    sums[i] = cpu::column_sum(block + i * rows, rows);
  }
}

template <class T>
void subtract_and_scale_baseline(const double* block, index_t rows, index_t width,
                                 const double* means, double scale, T* out) {
  for (index_t i = 0; i < width; ++i) {
    for (index_t j = 0; j < rows; ++j) {
      out[i * rows + j] = static_cast<T>(centred(block[i * rows + j], means[i], scale));
    }
  }
}

template void subtract_and_scale_baseline<double>(const double*, index_t, index_t, const double*,
                                                  double, double*);
template void subtract_and_scale_baseline<float>(const double*, index_t, index_t, const double*,
                                                 double, float*);

}  // namespace detail

namespace {

bool vectorised(Isa isa) {
  return isa == Isa::avx2 || isa == Isa::avx512;
}

}  // namespace

void column_sums(Isa isa, const double* block, index_t rows, index_t width, double* sums) {
  if (vectorised(isa)) {
    detail::column_sums_avx2(block, rows, width, sums);
  } else {
    detail::column_sums_baseline(block, rows, width, sums);
  }
}

template <class T>
void subtract_and_scale(Isa isa, const double* block, index_t rows, index_t width,
                        const double* means, double scale, T* out) {
  if (vectorised(isa)) {
    detail::subtract_and_scale_avx2(block, rows, width, means, scale, out);
  } else {
    detail::subtract_and_scale_baseline(block, rows, width, means, scale, out);
  }
}

void column_sums(const double* block, index_t rows, index_t width, double* sums) {
  column_sums(active_isa(), block, rows, width, sums);
}

void column_means(const double* block, index_t rows, index_t width, double* means) {
  column_sums(block, rows, width, means);
  for (index_t i = 0; i < width; ++i) {
    means[i] /= static_cast<double>(rows);
  }
}

template <class T>
void subtract_and_scale(const double* block, index_t rows, index_t width, const double* means,
                        double scale, T* out) {
  subtract_and_scale(active_isa(), block, rows, width, means, scale, out);
}

template void subtract_and_scale<double>(Isa, const double*, index_t, index_t, const double*,
                                         double, double*);
template void subtract_and_scale<float>(Isa, const double*, index_t, index_t, const double*, double,
                                        float*);
template void subtract_and_scale<double>(const double*, index_t, index_t, const double*, double,
                                         double*);
template void subtract_and_scale<float>(const double*, index_t, index_t, const double*, double,
                                        float*);

}  // namespace coreset::cpu::simd
