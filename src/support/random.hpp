// Portable random numbers: the same seed gives the same values with every compiler and standard
// library. std::mt19937_64's output sequence is fixed by the standard, but the distributions
// (std::normal_distribution, std::uniform_real_distribution) are not, so we derive uniforms and
// normals from its raw 64-bit output ourselves.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "coreset/types.hpp"
#include "support/splitmix.hpp"

namespace coreset::support {

class NormalGenerator {
 public:
  explicit NormalGenerator(std::uint64_t seed) : engine_(seed) {}

  /// A standard normal deviate (Marsaglia's polar method). It needs only log and sqrt, not sin
  /// and cos, and sqrt is correctly rounded everywhere, which keeps results as portable as libm
  /// allows. Each accepted pair yields two deviates; the second is kept for the next call.
  double operator()() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0.0;
    double v = 0.0;
    double s = 0.0;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

  /// Uniform on [0, 1): the top 53 bits of one engine output, so every value is an exact
  /// multiple of 2^-53 and no rounding depends on the platform.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  /// The underlying engine, for integer draws (e.g. sampling rows without replacement).
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

/// A uniform integer in [0, range), range >= 1, from raw engine output by rejection (the
/// distribution of std::uniform_int_distribution is implementation-defined). The lowest
/// (2^64 mod range) outputs are rejected so that the rest split evenly into range classes.
inline std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t range) {
  const std::uint64_t threshold = (0 - range) % range;
  std::uint64_t x = engine();
  while (x < threshold) {
    x = engine();
  }
  return x % range;
}

/// A seed for stream `stream` of the generator seeded with `seed` (e.g. one stream per
/// iteration): both are mixed through splitmix64, so neighbouring seeds and streams give
/// unrelated sequences.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64(splitmix64(seed) ^ stream);
}

/// m distinct indices drawn uniformly from 0 ... n-1 (every m-subset equally likely), in
/// ascending order, into `out`; 0 <= m <= n. Selection sampling (Knuth's Algorithm S): index i
/// is taken with probability (m - taken) / (n - i), decided by an exact integer draw, so the
/// subset is the same on every platform. O(n) time, one engine output per index considered.
inline void sample_without_replacement(std::uint64_t n, std::uint64_t m, std::uint64_t seed,
                                       std::vector<index_t>& out) {
  out.clear();
  out.reserve(m);
  std::mt19937_64 engine(seed);
  for (std::uint64_t i = 0; i < n && out.size() < m; ++i) {
    const std::uint64_t left = m - out.size();
    if (left == n - i || uniform_below(engine, n - i) < left) {
      out.push_back(static_cast<index_t>(i));
    }
  }
}

}  // namespace coreset::support
