// The CPU backend: the primitives of the backend contract (solvers/backend.hpp, which states
// their semantics) on host memory, with Eigen for the vector kernels and OpenMP over columns for
// the dense passes. It is the reference every other backend is tested against, so it favours
// plain, checkable code over cleverness.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>
#include "support/eigen.hpp"

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/select_top_k.hpp"
#include "solvers/argmax.hpp"
#include "solvers/backend.hpp"
#include "solvers/line_search.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/sparse_steps.hpp"
#include "solvers/sparse_vector.hpp"
#include "solvers/stopping_rule.hpp"

namespace coreset::cpu {

/// The power iteration's random start (backend.hpp, fill_unit_random): g_i = T(the i-th draw of
/// std::normal_distribution<double> driven by std::mt19937_64(seed)), i = 0 ... n - 1, each handed
/// to keep(i, g_i) in index order; returns 1 / sqrt(sum of double(g_i)^2 in index order), the
/// factor that makes the vector a unit one. Every draw is made: they come in pairs, so none can
/// be skipped, and a rank holding only some of the entries needs the whole sum anyway.
template <class T, class Keep>
double draw_unit_random(index_t n, std::uint64_t seed, Keep&& keep) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  double norm_sq = 0.0;
  for (index_t i = 0; i < n; ++i) {
    const T value = static_cast<T>(normal(generator));
    norm_sq += static_cast<double>(value) * value;
    keep(i, value);
  }
  return 1.0 / std::sqrt(norm_sq);
}

template <class T>
class CpuBackend {
 public:
  // One type for both spaces: the drivers never mix them up (backend.hpp's check and the
  // archetype of tests/solvers/test_backend_contract.cpp, whose types differ, make sure).
  using SampleVector = std::vector<T>;
  using DatapointVector = std::vector<T>;
  using SparseDatapointVector = solvers::SparseVector<T>;
  using Scalar = double;  // scalars accumulate in double even for float data

  CpuBackend(MatrixView<T> phi, int threads) : phi_(phi), threads_(std::max(1, threads)) {}

  /// The unit roundoff of the data: the baselines scale their degeneracy tests by it.
  static constexpr double epsilon() { return std::numeric_limits<T>::epsilon(); }

  index_t rows() const noexcept { return phi_.rows; }
  index_t cols() const noexcept { return phi_.cols; }
  int threads() const noexcept { return threads_; }
  /// The threads a dense pass over this Phi uses: 1 where waking a team costs more than it saves.
  int pass_threads() const noexcept { return worth_threads() ? threads_ : 1; }
  /// The threads a sparse product over `columns` columns uses (add_phi_times): its exact adds
  /// cost some 30 multiply-adds each, so a team pays off 32 times sooner than for a pass.
  int product_threads(index_t columns) const noexcept {
    return worth_threads_on(columns * 32) ? threads_ : 1;
  }
  SampleVector make_sample_vector() const {
    return SampleVector(static_cast<std::size_t>(rows()), T(0));
  }
  DatapointVector make_datapoint_vector() const {
    return DatapointVector(static_cast<std::size_t>(cols()), T(0));
  }

  // ---- dense passes: O(nS) ----

  /// out = Phi^T r: one read of Phi, columns split over the threads. Each entry is
  /// fixed_order_dot (datapoint_sums.hpp): its bits depend on column j and r alone.
  void phi_t_times(const SampleVector& r, DatapointVector& out) const {
    const index_t n = cols();
#pragma omp parallel for num_threads(threads_) schedule(static) if (worth_threads())
    for (index_t j = 0; j < n; ++j) {
      out[static_cast<std::size_t>(j)] = column_dot(j, r);
    }
  }

  /// out = Phi^T r on the columns in `subset` (ascending, distinct) and 0 elsewhere: the batch
  /// gradient of spec 2.6. Reads only those columns; each entry is one column's dot product,
  /// computed by one thread, so the result does not depend on the thread count.
  void phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
                             DatapointVector& out) const {
    std::fill(out.begin(), out.end(), T(0));
    const auto m = static_cast<index_t>(subset.size());
#pragma omp parallel for num_threads(threads_) schedule(static) if (worth_threads_on(m))
    for (index_t p = 0; p < m; ++p) {
      const index_t j = subset[static_cast<std::size_t>(p)];
      out[static_cast<std::size_t>(j)] = column_dot(j, r);
    }
  }

  /// out = Phi v for a dense v: exact sums of fixed blocks' double sums (add_phi_times_dense in
  /// datapoint_sums.hpp), rounded once, so neither the thread count nor a split of the columns
  /// over ranks changes a bit.
  void phi_times_dense(const DatapointVector& v, SampleVector& out) const {
    ExactSums sums(static_cast<std::size_t>(rows()));
    add_phi_times_dense(phi_, 0, v.data(), sums, pass_threads());
    round_into(sums, out);
  }

  /// out = Phi 1, the default target y.
  void column_sums(SampleVector& out) const {
    phi_times_dense(DatapointVector(static_cast<std::size_t>(cols()), T(1)), out);
  }

  // ---- sparse products: O(|supp| S) ----

  /// out = Phi v over the support of v: each entry the exact sum of its products in double,
  /// rounded once.
  void phi_times(const SparseDatapointVector& v, SampleVector& out) const {
    ExactSums sums(static_cast<std::size_t>(rows()));
    add_phi_times(phi_, 0, v, sums, product_threads(v.size()));
    round_into(sums, out);
  }

  /// out = (Phi^T r) restricted to supp(support).
  void phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                      SparseDatapointVector& out) const {
    out.index = support.index;
    out.value.resize(support.index.size());
    for (std::size_t p = 0; p < support.index.size(); ++p) {
      out.value[p] = column_dot(support.index[p], r);
    }
  }

  // ---- selection: O(n) ----

  void select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                    const SparseDatapointVector& exclude, SparseDatapointVector& out) const {
    cpu::select_top_k(v.data(), cols(), k, rule, exclude.index, out.index, threads_);
    gather_values(v, out);
  }

  /// out = v restricted to supp(at).
  void gather(const DatapointVector& v, const SparseDatapointVector& at,
              SparseDatapointVector& out) const {
    out.index = at.index;
    gather_values(v, out);
  }

  /// out = v restricted to supp(a) united with supp(b).
  void restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                         const SparseDatapointVector& b, SparseDatapointVector& out) const {
    out.index.clear();
    std::set_union(a.index.begin(), a.index.end(), b.index.begin(), b.index.end(),
                   std::back_inserter(out.index));
    gather_values(v, out);
  }

  // ---- small sparse steps: O(k) ----

  /// x = Pi_{C_k and R+}(z + step * g). `g_on_z` holds g on supp(z); `g_outside_z` holds the
  /// largest positive entries of g outside supp(z), which are the only other candidates.
  void projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
                      const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
                      SparseDatapointVector& x) const {
    SparseDatapointVector candidates;
    std::size_t a = 0;
    std::size_t b = 0;
    while (a < z.index.size() || b < g_outside_z.index.size()) {
      const bool take_z = b == g_outside_z.index.size() ||
                          (a < z.index.size() && z.index[a] < g_outside_z.index[b]);
      if (take_z) {
        candidates.push_back(z.index[a], solvers::step_from(z.value[a], step, g_on_z.value[a]));
        ++a;
      } else {
        candidates.push_back(g_outside_z.index[b],
                             solvers::step_outside(step, g_outside_z.value[b]));
        ++b;
      }
    }
    // Candidates are in index order, so ranking their positions breaks ties by index too.
    std::vector<index_t> kept;
    cpu::select_top_k(candidates.value.data(), candidates.size(), k,
                      solvers::SelectionRule::largest_positive, {}, kept, 1);
    x.clear();
    for (const index_t position : kept) {
      x.push_back(candidates.index[static_cast<std::size_t>(position)],
                  candidates.value[static_cast<std::size_t>(position)]);
    }
  }

  /// out = Pi_{R+}(x + step * g) on supp(x) (g shares x's support); zeros leave the support.
  void clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
                    SparseDatapointVector& out) const {
    out.clear();
    for (std::size_t p = 0; p < x.index.size(); ++p) {
      const T value = solvers::step_from(x.value[p], step, g.value[p]);
      if (value > T(0)) {
        out.push_back(x.index[p], value);
      }
    }
  }

  /// out = next + tau (next - prev) over the union of supports; exact zeros leave the support.
  void extrapolate(const SparseDatapointVector& next, const SparseDatapointVector& prev, Scalar tau,
                   SparseDatapointVector& out) const {
    out.clear();
    merge(next, prev, [&](index_t i, T a, T b) {
      const T value = solvers::extrapolated(a, b, tau);
      if (value != T(0)) {
        out.push_back(i, value);
      }
    });
  }

  void subtract(const SampleVector& a, const SampleVector& b, SampleVector& out) const {
    map(out) = map(a) - map(b);
  }
  /// out = a - b over the union of supports; exact zeros leave the support.
  void subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                SparseDatapointVector& out) const {
    out.clear();
    merge(a, b, [&](index_t i, T x, T y) {
      const T value = solvers::difference(x, y);
      if (value != T(0)) {
        out.push_back(i, value);
      }
    });
  }

  void copy(const SparseDatapointVector& from, SparseDatapointVector& to) const {
    to = from;
  }
  void copy(const SampleVector& from, SampleVector& to) const {
    to = from;
  }
  void scale(double c, const DatapointVector& in, DatapointVector& out) const {
    map(out) = map(in) * static_cast<T>(c);
  }

  // ---- scalars ----

  /// <a, b>, exactly rounded (datapoint_sums.hpp: a split over ranks gives the same bits).
  Scalar dot(const SampleVector& a, const SampleVector& b) const {
    support::ExactSum sum;
    add_dot(a.data(), b.data(), static_cast<index_t>(a.size()), sum);
    return sum.value();
  }
  Scalar squared_norm(const SparseDatapointVector& v) const {
    double sum = 0.0;
    for (const T value : v.value) {
      sum += static_cast<double>(value) * value;
    }
    return sum;
  }
  Scalar squared_distance(const SparseDatapointVector& a, const SparseDatapointVector& b) const {
    double sum = 0.0;
    merge(a, b, [&](index_t, T x, T y) {
      const double d = static_cast<double>(x) - y;
      sum += d * d;
    });
    return sum;
  }
  Scalar line_search(Scalar numerator, Scalar denominator, double factor) const {
    return solvers::guarded_step(numerator, denominator, factor);
  }
  Scalar constant(double c) const {
    return c;
  }
  double read(Scalar s) const {
    return s;
  }
  template <class... S>
  std::array<double, sizeof...(S)> read_all(S... s) const {
    return {static_cast<double>(s)...};
  }

  // ---- the baselines (solvers/baselines/): norms, greedy selection, host transfers ----

  /// out = (||Phi_1||, ..., ||Phi_n||): one read of Phi. Each norm is summed in double by one
  /// thread alone, so the thread count cannot change it.
  void column_norms(DatapointVector& out) const {
    const index_t n = cols();
#pragma omp parallel for num_threads(threads_) schedule(static) if (worth_threads())
    for (index_t j = 0; j < n; ++j) {
      out[static_cast<std::size_t>(j)] =
          static_cast<T>(std::sqrt(fixed_order_squared_norm(phi_.column(j), rows())));
    }
  }

  /// The columns equal, entry for entry (bit for bit), to a column of lower index, ascending:
  /// copies of a datapoint. One pass over Phi (a hash per column, each by one thread), then an
  /// exact comparison within each group of equal hashes, so the result is exact and does not
  /// depend on the thread count.
  std::vector<index_t> duplicate_columns() const {
    const index_t n = cols();
    const std::size_t bytes = static_cast<std::size_t>(rows()) * sizeof(T);
    std::vector<std::uint64_t> hash(static_cast<std::size_t>(n));
#pragma omp parallel for num_threads(threads_) schedule(static) if (worth_threads())
    for (index_t j = 0; j < n; ++j) {
      hash[static_cast<std::size_t>(j)] = column_hash(j);
    }
    std::vector<index_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), index_t{0});
    std::sort(order.begin(), order.end(), [&](index_t a, index_t b) {
      const auto ha = hash[static_cast<std::size_t>(a)];
      const auto hb = hash[static_cast<std::size_t>(b)];
      return ha != hb ? ha < hb : a < b;
    });
    std::vector<index_t> duplicates;
    std::vector<index_t> kept;  // the distinct columns of the current group of equal hashes
    for (std::size_t p = 0; p < order.size(); ++p) {
      if (p == 0 || hash[static_cast<std::size_t>(order[p])] !=
                        hash[static_cast<std::size_t>(order[p - 1])]) {
        kept.clear();
      }
      const index_t j = order[p];
      const bool copy = std::any_of(kept.begin(), kept.end(), [&](index_t i) {
        return std::memcmp(phi_.column(i), phi_.column(j), bytes) == 0;
      });
      if (copy) {
        duplicates.push_back(j);
      } else {
        kept.push_back(j);
      }
    }
    std::sort(duplicates.begin(), duplicates.end());
    return duplicates;
  }

  /// v[i] = 0 for every i in `at`.
  void zero_entries(const std::vector<index_t>& at, DatapointVector& v) const {
    for (const index_t i : at) {
      v[static_cast<std::size_t>(i)] = T(0);
    }
  }

  /// The index i maximising rule(v[i]...), the score taken in double, and that score; ties go
  /// to the lower index, NaN and -infinity never win (index -1 when nothing scores higher).
  /// Fixed blocks, each scanned by one thread, are reduced in block order: the result does not
  /// depend on the thread count. O(n).
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    constexpr index_t kBlock = 4096;
    const index_t n = cols();
    const index_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<solvers::ArgMax> best(static_cast<std::size_t>(blocks));
#pragma omp parallel for num_threads(threads_) \
    schedule(static) if (threads_ > 1 && n >= (index_t{1} << 16))
    for (index_t b = 0; b < blocks; ++b) {
      solvers::ArgMax local;
      const index_t end = std::min(n, (b + 1) * kBlock);
      for (index_t i = b * kBlock; i < end; ++i) {
        const double score = rule(v[static_cast<std::size_t>(i)]...);
        if (score > local.score) {  // strict: the lower index keeps a tie
          local = {i, score};
        }
      }
      best[static_cast<std::size_t>(b)] = local;
    }
    solvers::ArgMax result;
    for (const solvers::ArgMax& candidate : best) {
      result = solvers::better(result, candidate);
    }
    return result;
  }

  /// v[i], e.g. the chosen point's entry of a dense pass.
  Scalar value_at(const DatapointVector& v, index_t i) const {
    return static_cast<double>(v[static_cast<std::size_t>(i)]);
  }

  /// The sum of v's entries, exactly rounded.
  Scalar sum(const DatapointVector& v) const {
    support::ExactSum total;
    add_sum(v.data(), static_cast<index_t>(v.size()), total);
    return total.value();
  }

  /// A copy of v on the host, in double (the samplers draw on the host: every backend sees the
  /// same draws). Also takes a SampleVector (the refit's y): both are std::vector<T> here.
  std::vector<double> to_host(const DatapointVector& v) const {
    return std::vector<double>(v.begin(), v.end());
  }

  /// The columns `indices` of Phi on the host, in double, column-major (S x |indices|): the
  /// refit's small least-squares problem (solvers/refit.hpp).
  std::vector<double> columns_to_host(const std::vector<index_t>& indices) const {
    std::vector<double> out;
    out.reserve(indices.size() * static_cast<std::size_t>(rows()));
    for (const index_t j : indices) {
      out.insert(out.end(), phi_.column(j), phi_.column(j) + rows());
    }
    return out;
  }

  /// A sparse vector from host arrays (indices strictly ascending).
  void from_host(const std::vector<index_t>& index, const std::vector<double>& value,
                 SparseDatapointVector& out) const {
    solvers::assign_support(index, value, cols(), out);
  }

  /// out = (1 - gamma) w + gamma * vertex * 1_j, the greedy step of GIGA and Frank-Wolfe; exact
  /// zeros leave the support. `out` must not be `w`.
  void convex_step(const SparseDatapointVector& w, Scalar gamma, index_t j, Scalar vertex,
                   SparseDatapointVector& out) const {
    assert(&w != &out);
    SparseDatapointVector unit;
    unit.push_back(j, T(1));
    out.clear();
    merge(w, unit, [&](index_t i, T a, T b) {
      const T value = solvers::convex_combination(a, gamma, b != T(0), vertex);
      if (value != T(0)) {
        out.push_back(i, value);
      }
    });
  }

  /// out = c * in (in may be out); entries that round to zero leave the support.
  void scale(double c, const SparseDatapointVector& in, SparseDatapointVector& out) const {
    SparseDatapointVector result;
    for (std::size_t p = 0; p < in.index.size(); ++p) {
      const T value = solvers::scaled(c, in.value[p]);
      if (value != T(0)) {
        result.push_back(in.index[p], value);
      }
    }
    out = std::move(result);
  }

  /// out = a x + b z for S-vectors, in double before the final rounding (out may be x or z).
  void axpby(double a, const SampleVector& x, double b, const SampleVector& z,
             SampleVector& out) const {
    map(out) = (a * map(x).template cast<double>() + b * map(z).template cast<double>())
                   .template cast<T>();
  }

  // ---- tracked loops (solvers/backend.hpp: optional) ----
  // Here the numbers are already on the host, so tracking saves nothing (sync_every = 0 means
  // 1); it exists so that the tracked loop runs, and is tested, on every machine.

  static constexpr bool records_work = false;
  struct LoopTracker {
    solvers::LoopState state;
    std::vector<double> history;  // f after iteration t at (t - 1) mod its size
    SparseDatapointVector stopped;
    int max_iterations = 0;
    double tolerance = 0.0;
  };
  using Recording = std::function<void()>;

  LoopTracker make_loop_tracker(int done, bool z_equals_w, int max_iterations, double tolerance,
                                index_t /*k*/, int capacity) const {
    LoopTracker tracker;
    tracker.state.iterations = done;
    tracker.state.z_equals_w = z_equals_w ? 1 : 0;
    tracker.history.assign(static_cast<std::size_t>(capacity), 0.0);
    tracker.max_iterations = max_iterations;
    tracker.tolerance = tolerance;
    return tracker;
  }
  void track(LoopTracker& tracker, Scalar f, Scalar change_squared, Scalar size_squared,
             const SparseDatapointVector& w) const {
    solvers::track_iteration(tracker.state, f, change_squared, size_squared, tracker.tolerance,
                             tracker.max_iterations, tracker.history.data(),
                             static_cast<int>(tracker.history.size()));
    if (tracker.state.just_stopped != 0) {
      tracker.stopped = w;
    }
  }
  solvers::LoopLook read(const LoopTracker& tracker) const {
    return {tracker.state, tracker.history};
  }
  const SparseDatapointVector& stopped_iterate(const LoopTracker& tracker) const {
    return tracker.stopped;
  }
  /// The body itself: a replay runs it, host code and all.
  template <class Body>
  Recording record(Body body) const {
    return Recording(std::move(body));
  }
  void replay(const Recording& recording, int times) const {
    for (int i = 0; i < times; ++i) {
      recording();
    }
  }

  // ---- setup and results ----

  /// A unit vector of Gaussian entries from a seeded generator (the power iteration's start).
  void fill_unit_random(DatapointVector& v, std::uint64_t seed) const {
    const double factor = draw_unit_random<T>(
        cols(), seed, [&](index_t i, T g) { v[static_cast<std::size_t>(i)] = g; });
    scale(factor, v, v);
  }

  Coreset to_coreset(const SparseDatapointVector& w) const {
    Coreset coreset;
    for (std::size_t p = 0; p < w.index.size(); ++p) {
      if (w.value[p] > T(0)) {
        coreset.indices.push_back(w.index[p]);
        coreset.weights.push_back(static_cast<double>(w.value[p]));
      }
    }
    return coreset;
  }

  /// <Phi_j, r> (fixed_order_dot): the one formula of every gradient entry.
  T column_dot(index_t j, const SampleVector& r) const {
    return fixed_order_dot(phi_.column(j), r.data(), rows());
  }

  /// FNV-1a of column j's bytes: duplicate_columns()'s grouping, on any backend over the host.
  std::uint64_t column_hash(index_t j) const {
    const auto* byte = reinterpret_cast<const unsigned char*>(phi_.column(j));
    const std::size_t bytes = static_cast<std::size_t>(rows()) * sizeof(T);
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t b = 0; b < bytes; ++b) {
      h = (h ^ byte[b]) * 0x100000001b3ULL;
    }
    return h;
  }

  MatrixView<T> phi() const noexcept {
    return phi_;
  }

 private:
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  static Eigen::Map<const Vector> map(const std::vector<T>& v) {
    return {v.data(), static_cast<Eigen::Index>(v.size())};
  }
  static Eigen::Map<Vector> map(std::vector<T>& v) {
    return {v.data(), static_cast<Eigen::Index>(v.size())};
  }

  // Waking a thread team costs microseconds; below about a million entries of Phi one thread
  // finishes a pass sooner (and oversubscribed test runs stay fast).
  bool worth_threads() const noexcept {
    return worth_threads_on(phi_.cols);
  }
  bool worth_threads_on(index_t columns) const noexcept {
    return threads_ > 1 && phi_.rows * columns >= (index_t{1} << 20);
  }

  static void gather_values(const DatapointVector& v, SparseDatapointVector& out) {
    out.value.resize(out.index.size());
    for (std::size_t p = 0; p < out.index.size(); ++p) {
      out.value[p] = v[static_cast<std::size_t>(out.index[p])];
    }
  }

  // Visits the union of two supports in index order with both values (0 where absent).
  template <class Visit>
  static void merge(const SparseDatapointVector& a, const SparseDatapointVector& b, Visit&& visit) {
    std::size_t p = 0;
    std::size_t q = 0;
    while (p < a.index.size() || q < b.index.size()) {
      if (q == b.index.size() || (p < a.index.size() && a.index[p] < b.index[q])) {
        visit(a.index[p], a.value[p], T(0));
        ++p;
      } else if (p == a.index.size() || b.index[q] < a.index[p]) {
        visit(b.index[q], T(0), b.value[q]);
        ++q;
      } else {
        visit(a.index[p], a.value[p], b.value[q]);
        ++p;
        ++q;
      }
    }
  }

  MatrixView<T> phi_;
  int threads_;
};

static_assert(solvers::check_backend<CpuBackend<float>>());
static_assert(solvers::check_backend<CpuBackend<double>>());

}  // namespace coreset::cpu
