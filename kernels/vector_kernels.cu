// Elementwise kernels on device vectors, the deterministic reductions and the scalar kernels of
// the GPU backend (cuda/cuda_backend.hpp). Sparse vectors are a dense value array plus a mask;
// every merge is one pass over n with the CPU backend's rounding (cpu/cpu_backend.hpp).
#include <cstdint>

#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "solvers/line_search.hpp"

namespace coreset::kernels {
namespace {

// One grid-stride pass applying op(i) for i < m.
template <class Op>
__global__ void for_each_kernel(index_t m, Op op) {
  for (index_t i = global_thread(); i < m; i += grid_stride()) {
    op(i);
  }
}

template <class Op>
void for_each(cudaStream_t s, index_t m, Op op) {
  if (m <= 0) {
    return;
  }
  for_each_kernel<<<blocks_for(m), kBlock, 0, s>>>(m, op);
  CORESET_CUDA_CHECK_LAUNCH();
}

// Stage 1: per-block sums of term(i) over i < limit (limit = *count when count is set, capped
// at m); stage 2: one block adds the partials in block order. The block count depends only on m.
template <class Term>
__global__ void reduce_partials_kernel(index_t m, const index_t* count, Term term,
                                       double* partials) {
  const index_t limit = count != nullptr ? min(*count, m) : m;
  double sum = 0.0;
  for (index_t i = global_thread(); i < limit; i += grid_stride()) {
    sum += term(i);
  }
  const double total = block_sum(sum);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
  }
}

__global__ void reduce_final_kernel(const double* partials, int blocks, double* out) {
  double sum = 0.0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    sum += partials[b];
  }
  const double total = block_sum(sum);
  if (threadIdx.x == 0) {
    *out = total;
  }
}

template <class Term>
void reduce(cudaStream_t s, index_t m, const index_t* count, Term term, double* partials,
            double* out) {
  const unsigned int blocks = blocks_for(m, kReducePartials);
  reduce_partials_kernel<<<blocks, kBlock, 0, s>>>(m, count, term, partials);
  CORESET_CUDA_CHECK_LAUNCH();
  reduce_final_kernel<<<1, kBlock, 0, s>>>(partials, static_cast<int>(blocks), out);
  CORESET_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void masked_gather(cudaStream_t s, index_t n, const T* v, const Mask* a, const Mask* b,
                   T* out_value, Mask* out_mask) {
  for_each(s, n, [=] __device__(index_t i) {
    const Mask in = a[i] | (b != nullptr ? b[i] : Mask(0));
    out_mask[i] = in;
    out_value[i] = in ? v[i] : T(0);
  });
}

template <class T>
void clamped_step(cudaStream_t s, index_t n, const T* x, const Mask* xm, const double* step,
                  const T* g, T* out, Mask* om) {
  for_each(s, n, [=] __device__(index_t i) {
    // As the CPU: x + step * g in double, rounded once to T.
    const T value = xm[i] ? static_cast<T>(add(x[i], mul(*step, g[i]))) : T(0);
    const bool keep = value > T(0);
    om[i] = keep;
    out[i] = keep ? value : T(0);
  });
}

template <class T>
void extrapolate(cudaStream_t s, index_t n, const T* a, const Mask* am, const T* b, const Mask* bm,
                 const double* tau, T* out, Mask* om) {
  for_each(s, n, [=] __device__(index_t i) {
    T value = T(0);
    if (am[i] | bm[i]) {
      const T x = a[i];  // 0 off the support
      value = static_cast<T>(add(x, mul(*tau, sub(x, b[i]))));
    }
    const bool keep = value != T(0);
    om[i] = keep;
    out[i] = keep ? value : T(0);
  });
}

template <class T>
void subtract_sparse(cudaStream_t s, index_t n, const T* a, const Mask* am, const T* b,
                     const Mask* bm, T* out, Mask* om) {
  for_each(s, n, [=] __device__(index_t i) {
    const T value = (am[i] | bm[i]) ? static_cast<T>(a[i] - b[i]) : T(0);
    const bool keep = value != T(0);
    om[i] = keep;
    out[i] = keep ? value : T(0);
  });
}

template <class T>
void step_candidates(cudaStream_t s, index_t n, const T* z, const Mask* zm, const T* gz,
                     const T* go, const Mask* gom, const double* step, T* out) {
  for_each(s, n, [=] __device__(index_t i) {
    T value = T(0);
    if (zm[i]) {
      value = static_cast<T>(add(z[i], mul(*step, gz[i])));
    } else if (gom[i]) {
      value = static_cast<T>(mul(*step, go[i]));
    }
    out[i] = value;
  });
}

template <class T>
void scale_sparse(cudaStream_t s, index_t n, double c, const T* in, const Mask* im, T* out,
                  Mask* om) {
  for_each(s, n, [=] __device__(index_t i) {
    const T value = im[i] ? static_cast<T>(mul(c, in[i])) : T(0);
    const bool keep = value != T(0);
    om[i] = keep;
    out[i] = keep ? value : T(0);
  });
}

template <class T>
void convex_step(cudaStream_t s, index_t n, const T* w, const Mask* wm, double gamma, index_t j,
                 double vertex, T* out, Mask* om) {
  for_each(s, n, [=] __device__(index_t i) {
    T value = T(0);
    if (wm[i] || i == j) {
      const double added = i == j ? mul(gamma, vertex) : 0.0;
      value = static_cast<T>(add(mul(sub(1.0, gamma), w[i]), added));
    }
    const bool keep = value != T(0);
    om[i] = keep;
    out[i] = keep ? value : T(0);
  });
}

template <class T>
void scale(cudaStream_t s, index_t m, double c, const T* in, T* out) {
  const T factor = static_cast<T>(c);  // as the CPU: the factor rounded to T first
  for_each(s, m, [=] __device__(index_t i) { out[i] = in[i] * factor; });
}

template <class T>
void axpby(cudaStream_t s, index_t m, double a, const T* x, double b, const T* z, T* out) {
  for_each(s, m,
           [=] __device__(index_t i) { out[i] = static_cast<T>(add(mul(a, x[i]), mul(b, z[i]))); });
}

template <class T>
void subtract(cudaStream_t s, index_t m, const T* a, const T* b, T* out) {
  for_each(s, m, [=] __device__(index_t i) { out[i] = a[i] - b[i]; });
}

template <class T>
void fill(cudaStream_t s, index_t m, T value, T* out) {
  for_each(s, m, [=] __device__(index_t i) { out[i] = value; });
}

template <class T>
void dot(cudaStream_t s, index_t m, const T* a, const T* b, double* partials, double* out) {
  reduce(
      s, m, nullptr,
      [=] __device__(index_t i) {
        return static_cast<double>(a[i]) * (b != nullptr ? static_cast<double>(b[i]) : 1.0);
      },
      partials, out);
}

template <class T>
void squared_difference(cudaStream_t s, index_t m, const T* a, const T* b, double* partials,
                        double* out) {
  reduce(
      s, m, nullptr,
      [=] __device__(index_t i) {
        const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
        return d * d;
      },
      partials, out);
}

template <class T>
void squared_norm_on_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                          const T* value, double* partials, double* out) {
  reduce(
      s, bound, count,
      [=] __device__(index_t p) {
        const double v = value[index[p]];
        return v * v;
      },
      partials, out);
}

namespace {
__global__ void line_search_kernel(const double* numerator, const double* denominator,
                                   double factor, double* out) {
  *out = solvers::guarded_step(*numerator, *denominator, factor);
}
__global__ void set_scalar_kernel(double value, double* out) {
  *out = value;
}
template <class T>
__global__ void value_at_kernel(const T* v, index_t i, double* out) {
  *out = static_cast<double>(v[i]);
}
}  // namespace

void line_search(cudaStream_t s, const double* numerator, const double* denominator, double factor,
                 double* out) {
  line_search_kernel<<<1, 1, 0, s>>>(numerator, denominator, factor, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

void set_scalar(cudaStream_t s, double value, double* out) {
  set_scalar_kernel<<<1, 1, 0, s>>>(value, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void value_at(cudaStream_t s, const T* v, index_t i, double* out) {
  value_at_kernel<<<1, 1, 0, s>>>(v, i, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void scatter(cudaStream_t s, const index_t* index, index_t m, const T* values, T* out_value,
             Mask* out_mask) {
  for_each(s, m, [=] __device__(index_t p) {
    out_value[index[p]] = values != nullptr ? values[p] : T(0);
    if (out_mask != nullptr) {
      out_mask[index[p]] = 1;
    }
  });
}

void copy_list(cudaStream_t s, const index_t* from, const index_t* count, index_t bound,
               index_t* to) {
  for_each(s, bound, [=] __device__(index_t p) {
    if (p < *count) {
      to[p] = from[p];
    }
  });
}

template <class T>
void gather_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                 const T* dense, T* out) {
  for_each(s, bound, [=] __device__(index_t p) {
    if (p < *count) {
      out[p] = dense[index[p]];
    }
  });
}

#define CORESET_INSTANTIATE(T)                                                                    \
  template void masked_gather<T>(cudaStream_t, index_t, const T*, const Mask*, const Mask*, T*,   \
                                 Mask*);                                                          \
  template void clamped_step<T>(cudaStream_t, index_t, const T*, const Mask*, const double*,      \
                                const T*, T*, Mask*);                                             \
  template void extrapolate<T>(cudaStream_t, index_t, const T*, const Mask*, const T*,            \
                               const Mask*, const double*, T*, Mask*);                            \
  template void subtract_sparse<T>(cudaStream_t, index_t, const T*, const Mask*, const T*,        \
                                   const Mask*, T*, Mask*);                                       \
  template void step_candidates<T>(cudaStream_t, index_t, const T*, const Mask*, const T*,        \
                                   const T*, const Mask*, const double*, T*);                     \
  template void scale_sparse<T>(cudaStream_t, index_t, double, const T*, const Mask*, T*, Mask*); \
  template void convex_step<T>(cudaStream_t, index_t, const T*, const Mask*, double, index_t,     \
                               double, T*, Mask*);                                                \
  template void scale<T>(cudaStream_t, index_t, double, const T*, T*);                            \
  template void axpby<T>(cudaStream_t, index_t, double, const T*, double, const T*, T*);          \
  template void subtract<T>(cudaStream_t, index_t, const T*, const T*, T*);                       \
  template void fill<T>(cudaStream_t, index_t, T, T*);                                            \
  template void dot<T>(cudaStream_t, index_t, const T*, const T*, double*, double*);              \
  template void squared_difference<T>(cudaStream_t, index_t, const T*, const T*, double*,         \
                                      double*);                                                   \
  template void squared_norm_on_list<T>(cudaStream_t, const index_t*, const index_t*, index_t,    \
                                        const T*, double*, double*);                              \
  template void value_at<T>(cudaStream_t, const T*, index_t, double*);                            \
  template void scatter<T>(cudaStream_t, const index_t*, index_t, const T*, T*, Mask*);           \
  template void gather_list<T>(cudaStream_t, const index_t*, const index_t*, index_t, const T*, T*);

CORESET_INSTANTIATE(float)
CORESET_INSTANTIATE(double)
#undef CORESET_INSTANTIATE

}  // namespace coreset::kernels
