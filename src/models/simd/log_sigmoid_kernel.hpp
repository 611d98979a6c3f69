// The vectorised log-sigmoid, log sigma(x) = -softplus(-x) = -(max(-x, 0) + log1p(e^-|x|)),
// written once over a GCC vector type V (and its 64-bit integer twin VI) and instantiated by one
// translation unit per instruction set (log_sigmoid_avx2.cpp, log_sigmoid_avx512.cpp), each
// compiled with that set's flags. Everything here has internal linkage, so an instantiation
// for one set can never be picked by the linker for a caller compiled for another.
//
// Accuracy: within 4 ulp of the scalar formula on glibc's exp and log1p (measured 4.4e-16
// relative at worst) for every margin, subnormal results included; NaN in, NaN out
// (tests/models/test_log_sigmoid.cpp).
// Why not libmvec's vector exp/log1p: measured 5.1 ns per entry for the AVX-512 pair on the
// benchmark machine against 2.1 ns for this kernel, which keeps several independent vectors
// in flight instead of one long dependency chain: eight (U) for both instruction sets in the
// log-sigmoid (the logistic link's kernel, which keeps more vectors live, takes four), since
// two FMA units of latency 4 need eight independent chains to stay busy. AVX2's 16 registers
// spill some at eight, which still measured about 20% faster than four.
#pragma once

#ifdef __AVX512F__
#include <immintrin.h>  // only the AVX-512 instantiation uses an intrinsic (vscalefpd)
#endif

namespace {  // NOLINT(build/namespaces): see the header comment

// exp(r) on |r| <= ln2 / 2, degree 11 (Chebyshev fit, error 3.2e-18).
constexpr double kExpCoefficients[] = {
    1.0,
    1.0,
    0.5000000000000019,
    0.1666666666666668,
    0.0416666666664881,
    0.008333333333319601,
    0.0013888888952314775,
    0.00019841269890047113,
    2.4801485482328494e-05,
    2.755724091857897e-06,
    2.763263963904103e-07,
    2.5110037605963777e-08,
};

// log1p(v) = v q(v) on v in [-1/4, 1/2], q of degree 19 (Chebyshev fit, error 6.4e-17).
constexpr double kLog1pCoefficients[] = {
    1.0,
    -0.5000000000000013,
    0.33333333333340387,
    -0.24999999999940892,
    0.1999999999803311,
    -0.16666666672413574,
    0.14285714498259397,
    -0.12499999983515328,
    0.11111099972185334,
    -0.09999979391001848,
    0.09091204666717984,
    -0.08334391251074316,
    0.07688943196350262,
    -0.07120810086839267,
    0.06661217165698165,
    -0.06438592972183356,
    0.06307461994331519,
    -0.05410851177299346,
    0.031939874413416,
    -0.008982079439840404,
};

constexpr double kLn2 = 0.6931471805599453;         // ln 2 rounded to double
constexpr double kLn2Low = 2.3190468138462996e-17;  // ln 2 - kLn2
constexpr double kLog2e = 1.4426950408889634;
// Adding 1.5 * 2^52 rounds a double of magnitude < 2^51 to an integer, which then sits in the
// low bits of the sum's representation.
constexpr double kRoundingShifter = 0x1.8p52;
// e^x rounds to 0 below about -745.13; clamping there keeps the exponent arithmetic in range.
constexpr double kExpClamp = -746.0;

/// p 2^n for an integer-valued n in [-1080, 0], rounded once: a subnormal result is the
/// correctly rounded one. AVX-512 has this as one instruction (vscalefpd). Elsewhere 2^n is
/// applied as two factors 2^n1 2^n2 (n1 = round(n / 2)), each a normal number, so the first
/// product is exact and only the last one rounds: the same bits as vscalefpd. n_bits is n held
/// in the low bits of n + kRoundingShifter.
template <class V, class VI>
inline __attribute__((always_inline)) V scale_by_power_of_two(V p, V n, V n_bits) {
#ifdef __AVX512F__
  if constexpr (sizeof(V) == 64) {
    static_cast<void>(n_bits);
    // The masked form with every lane selected is plain vscalefpd; the unmasked intrinsic's
    // undefined pass-through trips GCC 12's -Wmaybe-uninitialized.
    const __m512d p512 = reinterpret_cast<__m512d>(p);
    return reinterpret_cast<V>(_mm512_mask_scalef_pd(p512, static_cast<__mmask8>(0xFF), p512,
                                                     reinterpret_cast<__m512d>(n)));
  }
#endif
  const V shifter = V{} + kRoundingShifter;
  const V t1 = n * 0.5 + shifter;
  const VI n1 = reinterpret_cast<VI>(t1) - reinterpret_cast<VI>(shifter);
  const VI n2 = (reinterpret_cast<VI>(n_bits) - reinterpret_cast<VI>(shifter)) - n1;
  return p * reinterpret_cast<V>((n1 + 1023) << 52) * reinterpret_cast<V>((n2 + 1023) << 52);
}

/// p[u] = the polynomial with `coefficients` (lowest degree first) at x[u], by Horner's rule,
/// for U independent vectors: each step runs across all U before the next, so that the chains
/// overlap.
template <class V, int U, int N>
inline __attribute__((always_inline)) void horner_vectors(const double (&coefficients)[N],
                                                          const V (&x)[U], V (&p)[U]) {
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    p[u] = V{} + coefficients[N - 1];
  }
#pragma GCC unroll 32
  for (int i = N - 2; i >= 0; --i) {
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      p[u] = p[u] * x[u] + coefficients[i];
    }
  }
}

/// e[u] = e^x[u] for x <= 0 (clamped at kExpClamp; 0 below it), for U independent vectors. Each
/// step runs across all U vectors before the next, so the long polynomial chain of one vector
/// overlaps with the others' (with AVX-512, one vector is latency-bound at about 3.7 ns per
/// entry, four run at 2.1-2.6 ns and eight about 10% faster than four).
template <class V, class VI, int U>
inline __attribute__((always_inline)) void exp_of_nonpositive_vectors(const V (&x_in)[U],
                                                                      V (&e)[U]) {
  const V shifter = V{} + kRoundingShifter;
  V t[U], n[U], r[U], p[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    const V x = x_in[u] < kExpClamp ? V{} + kExpClamp : x_in[u];  // vmaxpd with NaN x kept
    // x = n ln2 + r, |r| <= ln2 / 2; n is also held as an integer in t's low bits.
    t[u] = x * kLog2e + shifter;
    n[u] = t[u] - shifter;
    r[u] = (x - n[u] * kLn2) - n[u] * kLn2Low;
  }
  horner_vectors<V, U>(kExpCoefficients, r, p);
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    e[u] = scale_by_power_of_two<V, VI>(p[u], n[u], t[u]);
  }
}

/// s[u] = log1p(e[u]) for e in [0, 1] (and NaN for NaN), for U independent vectors.
template <class V, class VI, int U>
inline __attribute__((always_inline)) void log1p_of_unit_vectors(const V (&e)[U], V (&s)[U]) {
  V v[U], q[U], head[U], head_low[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    // Above 1/2, log1p(e) = ln 2 + log1p(e / 2 - 1 / 2), and e / 2 - 1 / 2 is exact there (one
    // rounding of an exact value).
    const auto upper = e[u] > 0.5;
    v[u] = upper ? e[u] * 0.5 - 0.5 : e[u];
    head[u] = upper ? V{} + kLn2 : V{};
    head_low[u] = upper ? V{} + kLn2Low : V{};
  }
  horner_vectors<V, U>(kLog1pCoefficients, v, q);
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    s[u] = head[u] + (v[u] * q[u] + head_low[u]);
  }
}

/// -|m| for U vectors: the sign bit set.
template <class V, class VI, int U>
inline __attribute__((always_inline)) void minus_abs_vectors(const V (&m)[U], V (&x)[U]) {
  const VI sign_bit = VI{} + static_cast<long long>(0x8000000000000000ULL);  // NOLINT(runtime/int)
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    x[u] = reinterpret_cast<V>(reinterpret_cast<VI>(m[u]) | sign_bit);
  }
}

/// Evaluates log sigma(m[u]) = -softplus(-m) = -(max(-m, 0) + log1p(e^-|m|)) in place for U
/// independent vectors.
template <class V, class VI, int U>
inline __attribute__((always_inline)) void log_sigmoid_vectors(V (&m)[U]) {
  V x[U], e[U], s[U];
  minus_abs_vectors<V, VI, U>(m, x);
  exp_of_nonpositive_vectors<V, VI, U>(x, e);
  log1p_of_unit_vectors<V, VI, U>(e, s);
  const VI sign_bit = VI{} + static_cast<long long>(0x8000000000000000ULL);  // NOLINT(runtime/int)
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    // -(max(-m, 0) + s) written as min(m, -0) - s: the same bits (negation is exact, rounding
    // symmetric, and -0 - 0 = -0), two operations fewer. A NaN m reaches the result through s.
    const V negative_part = m[u] < 0.0 ? m[u] : reinterpret_cast<V>(sign_bit);  // -0
    m[u] = negative_part - s[u];
  }
}

/// out[j] = log sigma(margin[j]) for j < count. Every lane runs the same operations, so the
/// values do not depend on the vector width: AVX2 and AVX-512 give the same bits.
template <class V, class VI, int U>
void log_sigmoid_impl(const double* margin, double* out, long long count) {  // NOLINT
  constexpr int kLanes = static_cast<int>(sizeof(V) / sizeof(double));
  constexpr int kStep = kLanes * U;
  long long j = 0;  // NOLINT(runtime/int)
  for (; j + kStep <= count; j += kStep) {
    V m[U];
    __builtin_memcpy(&m, margin + j, sizeof(m));
    log_sigmoid_vectors<V, VI, U>(m);
    __builtin_memcpy(out + j, &m, sizeof(m));
  }
  if (j < count) {  // the tail, padded with zeros that are computed and dropped
    V m[U];
    double* padded = reinterpret_cast<double*>(&m);
    for (int i = 0; i < kStep; ++i) {
      padded[i] = j + i < count ? margin[j + i] : 0.0;
    }
    log_sigmoid_vectors<V, VI, U>(m);
    for (long long i = 0; j + i < count; ++i) {  // NOLINT(runtime/int)
      out[j + i] = padded[i];
    }
  }
}

}  // namespace
