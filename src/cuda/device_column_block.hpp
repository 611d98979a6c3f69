// One rank's block of Phi's columns on the rank's GPU, with the dense work a distributed solve does
// on it (cpu/distributed_backend.hpp states what a column block provides; cpu/
// host_column_block.hpp is the host's). The block is a CudaBackend over its own columns, so every
// pass over Phi (gradients, selections, norms, argmax) runs on the device as in one process; what
// comes back to the host is S- and k-sized: the partial sums (S numbers, made exact there and
// added over the ranks), the top-k candidates, the values on a support.
//
// A rank may hold no column (n < 256 R): then nothing is made on the device and every method
// gives the empty answer, so that rank still takes part in every collective.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "coreset/matrix.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "solvers/argmax.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/sparse_vector.hpp"
#include "support/exact_sum.hpp"

namespace coreset::cuda {

template <class T>
class DeviceColumnBlock {
 public:
  /// An n_r-vector of this block on the device, entry i for global column first() + i.
  using Dense = kernels::DeviceBuffer<T>;

  /// Copies `phi` (host, the block's columns, global columns first ... first + phi.cols - 1) to
  /// the session's device; DeviceError when it does not fit there (CudaBackend's check). A block
  /// without columns never asks the session for its resources (no stream, handle or scratch).
  /// Call under session.lock().
  DeviceColumnBlock(GpuSession& session, MatrixView<T> phi, index_t first);
  /// Takes a block already on the device (rows x cols, ld = rows), e.g. the GPU projection's of
  /// the rank's rows (cuda/device_phi.hpp), in place.
  DeviceColumnBlock(GpuSession& session, kernels::DeviceBuffer<T>&& phi, index_t rows, index_t cols,
                    index_t first);

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  index_t first() const noexcept { return first_; }
  Dense make_dense() const;

  // ---- dense passes over the block ----

  void phi_t_times(const std::vector<T>& r, Dense& out) const;
  void phi_t_times_on_subset(const std::vector<T>& r, const std::vector<index_t>& local,
                             Dense& out) const;
  void column_norms(Dense& out) const;
  void zero_entries(const std::vector<index_t>& local, Dense& v) const;
  void scale(double c, const Dense& in, Dense& out) const;
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    return empty() ? solvers::ArgMax{} : local_->argmax(rule, v...);
  }
  /// The block's own top-k candidates, ascending local indices, with their values.
  void top_k(const Dense& v, index_t k, solvers::SelectionRule rule,
             const std::vector<index_t>& local_exclude, std::vector<index_t>& index,
             std::vector<T>& value) const;

  // ---- entries and columns ----

  std::vector<T> values_at(const Dense& v, const std::vector<index_t>& local) const;
  /// <Phi_j, r> for each local column j.
  std::vector<T> column_dots(const std::vector<index_t>& local, const std::vector<T>& r) const;
  void upload(const std::vector<T>& host, Dense& out) const;
  std::vector<double> to_host(const Dense& v) const;
  /// The local columns `local`, column-major, rows() entries each.
  std::vector<T> columns(const std::vector<index_t>& local) const;
  /// One hash per local column (the device's hash: every rank of a GPU job uses it).
  std::vector<std::uint64_t> column_hashes() const;

  // ---- the block's partial sums, from the device, added exactly into the accumulators ----

  void add_phi_times_dense(const Dense& v, cpu::ExactSums& acc) const;
  /// The entries of `v` (global indices) that lie in this block.
  void add_phi_times(const solvers::SparseVector<T>& v, cpu::ExactSums& acc) const;
  void add_dot(const Dense& a, const Dense& b, support::ExactSum& acc) const;
  void add_sum(const Dense& v, support::ExactSum& acc) const;

 private:
  bool empty() const noexcept { return local_ == nullptr; }
  /// r on the device (in r_), through the pinned staging buffer.
  const kernels::DeviceBuffer<T>& on_device(const std::vector<T>& r) const;
  /// The local indices `local` as a device support (in support_): the selection's exclusion
  /// set. The other listed supports take the backend's host-list paths (CudaBackend::values_at,
  /// column_dots, phi_times), which need no device sparse vector.
  const DeviceSparse<T>& support_of(const std::vector<index_t>& local) const;
  /// acc[i] += partial[i] for the S-vector `partial` on the device, read through the pinned
  /// staging buffer.
  void add_partial(const kernels::DeviceBuffer<T>& partial, cpu::ExactSums& acc) const;

  std::unique_ptr<CudaBackend<T>> local_;  // null when the block holds no column
  index_t rows_ = 0;
  index_t cols_ = 0;
  index_t first_ = 0;
  // Reused device state (the block is used by one thread at a time).
  mutable kernels::DeviceBuffer<T> r_;
  mutable kernels::DeviceBuffer<T> partial_;
  mutable DeviceSparse<T> support_;
  mutable DeviceSparse<T> result_;
};

}  // namespace coreset::cuda
