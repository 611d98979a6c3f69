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
// Once per solve: duplicate_columns() sends each column's hash to the rank that examines its
// bucket (16 n / R bytes received per rank), and fill_unit_random() (iht) draws the whole stream
// on every rank, as one process would.
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

  /// Columns equal bit for bit to one of lower global index, found once per solve without any
  /// rank holding all n hashes. Each column's hash goes to the rank that examines its bucket
  /// (round hash mod rounds, rank (hash / rounds) mod R), so equal columns meet on one rank; the
  /// rounds keep what a rank receives at once to about 256 MiB (set_hash_gather_bytes) whatever n
  /// is, about 16 n / R bytes in all. There, in each group of equal hashes, every member but the
  /// first is put to its owner: is it equal to the group's first? Equality is transitive, so that
  /// one comparison settles it unless 64-bit hashes collide; the members it leaves open go back to
  /// the examining rank, which puts to their owners the group's other lower members. So a group
  /// of m copies costs m comparisons, not m^2. The lists are then gathered.
  std::vector<index_t> duplicate_columns() const {
    std::vector<std::uint64_t> hashes = block_.column_hashes();
    for (std::uint64_t& hash : hashes) {
      hash &= hash_mask_;
    }
    const auto ranks = static_cast<std::uint64_t>(comm_.size());
    // Every rank's first column: who owns a column.
    const std::vector<index_t> starts = all_gather_values(comm_, std::vector<index_t>{first_});
    // The same count on every rank: a function of n and R alone.
    const auto entry_bytes = static_cast<index_t>(sizeof(HashEntry));
    const auto budget = static_cast<index_t>(hash_gather_bytes_) * static_cast<index_t>(ranks);
    const auto rounds = static_cast<std::uint64_t>(
        std::max<index_t>(1, (columns_ * entry_bytes + budget - 1) / budget));
    std::vector<index_t> duplicates;
    for (std::uint64_t round = 0; round < rounds; ++round) {
      std::vector<std::vector<HashEntry>> to(ranks);
      for (index_t j = 0; j < local_cols(); ++j) {
        const std::uint64_t hash = hashes[static_cast<std::size_t>(j)];
        if (hash % rounds == round) {
          to[(hash / rounds) % ranks].push_back({hash, first_ + j});
        }
      }
      // Each rank's columns in ascending order, the ranks in order: ascending global index.
      find_copies(concatenated(support::all_to_all_values(comm_, to)), starts, duplicates);
    }
    std::sort(duplicates.begin(), duplicates.end());
    duplicates.erase(std::unique(duplicates.begin(), duplicates.end()), duplicates.end());
    return all_gather_values(comm_, duplicates);
  }

  /// The most bytes of column hashes duplicate_columns() sends a rank in one round (about
  /// 256 MiB; tests lower it to make several rounds of few columns).
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
    solvers::assign_support(index, value, cols(), out);  // global indices: not host_'s 0 columns
  }
  Coreset to_coreset(const SparseDatapointVector& w) const { return host_.to_coreset(w); }

 private:
  struct HashEntry {
    std::uint64_t hash;
    index_t index;  // global
  };

  /// A column and a lower one it may equal (plain, so that it crosses ranks as bytes).
  struct ColumnPair {
    index_t column;
    index_t other;
  };

  /// One round of duplicate_columns(): `entries` are this rank's bucket, every rank's columns
  /// in it in ascending global index; `starts` every rank's first column. The copies among this
  /// rank's own columns (wherever their buckets were) are appended to `duplicates`. Three
  /// exchanges and two comparisons, each a collective that every rank takes.
  void find_copies(std::vector<HashEntry> entries, const std::vector<index_t>& starts,
                   std::vector<index_t>& duplicates) const {
    const auto ranks = static_cast<std::size_t>(comm_.size());
    const auto owner = [&](index_t global) {
      return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), global) -
                                      starts.begin() - 1);
    };
    // Grouped by hash, ascending index within a group.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const HashEntry& a, const HashEntry& b) { return a.hash < b.hash; });
    std::vector<std::size_t> group_start(entries.size());  // each entry's group's first position
    std::vector<std::vector<ColumnPair>> ask(ranks);
    for (std::size_t p = 0; p < entries.size();) {
      std::size_t q = p + 1;
      while (q < entries.size() && entries[q].hash == entries[p].hash) {
        ++q;
      }
      for (std::size_t a = p; a < q; ++a) {
        group_start[a] = p;
        if (a > p) {
          ask[owner(entries[a].index)].push_back({entries[a].index, entries[p].index});
        }
      }
      p = q;
    }
    // At the owners: each column against its group's first; the unequal ones (collisions) go
    // back to the rank that asked.
    const std::vector<std::vector<ColumnPair>> asked = support::all_to_all_values(comm_, ask);
    const std::vector<bool> equal = columns_equal(concatenated(asked));
    std::vector<std::vector<index_t>> open(ranks);
    std::size_t answer = 0;
    for (std::size_t from = 0; from < ranks; ++from) {
      for (const ColumnPair& pair : asked[from]) {
        if (equal[answer++]) {
          duplicates.push_back(pair.column);
        } else {
          open[from].push_back(pair.column);
        }
      }
    }
    // Back here: each open column against its group's other lower members, at its owner.
    std::vector<std::pair<index_t, std::size_t>> position;  // (column, its place), by column
    for (std::size_t p = 0; p < entries.size(); ++p) {
      position.emplace_back(entries[p].index, p);
    }
    std::sort(position.begin(), position.end());
    std::vector<std::vector<ColumnPair>> ask_again(ranks);
    for (const index_t column : concatenated(support::all_to_all_values(comm_, open))) {
      const std::size_t at =
          std::lower_bound(position.begin(), position.end(), std::make_pair(column, std::size_t{0}))
              ->second;
      for (std::size_t b = group_start[at] + 1; b < at; ++b) {
        ask_again[owner(column)].push_back({column, entries[b].index});
      }
    }
    const std::vector<ColumnPair> asked_again =
        concatenated(support::all_to_all_values(comm_, ask_again));
    const std::vector<bool> equal_again = columns_equal(asked_again);
    for (std::size_t c = 0; c < asked_again.size(); ++c) {
      if (equal_again[c]) {
        duplicates.push_back(asked_again[c].column);
      }
    }
  }

  template <class V>
  static std::vector<V> concatenated(const std::vector<std::vector<V>>& parts) {
    std::vector<V> all;
    for (const std::vector<V>& part : parts) {
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
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
  std::vector<bool> columns_equal(const std::vector<ColumnPair>& pairs) const {
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
