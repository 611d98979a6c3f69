// The sums over datapoints behind the Laplace fit, the exact posterior and the KL evaluations:
//
//     value = sum_n v_n,   vector = sum_n g_n z_n,   matrix = sum_n c_n z_n z_n^T
//
// over the rows z_n of a design, with v_n, g_n and c_n computed per block of rows by the caller.
// They are summed over fixed blocks of rows, each block's products by Eigen on one thread, and
// the blocks' partial sums added in one fixed order: the result is bitwise the same for every
// thread count (a product over all n rows at once would be blocked by Eigen for the number of
// threads it runs on), the temporaries are O(block x d) instead of n x d, and the parts still
// run in parallel.
#pragma once

#include <algorithm>
#include <vector>

#include "coreset/types.hpp"
#include "support/eigen.hpp"

namespace coreset::models {

/// What sum_over_rows returns; `vector` and `matrix` are empty unless asked for.
struct RowSums {
  double value = 0.0;
  Eigen::VectorXd vector;
  Eigen::MatrixXd matrix;
};

/// Rows per block: a block of the design and its products stay in a core's L2 cache.
inline constexpr index_t kRowSumBlock = 2048;

/// The number of independently summed parts for n rows of d columns: at most 64 (enough to keep
/// the cores busy), fewer when d x d partial matrices would pass 64 MiB. A function of n and d
/// only, never of the thread count, so that the summation order is fixed.
inline index_t row_sum_parts(index_t rows, index_t dims) {
  const index_t blocks = (rows + kRowSumBlock - 1) / kRowSumBlock;
  const index_t by_memory =
      std::max<index_t>(1, (index_t{8} << 20) / std::max<index_t>(1, dims * dims));
  return std::max<index_t>(1, std::min({blocks, index_t{64}, by_memory}));
}

/// Sums over the rows of `design`. `terms(first, count, g, c)` fills g and c (count entries each,
/// for rows first .. first + count - 1; either may be left alone when not wanted) and returns
/// the sum of v_n over those rows. `terms` is called concurrently for disjoint blocks.
template <class Terms>
RowSums sum_over_rows(const Eigen::Ref<const Eigen::MatrixXd>& design, bool want_vector,
                      bool want_matrix, const Terms& terms) {
  const index_t n = design.rows();
  const index_t d = design.cols();
  const index_t blocks = (n + kRowSumBlock - 1) / kRowSumBlock;
  const index_t parts = row_sum_parts(n, d);
  std::vector<RowSums> partial(static_cast<std::size_t>(parts));
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
  for (index_t p = 0; p < parts; ++p) {
    RowSums& sums = partial[static_cast<std::size_t>(p)];
    if (want_vector) {
      sums.vector = Eigen::VectorXd::Zero(d);
    }
    if (want_matrix) {
      sums.matrix = Eigen::MatrixXd::Zero(d, d);
    }
    Eigen::VectorXd g;
    Eigen::VectorXd c;
    Eigen::MatrixXd scaled;
    for (index_t b = p * blocks / parts; b < (p + 1) * blocks / parts; ++b) {
      const index_t first = b * kRowSumBlock;
      const index_t count = std::min(kRowSumBlock, n - first);
      const auto rows = design.middleRows(first, count);
      g.resize(count);
      c.resize(count);
      sums.value += terms(first, count, g, c);
      if (want_vector) {
        sums.vector.noalias() += rows.transpose() * g;
      }
      if (want_matrix) {
        // A general product rather than a rank update of diag(sqrt(c)) rows: the square root
        // would need c >= 0, and the Poisson link's -ell'' can round to a tiny negative number.
        scaled.noalias() = c.asDiagonal() * rows;
        sums.matrix.noalias() += rows.transpose() * scaled;
      }
    }
  }
  RowSums total;
  total.value = 0.0;
  if (want_vector) {
    total.vector = Eigen::VectorXd::Zero(d);
  }
  if (want_matrix) {
    total.matrix = Eigen::MatrixXd::Zero(d, d);
  }
  for (const RowSums& sums : partial) {
    total.value += sums.value;
    if (want_vector) {
      total.vector += sums.vector;
    }
    if (want_matrix) {
      total.matrix += sums.matrix;
    }
  }
  return total;
}

}  // namespace coreset::models
