// Where the full data's sums over datapoints come from when they are not computed on the host.
// The Laplace fit of a GPU job (posterior/laplace.cpp) needs, per Newton step, the three sums of
// models/row_sums.hpp over all n rows with unit weights; the design lives in device memory
// there (cuda/device_dataset.hpp), and the posterior layer cannot see cuda/. So log_joint takes
// an optional provider of those sums, the cuda layer implements it, and the pipeline chooses it.
// Without one (the CPU, and every weighted sum) nothing changes: the host reference runs.
#pragma once

#include <Eigen/Core>

#include "coreset/distributed.hpp"
#include "coreset/types.hpp"
#include "models/row_sums.hpp"

namespace coreset::models {

class RowSumsProvider {
 public:
  virtual ~RowSumsProvider() = default;

  /// The rows and columns of the design the sums run over: log_joint checks them against the
  /// model's, so a provider bound to another dataset is an error, not a wrong posterior.
  virtual index_t rows() const noexcept = 0;
  virtual index_t dim() const noexcept = 0;

  /// For the model the provider was made from, with unit weights: value = sum_n (ell(a_n, y_n)
  /// + c_n), vector = sum_n ell'(a_n) z_n when `want_vector`, matrix = sum_n -ell''(a_n) z_n z_n^T
  /// when `want_matrix` (a_n = z_n . theta), exactly what sum_over_rows returns for log_joint's
  /// terms, to round-off. Deterministic: the same theta gives the same bits every call.
  virtual RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const = 0;
  /// The ranks whose sums link_sums adds (each call a collective), or null when it adds only
  /// this process's: a fit over it stops only where every rank does (support::throw_if_stopped).
  virtual const Communicator* communicator() const noexcept { return nullptr; }
};

}  // namespace coreset::models
