// Random regression problems with known answers, shared by the solver tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "support/splitmix.hpp"

namespace coreset::test {

/// Phi with i.i.d. N(0, 1/S) entries: near-isometric on sparse vectors when S >> k.
template <class T = double>
Matrix<T> gaussian_matrix(index_t rows, index_t cols, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(static_cast<double>(rows)));
  Matrix<T> phi(rows, cols);
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      phi(i, j) = static_cast<T>(normal(generator));
    }
  }
  return phi;
}

/// Phi with i.i.d. uniform entries on [-1, 1) / sqrt(S), each splitmix64 of the seed and its
/// place: a few nanoseconds an entry where gaussian_matrix takes tens, for tests whose Phi is
/// large (tens of millions of entries) and whose assertions ask for no distribution.
template <class T = double>
Matrix<T> uniform_matrix(index_t rows, index_t cols, std::uint64_t seed) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(rows));
  const std::uint64_t base = support::splitmix64(seed);
  Matrix<T> phi(rows, cols);
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      const auto place = static_cast<std::uint64_t>(i + j * rows);
      const std::uint64_t bits = support::splitmix64(base + place);
      const double unit = static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;  // 53 bits: [-1, 1)
      phi(i, j) = static_cast<T>(scale * unit);
    }
  }
  return phi;
}

/// gaussian_matrix (seed) plus `share` times one common Gaussian column (seed + 1) in every
/// column: the columns correlate with y = Phi 1, so a solve has work to do.
template <class T = double>
Matrix<T> shared_direction_matrix(index_t rows, index_t cols, std::uint64_t seed, double share) {
  Matrix<T> phi = gaussian_matrix<T>(rows, cols, seed);
  const Matrix<T> common = gaussian_matrix<T>(rows, 1, seed + 1);
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      phi(i, j) += static_cast<T>(share) * common(i, 0);
    }
  }
  return phi;
}

/// A 12 x (3 x 256 + 30) Phi with 43 columns that copy an earlier one: within a reduction block,
/// across blocks, and a group of 40 copies of column 10 spread over every block (so over every
/// rank of a split); columns 600 and 700 differ only in the sign of a zero, which is no copy.
inline Matrix<double> matrix_with_copies() {
  constexpr index_t n = 3 * kReductionBlock + 30;
  Matrix<double> phi = gaussian_matrix(12, n, 3);
  const auto copy = [&](index_t to, index_t from) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      phi(i, to) = phi(i, from);
    }
  };
  copy(5, 2);
  copy(400, 7);
  copy(n - 1, 300);
  for (index_t c = 0; c < 40; ++c) {
    copy(21 + 19 * c, 10);
  }
  copy(700, 600);
  phi(0, 600) = 0.0;
  phi(0, 700) = -0.0;
  return phi;
}

/// Columns range.first ... range.first + range.count - 1 of `phi`, as a rank of a distributed
/// solve holds them.
template <class T>
Matrix<T> columns_of(const Matrix<T>& phi, DatapointRange range) {
  Matrix<T> block(phi.rows(), range.count);
  for (index_t j = 0; j < range.count; ++j) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      block(i, j) = phi(i, range.first + j);
    }
  }
  return block;
}

/// A k-sparse non-negative w* (weights in [1, 2], well away from 0) and y = Phi w*.
struct PlantedProblem {
  Matrix<double> phi;
  std::vector<double> y;
  std::vector<index_t> support;  // ascending
  std::vector<double> weights;   // on `support`
};

inline PlantedProblem planted_problem(index_t rows, index_t cols, index_t k, std::uint64_t seed) {
  PlantedProblem problem{gaussian_matrix(rows, cols, seed), {}, {}, {}};
  std::mt19937_64 generator(seed + 1);
  std::vector<index_t> all(static_cast<std::size_t>(cols));
  std::iota(all.begin(), all.end(), index_t{0});
  std::shuffle(all.begin(), all.end(), generator);
  problem.support.assign(all.begin(), all.begin() + k);
  std::sort(problem.support.begin(), problem.support.end());
  std::uniform_real_distribution<double> uniform(1.0, 2.0);
  problem.y.assign(static_cast<std::size_t>(rows), 0.0);
  for (const index_t j : problem.support) {
    const double weight = uniform(generator);
    problem.weights.push_back(weight);
    for (index_t i = 0; i < rows; ++i) {
      problem.y[static_cast<std::size_t>(i)] += weight * problem.phi(i, j);
    }
  }
  return problem;
}

template <class T>
double squared_norm(const std::vector<T>& v) {
  double sum = 0.0;
  for (const T value : v) {
    sum += static_cast<double>(value) * value;
  }
  return sum;
}

/// ||a - b|| for two coresets, as sparse vectors.
inline double coreset_distance(const Coreset& a, const Coreset& b) {
  std::vector<std::pair<index_t, double>> entries;
  for (std::size_t p = 0; p < a.indices.size(); ++p) {
    entries.emplace_back(a.indices[p], a.weights[p]);
  }
  for (std::size_t p = 0; p < b.indices.size(); ++p) {
    entries.emplace_back(b.indices[p], -b.weights[p]);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  double sum = 0.0;
  for (std::size_t p = 0; p < entries.size();) {
    double value = 0.0;
    const index_t index = entries[p].first;
    for (; p < entries.size() && entries[p].first == index; ++p) {
      value += entries[p].second;
    }
    sum += value * value;
  }
  return std::sqrt(sum);
}

inline double coreset_norm(const Coreset& c) {
  return std::sqrt(squared_norm(c.weights));
}

}  // namespace coreset::test
