// The final refit (SolverOptions::refit), written once for every backend and every algorithm:
// non-negative least squares of y on the columns of the coreset's support,
//
//     minimise ||y - Phi_T v||^2  subject to  v >= 0,   T = supp(w),
//
// solved exactly (solvers/nnls.hpp, Lawson-Hanson started from w) on the host. w itself is
// feasible, so the optimum can only lower f; points whose optimal weight is 0 leave the coreset.
//
// Of the backend (solvers/backend.hpp) it needs only columns_to_host and to_host(y).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <utility>
#include <vector>

#include "coreset/solver.hpp"
#include "solvers/nnls.hpp"
#include "solvers/relative_error.hpp"

namespace coreset::solvers {

/// Replaces result's coreset by the NNLS optimum on its support and records f before and after.
/// Both values are computed the same way, in double on the host from the gathered columns, and
/// the refit weights are kept only if they do not raise f (rounding could, at an optimum), so
/// result.objective <= result.objective_before_refit always. objective_history stays the
/// algorithm's own trace; target_norm is unchanged.
template <class Backend>
void refit_on_support(Backend& be, const typename Backend::SampleVector& y, SolveResult& result) {
  result.objective_before_refit = result.objective;
  const Coreset& coreset = result.coreset;
  if (coreset.size() == 0) {
    return;
  }
  const index_t rows = be.rows();
  const std::vector<double> columns = be.columns_to_host(coreset.indices);
  const std::vector<double> target = be.to_host(y);
  const Eigen::Map<const Eigen::MatrixXd> a(columns.data(), rows, coreset.size());
  const Eigen::Map<const Eigen::VectorXd> b(target.data(), rows);
  const Eigen::Map<const Eigen::VectorXd> start(coreset.weights.data(), coreset.size());

  const double before = (b - a * start).squaredNorm();
  const NnlsResult fit = nnls(a, b, start);
  const double after = (b - a * fit.x).squaredNorm();
  result.objective_before_refit = before;
  result.objective = before;
  if (after <= before) {
    Coreset refit;
    for (index_t p = 0; p < coreset.size(); ++p) {
      if (fit.x[p] > 0.0) {
        refit.indices.push_back(coreset.indices[static_cast<std::size_t>(p)]);
        refit.weights.push_back(fit.x[p]);
      }
    }
    result.coreset = std::move(refit);
    result.objective = after;
  }
  result.relative_error = relative_error(result.objective, result.target_norm);
}

}  // namespace coreset::solvers
