// The logistic link's terms (models::logistic_link) over a GCC vector type V, on the vector exp
// and log1p of log_sigmoid_kernel.hpp: the scalar formulas of models/link.hpp, with those two
// functions replaced and sigma's quotient e / (1 + e) taken as a product (sigmoid_pair).
// Instantiated by the AVX2 and AVX-512 translation units of row_block; internal linkage, as
// log_sigmoid_kernel.hpp.
#pragma once

#include "models/simd/log_sigmoid_kernel.hpp"

namespace {  // NOLINT(build/namespaces): see the header comment

/// 1 / (1 + e) and e / (1 + e): sigma(x) for x >= 0 and for x < 0, given e = e^-|x|
/// (models::sigmoid). One division: e / (1 + e) is taken as e (1 / (1 + e)), a rounding more
/// than the scalar code's quotient (within the kernel's few ulp); every sigma sharing e picks
/// from the one pair.
template <class V>
struct SigmoidPair {
  V nonnegative;  // 1 / (1 + e)
  V negative;     // e / (1 + e)
};

template <class V>
inline __attribute__((always_inline)) SigmoidPair<V> sigmoid_pair(V e) {
  const V reciprocal = 1.0 / (1.0 + e);
  return {reciprocal, e * reciprocal};
}

template <class V>
inline __attribute__((always_inline)) V sigmoid_of(V x, const SigmoidPair<V>& pair) {
  return x >= 0.0 ? pair.nonnegative : pair.negative;
}

/// value, first, second of models::logistic_link for U vectors of predictors a and labels y.
/// kOtherLabels: some label is neither 1 nor -1 (a hand-made model), so e^-|a| is not e^-|y a|.
template <class V, class VI, int U, bool kOtherLabels>
inline __attribute__((always_inline)) void logistic_link_vectors(const V (&a)[U], const V (&y)[U],
                                                                 V (&value)[U], V (&first)[U],
                                                                 V (&second)[U]) {
  // m = y a, t = -m: the scalar code's t = -y a (negation is exact, rounding symmetric).
  V m[U], x[U], e[U], s[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    m[u] = y[u] * a[u];
  }
  minus_abs_vectors<V, VI, U>(m, x);
  exp_of_nonpositive_vectors<V, VI, U>(x, e);                                // e^-|t|
  log1p_of_unit_vectors<V, VI, U>(e, s);                                     // log1p(e^-|t|)
  const VI sign_bit = VI{} + static_cast<long long>(0x8000000000000000ULL);  // NOLINT(runtime/int)
  // e^-|a| is e^-|t| when |y| = 1 (the labels): a second exponential only for other labels.
  V e_a[U];
  if constexpr (kOtherLabels) {
    V x_a[U];
    minus_abs_vectors<V, VI, U>(a, x_a);
    exp_of_nonpositive_vectors<V, VI, U>(x_a, e_a);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      e_a[u] = (y[u] == 1.0) | (y[u] == -1.0) ? e[u] : e_a[u];
    }
  } else {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      e_a[u] = e[u];
    }
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    // -softplus(t) = -(max(t, 0) + s) = min(m, -0) - s, as log_sigmoid_vectors writes it.
    const V negative_part = m[u] < 0.0 ? m[u] : reinterpret_cast<V>(sign_bit);
    value[u] = negative_part - s[u];
    const SigmoidPair<V> of_t = sigmoid_pair(e[u]);
    const SigmoidPair<V> of_a = kOtherLabels ? sigmoid_pair(e_a[u]) : of_t;
    first[u] = y[u] * sigmoid_of(-m[u], of_t);
    second[u] = -(sigmoid_of(a[u], of_a) * sigmoid_of(-a[u], of_a));
  }
}

/// The terms for count rows; the tail is padded with a = 0, y = 1, computed and dropped.
template <class V, class VI, int U, bool kOtherLabels>
void logistic_link_terms_of(const double* a, const double* y, long long count,  // NOLINT
                            double* value, double* first, double* second) {
  constexpr int kLanes = static_cast<int>(sizeof(V) / sizeof(double));
  constexpr int kStep = kLanes * U;
  for (long long j = 0; j < count; j += kStep) {  // NOLINT(runtime/int)
    V av[U], yv[U], v[U], f[U], s[U];
    const bool whole = j + kStep <= count;
    if (whole) {
      __builtin_memcpy(&av, a + j, sizeof(av));
      __builtin_memcpy(&yv, y + j, sizeof(yv));
    } else {
      double* pa = reinterpret_cast<double*>(&av);
      double* py = reinterpret_cast<double*>(&yv);
      for (int i = 0; i < kStep; ++i) {
        pa[i] = j + i < count ? a[j + i] : 0.0;
        py[i] = j + i < count ? y[j + i] : 1.0;
      }
    }
    logistic_link_vectors<V, VI, U, kOtherLabels>(av, yv, v, f, s);
    if (whole) {
      __builtin_memcpy(value + j, &v, sizeof(v));
      __builtin_memcpy(first + j, &f, sizeof(f));
      __builtin_memcpy(second + j, &s, sizeof(s));
    } else {
      const double* pv = reinterpret_cast<const double*>(&v);
      const double* pf = reinterpret_cast<const double*>(&f);
      const double* ps = reinterpret_cast<const double*>(&s);
      for (long long i = 0; j + i < count; ++i) {  // NOLINT(runtime/int)
        value[j + i] = pv[i];
        first[j + i] = pf[i];
        second[j + i] = ps[i];
      }
    }
  }
}

/// The terms for count rows, the labels looked at once: every lane of a block takes the same
/// path, with one exponential when every label is 1 or -1.
template <class V, class VI, int U>
void logistic_link_terms_impl(const double* a, const double* y, long long count,  // NOLINT
                              double* value, double* first, double* second) {
  // A vector of "not +-1" masks or-ed over the labels, then its lanes: a branch per label would
  // cost about as much as the link.
  constexpr int kLanes = static_cast<int>(sizeof(V) / sizeof(double));
  VI other{};
  long long j = 0;  // NOLINT(runtime/int)
  for (; j + kLanes <= count; j += kLanes) {
    V labels;
    __builtin_memcpy(&labels, y + j, sizeof(labels));
    other |= ~((labels == 1.0) | (labels == -1.0));
  }
  bool units = true;
  for (int l = 0; l < kLanes; ++l) {
    units &= other[l] == 0;
  }
  for (; j < count; ++j) {
    units &= (y[j] == 1.0) | (y[j] == -1.0);
  }
  if (units) {
    logistic_link_terms_of<V, VI, U, false>(a, y, count, value, first, second);
  } else {
    logistic_link_terms_of<V, VI, U, true>(a, y, count, value, first, second);
  }
}

}  // namespace
