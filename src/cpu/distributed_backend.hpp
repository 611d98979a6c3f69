// The backend of a distributed solve: one rank's block of Phi's columns, the ranks together
// holding all of Phi (coreset/distributed.hpp). It presents the whole problem to the drivers,
// which run unchanged on every rank: datapoint vectors hold this rank's entries only, where its
// block computes (host memory for cpu/host_column_block.hpp, the rank's GPU for
// cuda/device_column_block.hpp); sample vectors (S entries), sparse vectors (at most about 3k
// entries, global indices) and scalars live on the host and are the same on every rank, since
// every rank computes them from the same inputs with the same code. What crosses ranks:
//   - sums over datapoints (Phi w, y = Phi 1, datapoint dot products and sums): each rank's
//     partial sums, made exact (support/exact_sum.hpp) and added as integers: S x 71 int64 per
//     S-vector, so the order of the ranks cannot change a bit;
//   - selections: each rank's local top k candidates, merged (ties to the lower global index);
//   - values on a sparse support, argmax candidates, chosen columns: each rank's share, gathered
//     in rank order, which is global index order.
// On host blocks every result is therefore the one-process CpuBackend's, bit for bit (tests/cpu
// compare them); on device blocks a rank's partial sums are its GPU's, so the result depends on
// the split in the last bits, as a GPU's does on its launch shape.
// Once per solve: duplicate_columns() gathers one hash per column (8 n bytes over all ranks), and
// fill_unit_random() (iht) draws the whole stream on every rank, as one process would.
//
// A column block (Block) provides, over its n_r columns (global first() ... first() + n_r - 1):
//   Dense, make_dense(), rows(), cols(), first();
//   phi_t_times(r, out), phi_t_times_on_subset(r, local subset, out), column_norms(out),
//   zero_entries(local, v), scale(c, in, out), argmax(rule, v...) (a local index),
//   top_k(v, k, rule, local exclude, index, value) (ascending local indices);
//   values_at(v, local), column_dots(local, r), upload(host, v), to_host(v), columns(local),
//   column_hashes();
//   add_phi_times_dense(v, sums), add_phi_times(sparse v, sums), add_dot(a, b, sum),
//   add_sum(v, sum): its partial sums added into exact accumulators.
// r and sample vectors are std::vector<T> on the host; local indices are ascending.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/host_column_block.hpp"
#include "cpu/select_top_k.hpp"
#include "solvers/argmax.hpp"
#include "solvers/backend.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/sparse_vector.hpp"
#include "support/collectives.hpp"
#include "support/exact_sum.hpp"

namespace coreset::cpu {

using support::all_gather_values;
using support::sum_over_ranks;

template <class T, class Block>
class DistributedBackend {
 public:
  using SampleVector = std::vector<T>;
  /// This rank's entries of an n-vector: entry i holds global index first() + i.
  struct DatapointVector {
    typename Block::Dense local;
  };
  using SparseDatapointVector = solvers::SparseVector<T>;
  using Scalar = double;

  /// `block`: this rank's columns, global indices block.first() ... of `columns` in all.
  DistributedBackend(Block block, index_t columns, const Communicator& comm)
      : block_(std::move(block)),
        host_(MatrixView<T>{nullptr, block_.rows(), 0, block_.rows()}, 1),
        comm_(comm),
        first_(block_.first()),
        columns_(columns) {}

  static constexpr double epsilon() { return CpuBackend<T>::epsilon(); }
  index_t rows() const noexcept { return block_.rows(); }
  index_t cols() const noexcept { return columns_; }
  index_t first() const noexcept { return first_; }
  index_t local_cols() const noexcept { return block_.cols(); }
  const Block& block() const noexcept { return block_; }
  SampleVector make_sample_vector() const { return host_.make_sample_vector(); }
  DatapointVector make_datapoint_vector() const { return {block_.make_dense()}; }

  // ---- dense passes ----

  void phi_t_times(const SampleVector& r, DatapointVector& out) const {
    block_.phi_t_times(r, out.local);
  }
  void phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
                             DatapointVector& out) const {
    block_.phi_t_times_on_subset(r, to_local(subset), out.local);
  }
  void phi_times_dense(const DatapointVector& v, SampleVector& out) const {
    ExactSums sums(static_cast<std::size_t>(rows()));
    block_.add_phi_times_dense(v.local, sums);
    sum_over_ranks(comm_, sums);
    round_into(sums, out);
  }
  void column_sums(SampleVector& out) const {
    DatapointVector ones = make_datapoint_vector();
    block_.upload(std::vector<T>(static_cast<std::size_t>(local_cols()), T(1)), ones.local);
    phi_times_dense(ones, out);
  }
  void column_norms(DatapointVector& out) const { block_.column_norms(out.local); }

  /// Columns equal bit for bit to one of lower global index. The ranks' column hashes are
  /// gathered (once per solve) in rounds, one per bucket of hash values (hash mod rounds), so a
  /// rank holds at most about 256 MiB of them (set_hash_gather_bytes) at once whatever n is; equal
  /// columns hash alike, so a group of copies never spans two rounds. In a round, a local column
  /// that is not the first of its hash group is a copy if it equals a lower member. Equality is
  /// transitive, so a copy equals the group's first member unless 64-bit hashes collide: that
  /// one comparison settles almost every column, and only the columns it leaves open are
  /// compared with the other lower members. So a group of m copies costs m comparisons, not m^2.
  /// The lists are then gathered.
  std::vector<index_t> duplicate_columns() const {
    std::vector<std::uint64_t> hashes = block_.column_hashes();
    for (std::uint64_t& hash : hashes) {
      hash &= hash_mask_;
    }
    // The same count on every rank: a function of n alone.
    const auto entry_bytes = static_cast<index_t>(sizeof(HashEntry));
    const auto budget = static_cast<index_t>(hash_gather_bytes_);
    const auto rounds = static_cast<std::uint64_t>(
        std::max<index_t>(1, (columns_ * entry_bytes + budget - 1) / budget));
    std::vector<index_t> duplicates;
    for (std::uint64_t round = 0; round < rounds; ++round) {
      std::vector<HashEntry> mine;
      for (index_t j = 0; j < local_cols(); ++j) {
        const std::uint64_t hash = hashes[static_cast<std::size_t>(j)];
        if (hash % rounds == round) {
          mine.push_back({hash, first_ + j});
        }
      }
      find_copies(all_gather_values(comm_, mine), duplicates);
    }
    std::sort(duplicates.begin(), duplicates.end());
    duplicates.erase(std::unique(duplicates.begin(), duplicates.end()), duplicates.end());
    return all_gather_values(comm_, duplicates);
  }

  /// The most bytes of column hashes duplicate_columns() gathers in one round (256 MiB; tests
  /// lower it to make several rounds of few columns).
  void set_hash_gather_bytes(std::size_t bytes) noexcept {
    hash_gather_bytes_ = std::max<std::size_t>(bytes, sizeof(HashEntry));
  }
  /// Keeps only the low `bits` (1 ... 64) bits of each column's hash in duplicate_columns(), so
  /// that distinct columns collide: tests of the comparisons a collision costs.
  void set_hash_bits(int bits) noexcept {
    hash_mask_ = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << std::max(bits, 1)) - 1;
  }

  // ---- sparse products ----

  void phi_times(const SparseDatapointVector& v, SampleVector& out) const {
    ExactSums sums(static_cast<std::size_t>(rows()));
    block_.add_phi_times(v, sums);
    sum_over_ranks(comm_, sums);
    round_into(sums, out);
  }
  void phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                      SparseDatapointVector& out) const {
    std::vector<T> mine = block_.column_dots(to_local(support.index), r);
    out.index = support.index;
    out.value = all_gather_values(comm_, mine);
  }

  // ---- selection ----

  void select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                    const SparseDatapointVector& exclude, SparseDatapointVector& out) const {
    std::vector<index_t> local_index;
    std::vector<T> local_value;
    block_.top_k(v.local, std::min(k, local_cols()), rule, to_local(exclude.index), local_index,
                 local_value);
    struct Candidate {
      index_t index;
      T value;
    };
    std::vector<Candidate> mine;
    for (std::size_t p = 0; p < local_index.size(); ++p) {
      mine.push_back({local_index[p] + first_, local_value[p]});
    }
    // The candidates of all ranks in one exchange, in global index order: ranking their
    // positions breaks ties by the lower global index, as one process's selection does.
    const std::vector<Candidate> all = all_gather_values(comm_, mine);
    std::vector<T> values;
    for (const Candidate& candidate : all) {
      values.push_back(candidate.value);
    }
    const auto count = static_cast<index_t>(all.size());
    std::vector<index_t> kept;
    cpu::select_top_k(values.data(), count, std::min(k, count), rule, {}, kept, 1);
    out.clear();
    for (const index_t position : kept) {
      const Candidate& chosen = all[static_cast<std::size_t>(position)];
      out.push_back(chosen.index, chosen.value);
    }
  }
  void gather(const DatapointVector& v, const SparseDatapointVector& at,
              SparseDatapointVector& out) const {
    std::vector<T> mine = block_.values_at(v.local, to_local(at.index));
    out.index = at.index;
    out.value = all_gather_values(comm_, mine);
  }
  void restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                         const SparseDatapointVector& b, SparseDatapointVector& out) const {
    SparseDatapointVector united;
    std::set_union(a.index.begin(), a.index.end(), b.index.begin(), b.index.end(),
                   std::back_inserter(united.index));
    gather(v, united, out);
  }
  void zero_entries(const std::vector<index_t>& at, DatapointVector& v) const {
    block_.zero_entries(to_local(at), v.local);
  }
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    solvers::ArgMax mine = block_.argmax(rule, v.local...);
    if (mine.index >= 0) {
      mine.index += first_;
    }
    solvers::ArgMax result;
    for (const solvers::ArgMax& candidate :
         all_gather_values(comm_, std::vector<solvers::ArgMax>{mine})) {
      result = solvers::better(result, candidate);
    }
    return result;
  }

  // ---- small sparse steps and sample-space operations: the same on every rank ----

  void projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
                      const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
                      SparseDatapointVector& x) const {
    host_.projected_step(z, g_on_z, g_outside_z, step, k, x);
  }
  void clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
                    SparseDatapointVector& out) const {
    host_.clamped_step(x, step, g, out);
  }
  void extrapolate(const SparseDatapointVector& next, const SparseDatapointVector& prev, Scalar tau,
                   SparseDatapointVector& out) const {
    host_.extrapolate(next, prev, tau, out);
  }
  void subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                SparseDatapointVector& out) const {
    host_.subtract(a, b, out);
  }
  void subtract(const SampleVector& a, const SampleVector& b, SampleVector& out) const {
    host_.subtract(a, b, out);
  }
  void copy(const SparseDatapointVector& from, SparseDatapointVector& to) const { to = from; }
  void copy(const SampleVector& from, SampleVector& to) const { to = from; }
  void convex_step(const SparseDatapointVector& w, Scalar gamma, index_t j, Scalar vertex,
                   SparseDatapointVector& out) const {
    host_.convex_step(w, gamma, j, vertex, out);
  }
  void scale(double c, const SparseDatapointVector& in, SparseDatapointVector& out) const {
    host_.scale(c, in, out);
  }
  void scale(double c, const DatapointVector& in, DatapointVector& out) const {
    block_.scale(c, in.local, out.local);
  }
  void axpby(double a, const SampleVector& x, double b, const SampleVector& z,
             SampleVector& out) const {
    host_.axpby(a, x, b, z, out);
  }

  /// CpuBackend::fill_unit_random's vector, this rank's part (draw_unit_random draws it all).
  void fill_unit_random(DatapointVector& v, std::uint64_t seed) const {
    std::vector<T> mine(static_cast<std::size_t>(local_cols()));
    const double factor = draw_unit_random<T>(columns_, seed, [&](index_t i, T g) {
      if (owns(i)) {
        mine[static_cast<std::size_t>(i - first_)] = g;
      }
    });
    block_.upload(mine, v.local);
    scale(factor, v, v);
  }

  // ---- scalars ----

  Scalar dot(const SampleVector& a, const SampleVector& b) const { return host_.dot(a, b); }
  Scalar dot(const DatapointVector& a, const DatapointVector& b) const {
    ExactSums sum(1);
    block_.add_dot(a.local, b.local, sum[0]);
    sum_over_ranks(comm_, sum);
    return sum[0].value();
  }
  Scalar sum(const DatapointVector& v) const {
    ExactSums sum(1);
    block_.add_sum(v.local, sum[0]);
    sum_over_ranks(comm_, sum);
    return sum[0].value();
  }
  Scalar squared_norm(const SparseDatapointVector& v) const { return host_.squared_norm(v); }
  Scalar squared_distance(const SparseDatapointVector& a, const SparseDatapointVector& b) const {
    return host_.squared_distance(a, b);
  }
  Scalar line_search(Scalar numerator, Scalar denominator, double factor) const {
    return host_.line_search(numerator, denominator, factor);
  }
  Scalar constant(double c) const { return c; }
  /// v_i from its owner.
  Scalar value_at(const DatapointVector& v, index_t i) const {
    std::vector<T> mine;
    if (owns(i)) {
      mine = block_.values_at(v.local, {i - first_});
    }
    return static_cast<double>(all_gather_values(comm_, mine).at(0));
  }
  double read(Scalar s) const { return s; }
  template <class... S>
  std::array<double, sizeof...(S)> read_all(S... s) const {
    return {static_cast<double>(s)...};
  }

  // ---- host read-back ----

  std::vector<double> to_host(const DatapointVector& v) const {
    return all_gather_values(comm_, block_.to_host(v.local));
  }
  std::vector<double> to_host(const SampleVector& y) const { return host_.to_host(y); }
  std::vector<double> columns_to_host(const std::vector<index_t>& indices) const {
    const std::vector<T> columns = gathered_columns(indices);
    return std::vector<double>(columns.begin(), columns.end());
  }
  void from_host(const std::vector<index_t>& index, const std::vector<double>& value,
                 SparseDatapointVector& out) const {
    host_.from_host(index, value, out);
  }
  Coreset to_coreset(const SparseDatapointVector& w) const { return host_.to_coreset(w); }

 private:
  struct HashEntry {
    std::uint64_t hash;
    index_t index;  // global
  };

  /// One round of duplicate_columns(): `entries` are every rank's columns of one bucket, in rank
  /// order (so ascending index); the local copies found are appended to `duplicates`. Two
  /// collectives (the comparisons), taken by every rank.
  void find_copies(std::vector<HashEntry> entries, std::vector<index_t>& duplicates) const {
    // Grouped by hash, ascending index within a group.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const HashEntry& a, const HashEntry& b) { return a.hash < b.hash; });
    // Round 1: each local column that is not first in its group against the group's first.
    std::vector<std::pair<index_t, index_t>> first_pairs;    // (local column, the group's first)
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // its group's positions in `entries`
    for (std::size_t p = 0; p < entries.size();) {
      std::size_t q = p + 1;
      while (q < entries.size() && entries[q].hash == entries[p].hash) {
        ++q;
      }
      for (std::size_t a = p + 1; a < q; ++a) {
        if (owns(entries[a].index)) {
          first_pairs.emplace_back(entries[a].index, entries[p].index);
          spans.emplace_back(p, a);
        }
      }
      p = q;
    }
    std::vector<std::pair<index_t, index_t>> other_pairs;  // round 2: the open ones
    const std::vector<bool> equal = columns_equal(first_pairs);
    for (std::size_t c = 0; c < first_pairs.size(); ++c) {
      if (equal[c]) {
        duplicates.push_back(first_pairs[c].first);
        continue;
      }
      for (std::size_t b = spans[c].first + 1; b < spans[c].second; ++b) {
        other_pairs.emplace_back(first_pairs[c].first, entries[b].index);
      }
    }
    // Round 2 (hash collisions only; a collective, so every rank takes it, mostly with nothing).
    const std::vector<bool> equal_other = columns_equal(other_pairs);
    for (std::size_t c = 0; c < other_pairs.size(); ++c) {
      if (equal_other[c]) {
        duplicates.push_back(other_pairs[c].first);
      }
    }
  }

  bool owns(index_t global) const noexcept {
    return global >= first_ && global < first_ + local_cols();
  }
  /// The positions [begin, end) of the ascending global `indices` that this rank owns.
  std::pair<std::size_t, std::size_t> local_range(const std::vector<index_t>& indices) const {
    const auto begin = std::lower_bound(indices.begin(), indices.end(), first_);
    const auto end = std::lower_bound(begin, indices.end(), first_ + local_cols());
    return {static_cast<std::size_t>(begin - indices.begin()),
            static_cast<std::size_t>(end - indices.begin())};
  }
  /// The entries of ascending global `indices` owned here, as local indices.
  std::vector<index_t> to_local(const std::vector<index_t>& indices) const {
    const auto [begin, end] = local_range(indices);
    std::vector<index_t> local;
    local.reserve(end - begin);
    for (std::size_t p = begin; p < end; ++p) {
      local.push_back(indices[p] - first_);
    }
    return local;
  }
  /// For each pair (local column, any global column), whether the two are equal bit for bit;
  /// the second columns held by other ranks are fetched from them in one exchange. A collective.
  std::vector<bool> columns_equal(const std::vector<std::pair<index_t, index_t>>& pairs) const {
    std::vector<index_t> own;
    std::vector<index_t> wanted;
    for (const auto& [a, b] : pairs) {
      own.push_back(a);
      (owns(b) ? own : wanted).push_back(b);
    }
    const auto sort_unique = [](std::vector<index_t>& list) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    };
    sort_unique(own);
    sort_unique(wanted);
    std::vector<index_t> requested = all_gather_values(comm_, wanted);
    sort_unique(requested);
    const std::vector<T> own_columns = block_.columns(to_local(own));
    const std::vector<T> fetched = gathered_columns(requested);
    const auto column = [&](index_t global) -> const T* {
      const std::vector<index_t>& list = owns(global) ? own : requested;
      const auto at = std::lower_bound(list.begin(), list.end(), global);
      return (owns(global) ? own_columns : fetched).data() + (at - list.begin()) * rows();
    };
    const std::size_t bytes = static_cast<std::size_t>(rows()) * sizeof(T);
    std::vector<bool> equal;
    for (const auto& [a, b] : pairs) {
      equal.push_back(std::memcmp(column(a), column(b), bytes) == 0);
    }
    return equal;
  }

  /// The columns `indices` (ascending, global), column-major, on every rank.
  std::vector<T> gathered_columns(const std::vector<index_t>& indices) const {
    return all_gather_values(comm_, block_.columns(to_local(indices)));
  }

  Block block_;
  CpuBackend<T> host_;  // the sample-space and sparse steps, on the host (no columns)
  const Communicator& comm_;
  index_t first_;
  index_t columns_;
  std::size_t hash_gather_bytes_ = std::size_t{256} << 20;
  std::uint64_t hash_mask_ = ~std::uint64_t{0};  // set_hash_bits
};

/// The CPU's distributed backend: host blocks, the one-process CpuBackend's bits.
template <class T>
class DistributedCpuBackend : public DistributedBackend<T, HostColumnBlock<T>> {
 public:
  /// `phi`: this rank's columns, global indices first ... first + phi.cols - 1 of `columns`.
  DistributedCpuBackend(MatrixView<T> phi, index_t first, index_t columns, const Communicator& comm,
                        int threads)
      : DistributedBackend<T, HostColumnBlock<T>>(HostColumnBlock<T>(phi, first, threads), columns,
                                                  comm) {}
};

static_assert(solvers::check_backend<DistributedCpuBackend<float>>());
static_assert(solvers::check_backend<DistributedCpuBackend<double>>());

}  // namespace coreset::cpu
