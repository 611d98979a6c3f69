// Phi where it is solved: the GPU projection writes it into device memory, and the CUDA backend
// takes that buffer in place for every solve, refit and objective of the job, so Phi never
// crosses the bus (pipeline/build.cpp keeps one of these per PreparedProblem on a GPU). What
// does come back to the host is what the job needs there: three scalars per IHT iteration, the
// coreset, the S values of y and the S x |support| columns the refit's NNLS reads, one scalar
// per objective. Free of CUDA headers; in a build without CUDA the constructor throws
// DeviceError (gpu_session_disabled.cpp).
#pragma once

#include <Eigen/Core>
#include <memory>

#include "coreset/solver.hpp"
#include "coreset/types.hpp"
#include "cpu/solve_cpu.hpp"
#include "cuda/device_dataset.hpp"
#include "cuda/gpu_session.hpp"
#include "models/model.hpp"
#include "solvers/budget_snapshots.hpp"

namespace coreset::cuda {

template <class T>
class DevicePhi {
 public:
  /// Projects on the dataset's GPU session (as projection_on_gpu, whose errors it throws),
  /// reading the design where `dataset` holds it (no upload), and keeps Phi (S x n) and
  /// y = Phi 1 there; reads ||y||^2 back (one scalar). `model` is the dataset's (its link and
  /// shared quadratic); the dataset may be released afterwards.
  DevicePhi(const DeviceDataset& dataset, const models::Model& model,
            const Eigen::MatrixXd& samples);
  /// A GPU rank's block of a distributed build: Phi's columns rank.first ... of rank.columns for
  /// `model`'s rows, projected on `session`'s GPU from `dataset` (those rows on the device; null
  /// when the rank holds none), and kept there. No collective here; y = Phi 1 (made on first
  /// use) and every solve, refit and objective are collectives over rank.comm, on the
  /// distributed backend over a device block (cuda/device_column_block.hpp), and cols() is n.
  DevicePhi(std::shared_ptr<GpuSession> session, const DeviceDataset* dataset,
            const models::Model& model, const Eigen::MatrixXd& samples,
            const cpu::RankColumns& rank);
  ~DevicePhi();
  DevicePhi(DevicePhi&&) noexcept;
  DevicePhi& operator=(DevicePhi&&) noexcept;

  index_t rows() const noexcept;  ///< S
  index_t cols() const noexcept;  ///< n (all ranks' columns for a rank's block)

  /// options.algorithm (solvers/run_algorithm.hpp, refit included) for the target y = Phi 1;
  /// options are assumed validated. InvalidArgument when y is not finite. Thread-safe
  /// (serialised on the session). `snapshots` (giga, fw): the results at its smaller budgets.
  SolveResult solve(const SolverOptions& options,
                    solvers::BudgetSnapshots* snapshots = nullptr) const;
  /// cpu::refit_on_cpu's contract for a result computed elsewhere (SparseVI): sets
  /// objective_before_refit, then refits on the support when options.refit.
  void refit(const SolverSettings& options, SolveResult& result) const;
  /// f(w) = ||y - Phi w||^2 for y = Phi 1, accumulated in double on the device (the same value
  /// as coreset::objective to rounding). InvalidArgument for an index outside Phi's columns or
  /// mismatched sizes; repeated indices add up, as in coreset::objective.
  double objective(const Coreset& coreset) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class DevicePhi<float>;
extern template class DevicePhi<double>;

}  // namespace coreset::cuda
