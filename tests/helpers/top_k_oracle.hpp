// The top-k specification (solvers/selection_rule.hpp) written with std::nth_element, and inputs
// built to break a careless selection: ties everywhere, negatives, zeros, -0.0, NaN, infinities.
// Shared by the CPU test of the radix logic and the GPU top-k tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "coreset/types.hpp"
#include "solvers/selection_rule.hpp"

namespace coreset::test {

/// Ascending indices of the (at most) k best entries: larger key first, then lower index; keys
/// that are not strictly positive (and excluded indices) are never taken.
template <class T>
std::vector<index_t> nth_element_top_k(const std::vector<T>& v, index_t k,
                                       solvers::SelectionRule rule,
                                       const std::vector<bool>& excluded = {}) {
  auto key = [&](index_t i) {
    const T x = v[static_cast<std::size_t>(i)];
    return rule == solvers::SelectionRule::largest_positive ? x : std::abs(x);
  };
  std::vector<index_t> eligible;
  for (index_t i = 0; i < static_cast<index_t>(v.size()); ++i) {
    const bool out = !excluded.empty() && excluded[static_cast<std::size_t>(i)];
    if (key(i) > T(0) && !out) {
      eligible.push_back(i);
    }
  }
  const auto better = [&](index_t a, index_t b) {
    return key(a) > key(b) || (key(a) == key(b) && a < b);
  };
  if (k < static_cast<index_t>(eligible.size())) {
    std::nth_element(eligible.begin(), eligible.begin() + k, eligible.end(), better);
    eligible.resize(static_cast<std::size_t>(k));
  }
  std::sort(eligible.begin(), eligible.end());
  return eligible;
}

/// n values drawn from a small set (ties everywhere), salted with 0, -0.0, NaN, +-infinity and
/// values of both signs of equal magnitude.
template <class T>
std::vector<T> awkward_values(index_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& value : v) {
    value = static_cast<T>(0.25 * pick(generator));
  }
  const T specials[] = {T(0),
                        -T(0),
                        std::numeric_limits<T>::quiet_NaN(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::max()};
  std::uniform_int_distribution<index_t> position(0, n - 1);
  for (index_t s = 0; s < std::min<index_t>(n / 4 + 1, 64) && n > 0; ++s) {
    v[static_cast<std::size_t>(position(generator))] = specials[s % 8];
  }
  return v;
}

/// n continuous values (almost no ties) of both signs.
template <class T>
std::vector<T> gaussian_values(index_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& value : v) {
    value = static_cast<T>(normal(generator));
  }
  return v;
}

/// One step of the drifting vector of the threshold-reuse tests (a solver's gradient, changing a
/// little between selections): every entry x <- 0.999 x + 0.01 e with e ~ N(0, 1) drawn from
/// `generator`, in index order, then every entry times `jump` (1: none).
template <class T>
void drift(std::vector<T>& v, std::mt19937_64& generator, double jump = 1.0) {
  std::normal_distribution<double> noise(0.0, 1.0);
  for (T& x : v) {
    x = static_cast<T>(static_cast<double>(x) * 0.999 + 0.01 * noise(generator));
  }
  if (jump != 1.0) {
    for (T& x : v) {
      x = static_cast<T>(static_cast<double>(x) * jump);
    }
  }
}

}  // namespace coreset::test
