// One rank's block of Phi's columns in host memory, with the dense work a distributed solve does
// on it (cpu/distributed_backend.hpp states what a column block provides; cuda/
// device_column_block.hpp is the GPU's). Every entry and every partial sum is the one-process
// CpuBackend's formula (cpu/datapoint_sums.hpp), so the ranks together give its bits.
#pragma once

#include <cstdint>
#include <vector>

#include "coreset/matrix.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/select_top_k.hpp"
#include "solvers/argmax.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/sparse_vector.hpp"

namespace coreset::cpu {

template <class T>
class HostColumnBlock {
 public:
  /// An n_r-vector of this block, entry i for global column first() + i.
  using Dense = std::vector<T>;

  /// `phi`: the block's columns, global columns first ... first + phi.cols - 1.
  HostColumnBlock(MatrixView<T> phi, index_t first, int threads)
      : local_(phi, threads), first_(first) {}

  index_t rows() const noexcept { return local_.rows(); }
  index_t cols() const noexcept { return local_.cols(); }
  index_t first() const noexcept { return first_; }
  Dense make_dense() const { return local_.make_datapoint_vector(); }

  // ---- dense passes over the block ----

  void phi_t_times(const std::vector<T>& r, Dense& out) const { local_.phi_t_times(r, out); }
  void phi_t_times_on_subset(const std::vector<T>& r, const std::vector<index_t>& local,
                             Dense& out) const {
    local_.phi_t_times_on_subset(r, local, out);
  }
  void column_norms(Dense& out) const { local_.column_norms(out); }
  void zero_entries(const std::vector<index_t>& local, Dense& v) const {
    local_.zero_entries(local, v);
  }
  void scale(double c, const Dense& in, Dense& out) const { local_.scale(c, in, out); }
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    return local_.argmax(rule, v...);
  }
  /// The block's own top-k candidates, ascending local indices, with their values.
  void top_k(const Dense& v, index_t k, solvers::SelectionRule rule,
             const std::vector<index_t>& local_exclude, std::vector<index_t>& index,
             std::vector<T>& value) const {
    cpu::select_top_k(v.data(), cols(), k, rule, local_exclude, index, local_.threads());
    value = values_at(v, index);
  }

  // ---- entries and columns ----

  std::vector<T> values_at(const Dense& v, const std::vector<index_t>& local) const {
    std::vector<T> values;
    values.reserve(local.size());
    for (const index_t i : local) {
      values.push_back(v[static_cast<std::size_t>(i)]);
    }
    return values;
  }
  /// <Phi_j, r> for each local column j (CpuBackend::column_dot).
  std::vector<T> column_dots(const std::vector<index_t>& local, const std::vector<T>& r) const {
    std::vector<T> dots;
    dots.reserve(local.size());
    for (const index_t j : local) {
      dots.push_back(local_.column_dot(j, r));
    }
    return dots;
  }
  void upload(const std::vector<T>& host, Dense& out) const { out = host; }
  std::vector<double> to_host(const Dense& v) const { return local_.to_host(v); }
  /// The local columns `local`, column-major, rows() entries each.
  std::vector<T> columns(const std::vector<index_t>& local) const {
    std::vector<T> out;
    out.reserve(local.size() * static_cast<std::size_t>(rows()));
    for (const index_t j : local) {
      const T* column = local_.phi().column(j);
      out.insert(out.end(), column, column + rows());
    }
    return out;
  }
  /// One hash per local column; equal columns hash alike (on every rank: the same function).
  std::vector<std::uint64_t> column_hashes() const {
    std::vector<std::uint64_t> hashes(static_cast<std::size_t>(cols()));
    for (index_t j = 0; j < cols(); ++j) {
      hashes[static_cast<std::size_t>(j)] = local_.column_hash(j);
    }
    return hashes;
  }

  // ---- the block's exact partial sums (added over the ranks by the caller) ----

  void add_phi_times_dense(const Dense& v, ExactSums& acc) const {
    cpu::add_phi_times_dense(local_.phi(), first_, v.data(), acc, local_.pass_threads());
  }
  /// The entries of `v` (global indices) that lie in this block.
  void add_phi_times(const solvers::SparseVector<T>& v, ExactSums& acc) const {
    cpu::add_phi_times(local_.phi(), first_, v, acc, local_.product_threads(v.size()));
  }
  void add_dot(const Dense& a, const Dense& b, support::ExactSum& acc) const {
    cpu::add_dot(a.data(), b.data(), cols(), acc);
  }
  void add_sum(const Dense& v, support::ExactSum& acc) const {
    cpu::add_sum(v.data(), cols(), acc);
  }

 private:
  CpuBackend<T> local_;
  index_t first_;
};

}  // namespace coreset::cpu
