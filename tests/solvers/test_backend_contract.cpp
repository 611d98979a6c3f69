// The backend contract (solvers/backend.hpp) is complete: an archetype backend written from its
// text alone, as naively as the text allows (plain loops over std::vector, sums in double in
// index order, selections by sorting, duplicates by comparing every pair), runs every algorithm
// through solvers::run_algorithm to the CPU backend's coresets. Its SampleVector and
// DatapointVector are distinct types, so a driver that used one space's vector where the other's
// belongs would not compile against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/argmax.hpp"
#include "solvers/backend.hpp"
#include "solvers/line_search.hpp"
#include "solvers/run_algorithm.hpp"
#include "solvers/selection_rule.hpp"

namespace coreset {
namespace {

template <class T>
class ArchetypeBackend {
 public:
  struct SampleVector {
    std::vector<T> v;
  };
  struct DatapointVector {
    std::vector<T> v;
  };
  struct SparseDatapointVector {
    std::vector<index_t> index;
    std::vector<T> value;
  };
  using Scalar = double;

  explicit ArchetypeBackend(const Matrix<T>& phi)
      : rows_(phi.rows()), cols_(phi.cols()), phi_(phi.data(), phi.data() + rows_ * cols_) {}

  /// The archetype's own way of taking a host y (the contract leaves that to each backend).
  SampleVector sample_vector_from(const std::vector<double>& y) const {
    SampleVector out;
    for (const double value : y) {
      out.v.push_back(static_cast<T>(value));
    }
    return out;
  }

  // ---- sizes and factories ----
  static double epsilon() { return std::numeric_limits<T>::epsilon(); }
  index_t rows() const { return rows_; }
  index_t cols() const { return cols_; }
  SampleVector make_sample_vector() const { return {std::vector<T>(size(rows_), T(0))}; }
  DatapointVector make_datapoint_vector() const { return {std::vector<T>(size(cols_), T(0))}; }

  // ---- dense passes ----
  void phi_t_times(const SampleVector& r, DatapointVector& out) const {
    for (index_t j = 0; j < cols_; ++j) {
      out.v[size(j)] = column_dot(j, r);
    }
  }
  void phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
                             DatapointVector& out) const {
    std::fill(out.v.begin(), out.v.end(), T(0));
    for (const index_t j : subset) {
      out.v[size(j)] = column_dot(j, r);
    }
  }
  void phi_times_dense(const DatapointVector& v, SampleVector& out) const {
    for (index_t i = 0; i < rows_; ++i) {
      double sum = 0.0;
      for (index_t j = 0; j < cols_; ++j) {
        sum += static_cast<double>(v.v[size(j)]) * at(i, j);
      }
      out.v[size(i)] = static_cast<T>(sum);
    }
  }
  void column_sums(SampleVector& out) const {
    phi_times_dense({std::vector<T>(size(cols_), T(1))}, out);
  }
  void column_norms(DatapointVector& out) const {
    for (index_t j = 0; j < cols_; ++j) {
      double sum = 0.0;
      for (index_t i = 0; i < rows_; ++i) {
        sum += static_cast<double>(at(i, j)) * at(i, j);
      }
      out.v[size(j)] = static_cast<T>(std::sqrt(sum));
    }
  }
  std::vector<index_t> duplicate_columns() const {
    std::vector<index_t> duplicates;
    for (index_t j = 1; j < cols_; ++j) {
      for (index_t i = 0; i < j; ++i) {
        if (std::memcmp(&phi_[size(i * rows_)], &phi_[size(j * rows_)], size(rows_) * sizeof(T)) ==
            0) {
          duplicates.push_back(j);
          break;
        }
      }
    }
    return duplicates;
  }

  // ---- sparse products ----
  void phi_times(const SparseDatapointVector& v, SampleVector& out) const {
    for (index_t i = 0; i < rows_; ++i) {
      double sum = 0.0;
      for (std::size_t p = 0; p < v.index.size(); ++p) {
        sum += static_cast<double>(v.value[p]) * at(i, v.index[p]);
      }
      out.v[size(i)] = static_cast<T>(sum);
    }
  }
  void phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                      SparseDatapointVector& out) const {
    out.index = support.index;
    out.value.clear();
    for (const index_t j : support.index) {
      out.value.push_back(column_dot(j, r));
    }
  }

  // ---- selection ----
  void select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                    const SparseDatapointVector& exclude, SparseDatapointVector& out) const {
    std::vector<std::pair<T, index_t>> ranked;  // (key, index)
    for (index_t i = 0; i < cols_; ++i) {
      const T value = v.v[size(i)];
      const bool eligible = rule == solvers::SelectionRule::largest_positive
                                ? value > T(0)
                                : (value > T(0) || value < T(0));
      if (eligible && !std::binary_search(exclude.index.begin(), exclude.index.end(), i)) {
        ranked.emplace_back(std::abs(value), i);  // |value| = value for positive entries
      }
    }
    keep_top(ranked, k);
    out.index.clear();
    out.value.clear();
    for (const auto& entry : ranked) {
      out.index.push_back(entry.second);
      out.value.push_back(v.v[size(entry.second)]);
    }
  }
  void gather(const DatapointVector& v, const SparseDatapointVector& at,
              SparseDatapointVector& out) const {
    restrict_to(v, at.index, out);
  }
  void restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                         const SparseDatapointVector& b, SparseDatapointVector& out) const {
    std::vector<index_t> both;
    std::set_union(a.index.begin(), a.index.end(), b.index.begin(), b.index.end(),
                   std::back_inserter(both));
    restrict_to(v, both, out);
  }
  void zero_entries(const std::vector<index_t>& at, DatapointVector& v) const {
    for (const index_t i : at) {
      v.v[size(i)] = T(0);
    }
  }
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    static_assert((std::is_same_v<Vectors, DatapointVector> && ...), "datapoint vectors only");
    solvers::ArgMax best;
    for (index_t i = 0; i < cols_; ++i) {
      const double score = rule(static_cast<double>(v.v[size(i)])...);
      if (score > best.score) {
        best = {i, score};
      }
    }
    return best;
  }

  // ---- small sparse steps ----
  void projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
                      const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
                      SparseDatapointVector& x) const {
    std::vector<std::pair<T, index_t>> ranked;
    for (std::size_t p = 0; p < z.index.size(); ++p) {
      ranked.emplace_back(static_cast<T>(z.value[p] + step * g_on_z.value[p]), z.index[p]);
    }
    for (std::size_t p = 0; p < g_outside_z.index.size(); ++p) {
      ranked.emplace_back(static_cast<T>(step * g_outside_z.value[p]), g_outside_z.index[p]);
    }
    ranked.erase(std::remove_if(ranked.begin(), ranked.end(),
                                [](const auto& entry) { return !(entry.first > T(0)); }),
                 ranked.end());
    keep_top(ranked, k);
    x.index.clear();
    x.value.clear();
    for (const auto& entry : ranked) {
      x.index.push_back(entry.second);
      x.value.push_back(entry.first);
    }
  }
  void clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
                    SparseDatapointVector& out) const {
    out = {};
    for (std::size_t p = 0; p < x.index.size(); ++p) {
      const auto value = static_cast<T>(x.value[p] + step * g.value[p]);
      if (value > T(0)) {
        out.index.push_back(x.index[p]);
        out.value.push_back(value);
      }
    }
  }
  void extrapolate(const SparseDatapointVector& next, const SparseDatapointVector& prev, Scalar tau,
                   SparseDatapointVector& out) const {
    out = combine(next, prev, [tau](T a, T b) {
      return static_cast<T>(a + tau * (static_cast<double>(a) - static_cast<double>(b)));
    });
  }
  void subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                SparseDatapointVector& out) const {
    out = combine(a, b, [](T x, T y) { return static_cast<T>(x - y); });
  }
  void copy(const SparseDatapointVector& from, SparseDatapointVector& to) const { to = from; }
  void convex_step(const SparseDatapointVector& w, double gamma, index_t j, double vertex,
                   SparseDatapointVector& out) const {
    SparseDatapointVector unit;
    unit.index = {j};
    unit.value = {T(1)};
    out = combine(w, unit, [&](T a, T is_j) {
      return static_cast<T>((1.0 - gamma) * a + (is_j != T(0) ? gamma * vertex : 0.0));
    });
  }
  void scale(double c, const SparseDatapointVector& in, SparseDatapointVector& out) const {
    out = combine(in, {}, [c](T a, T) { return static_cast<T>(c * a); });
  }

  // ---- sample-space vector ops ----
  void subtract(const SampleVector& a, const SampleVector& b, SampleVector& out) const {
    for (std::size_t i = 0; i < a.v.size(); ++i) {
      out.v[i] = a.v[i] - b.v[i];
    }
  }
  void copy(const SampleVector& from, SampleVector& to) const { to = from; }
  void axpby(double a, const SampleVector& x, double b, const SampleVector& z,
             SampleVector& out) const {
    for (std::size_t i = 0; i < x.v.size(); ++i) {
      out.v[i] = static_cast<T>(a * x.v[i] + b * z.v[i]);
    }
  }

  // ---- datapoint-space vector ops ----
  void scale(double c, const DatapointVector& in, DatapointVector& out) const {
    const auto factor = static_cast<T>(c);
    for (std::size_t i = 0; i < in.v.size(); ++i) {
      out.v[i] = in.v[i] * factor;
    }
  }
  void fill_unit_random(DatapointVector& v, std::uint64_t seed) const {
    std::mt19937_64 generator(seed);
    std::normal_distribution<double> normal;
    double q = 0.0;
    for (T& value : v.v) {
      value = static_cast<T>(normal(generator));
      q += static_cast<double>(value) * static_cast<double>(value);
    }
    scale(1.0 / std::sqrt(q), v, v);
  }

  // ---- scalars ----
  Scalar dot(const SampleVector& a, const SampleVector& b) const { return dot_of(a.v, b.v); }
  Scalar dot(const DatapointVector& a, const DatapointVector& b) const { return dot_of(a.v, b.v); }
  Scalar squared_norm(const SparseDatapointVector& v) const { return dot_of(v.value, v.value); }
  Scalar squared_distance(const SparseDatapointVector& a, const SparseDatapointVector& b) const {
    double sum = 0.0;
    combine(a, b, [&](T x, T y) {
      const double d = static_cast<double>(x) - static_cast<double>(y);
      sum += d * d;
      return T(0);
    });
    return sum;
  }
  Scalar line_search(Scalar numerator, Scalar denominator, double factor) const {
    return solvers::guarded_step(numerator, denominator, factor);
  }
  Scalar constant(double c) const { return c; }
  Scalar value_at(const DatapointVector& v, index_t i) const { return v.v[size(i)]; }
  Scalar sum(const DatapointVector& v) const {
    double total = 0.0;
    for (const T value : v.v) {
      total += static_cast<double>(value);
    }
    return total;
  }

  // ---- host read-back ----
  double read(Scalar s) const { return s; }
  template <class... S>
  std::array<double, sizeof...(S)> read_all(S... s) const {
    return {read(s)...};
  }
  std::vector<double> to_host(const DatapointVector& v) const { return {v.v.begin(), v.v.end()}; }
  std::vector<double> to_host(const SampleVector& y) const { return {y.v.begin(), y.v.end()}; }
  std::vector<double> columns_to_host(const std::vector<index_t>& indices) const {
    std::vector<double> out;
    for (const index_t j : indices) {
      for (index_t i = 0; i < rows_; ++i) {
        out.push_back(at(i, j));
      }
    }
    return out;
  }
  void from_host(const std::vector<index_t>& index, const std::vector<double>& value,
                 SparseDatapointVector& out) const {
    out.index = index;
    out.value.clear();
    for (const double x : value) {
      out.value.push_back(static_cast<T>(x));
    }
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

 private:
  static std::size_t size(index_t i) { return static_cast<std::size_t>(i); }
  T at(index_t i, index_t j) const { return phi_[size(i + j * rows_)]; }

  T column_dot(index_t j, const SampleVector& r) const {
    double sum = 0.0;
    for (index_t i = 0; i < rows_; ++i) {
      sum += static_cast<double>(at(i, j)) * r.v[size(i)];
    }
    return static_cast<T>(sum);
  }
  static double dot_of(const std::vector<T>& a, const std::vector<T>& b) {
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
    }
    return sum;
  }
  void restrict_to(const DatapointVector& v, const std::vector<index_t>& support,
                   SparseDatapointVector& out) const {
    SparseDatapointVector result;
    result.index = support;
    for (const index_t i : support) {
      result.value.push_back(v.v[size(i)]);
    }
    out = std::move(result);
  }
  // Keeps the k entries of largest key, the lower index first among equal keys, and orders
  // them by index.
  static void keep_top(std::vector<std::pair<T, index_t>>& ranked, index_t k) {
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    ranked.resize(std::min(ranked.size(), size(k)));
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  // f(a_i, b_i) over the union of the supports (0 where absent); exact zeros leave.
  template <class F>
  static SparseDatapointVector combine(const SparseDatapointVector& a,
                                       const SparseDatapointVector& b, F f) {
    std::vector<index_t> both;
    std::set_union(a.index.begin(), a.index.end(), b.index.begin(), b.index.end(),
                   std::back_inserter(both));
    SparseDatapointVector out;
    for (const index_t i : both) {
      const T value = f(value_of(a, i), value_of(b, i));
      if (value != T(0)) {
        out.index.push_back(i);
        out.value.push_back(value);
      }
    }
    return out;
  }
  static T value_of(const SparseDatapointVector& v, index_t i) {
    const auto it = std::lower_bound(v.index.begin(), v.index.end(), i);
    return it != v.index.end() && *it == i ? v.value[static_cast<std::size_t>(it - v.index.begin())]
                                           : T(0);
  }

  index_t rows_;
  index_t cols_;
  std::vector<T> phi_;  // column-major
};

static_assert(solvers::check_backend<ArchetypeBackend<float>>());
static_assert(solvers::check_backend<ArchetypeBackend<double>>());
static_assert(!std::is_same_v<ArchetypeBackend<double>::SampleVector,
                              ArchetypeBackend<double>::DatapointVector>);

// The check is not vacuous: a type that names the vector types but has no primitive fails each
// detector, and one wrong-space argument is a miss.
struct TypesOnly {
  using SampleVector = std::vector<double>;
  using DatapointVector = std::vector<double>;
  using SparseDatapointVector = solvers::SparseVector<double>;
  using Scalar = double;
};
namespace contract = solvers::backend_contract;
static_assert(!contract::returns<TypesOnly, contract::phi_t_times_t, void>());
static_assert(!contract::returns<TypesOnly, contract::read_all_t, std::array<double, 3>>());
static_assert(!contract::returns<int, contract::phi_t_times_t, void>());
static_assert(contract::returns<ArchetypeBackend<double>, contract::phi_t_times_t, void>());
struct SwappedSpaces : ArchetypeBackend<double> {
  void phi_t_times(const DatapointVector&, SampleVector&) const {}  // hides the right one
};
static_assert(!contract::returns<SwappedSpaces, contract::phi_t_times_t, void>());

// ---- the archetype against the CPU backend ----

struct Problem {
  Matrix<double> phi;
  std::vector<double> y;
};

// A planted k-sparse problem, with one column repeated so that duplicate_columns and
// zero_entries have work to do.
Problem planted(std::uint64_t seed) {
  test::PlantedProblem planted = test::planted_problem(50, 240, 6, seed);
  const index_t copy_from = planted.support.front();
  for (index_t i = 0; i < planted.phi.rows(); ++i) {
    planted.phi(i, 239) = planted.phi(i, copy_from);
  }
  return {std::move(planted.phi), std::move(planted.y)};
}

// y = Phi 1 on a Gaussian Phi: the baselines' natural target.
Problem column_sum_target(std::uint64_t seed) {
  Matrix<double> phi = test::gaussian_matrix(40, 200, seed);
  std::vector<double> y(static_cast<std::size_t>(phi.rows()), 0.0);
  for (index_t j = 0; j < phi.cols(); ++j) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      y[static_cast<std::size_t>(i)] += phi(i, j);
    }
  }
  return {std::move(phi), std::move(y)};
}

SolveResult on_cpu(const Problem& problem, const SolverOptions& options) {
  cpu::CpuBackend<double> backend(problem.phi.view(), 1);
  auto y = backend.make_sample_vector();
  y.assign(problem.y.begin(), problem.y.end());
  return solvers::run_algorithm(backend, y, options);
}

SolveResult on_archetype(const Problem& problem, const SolverOptions& options) {
  ArchetypeBackend<double> backend(problem.phi);
  const auto y = backend.sample_vector_from(problem.y);
  return solvers::run_algorithm(backend, y, options);
}

// The backends may round sums in different orders (the contract fixes only that each is
// deterministic), so objectives and weights agree to rounding, supports and step counts exactly.
void expect_same_coreset(const SolveResult& want, const SolveResult& got, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(want.coreset.indices.empty());  // a vacuous comparison would prove nothing
  EXPECT_EQ(got.coreset.indices, want.coreset.indices);
  ASSERT_EQ(got.coreset.weights.size(), want.coreset.weights.size());
  for (std::size_t p = 0; p < want.coreset.weights.size(); ++p) {
    EXPECT_NEAR(got.coreset.weights[p], want.coreset.weights[p],
                1e-9 * std::abs(want.coreset.weights[p]));
  }
  EXPECT_NEAR(got.objective, want.objective, 1e-9 * want.target_norm * want.target_norm);
  EXPECT_NEAR(got.objective_before_refit, want.objective_before_refit,
              1e-9 * want.target_norm * want.target_norm);
  EXPECT_EQ(got.iterations, want.iterations);
  EXPECT_EQ(got.stop_reason, want.stop_reason);
  EXPECT_EQ(got.objective_history.size(), want.objective_history.size());
  EXPECT_NEAR(got.lipschitz, want.lipschitz, 1e-9 * want.lipschitz);
}

SolverOptions options_for(Algorithm algorithm, index_t k, StepRule rule = StepRule::exact) {
  SolverOptions options = test::solver_options(algorithm, k);
  options.step_rule = rule;
  options.tolerance = 1e-9;
  options.max_iterations = 200;
  options.seed = 7;
  return options;
}

class ContractIht : public ::testing::TestWithParam<test::SolverCase> {};

TEST_P(ContractIht, ArchetypeGivesTheCpuBackendsCoreset) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const Problem problem = planted(seed);
    for (const bool refit : {false, true}) {
      SolverOptions options = options_for(GetParam().algorithm, 6, GetParam().rule);
      options.refit = refit;
      expect_same_coreset(on_cpu(problem, options), on_archetype(problem, options),
                          "seed " + std::to_string(seed) + (refit ? ", refit" : ""));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithmAndRule, ContractIht, test::every_solver_case(),
                         test::solver_case_name);

TEST(Contract, BatchGradientsGiveTheCpuBackendsCoreset) {
  const Problem problem = planted(4);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    for (const double fraction : {0.25, 0.6}) {
      SolverOptions options = options_for(algorithm, 6);
      options.batch_fraction = fraction;
      const SolveResult want = on_cpu(problem, options);
      expect_same_coreset(want, on_archetype(problem, options),
                          to_string(algorithm) + " batch " + std::to_string(fraction));
    }
  }
}

TEST(Contract, BaselinesGiveTheCpuBackendsCoreset) {
  for (const std::uint64_t seed : {5u, 6u}) {
    const Problem problem = column_sum_target(seed);
    for (const Algorithm algorithm : {Algorithm::giga, Algorithm::frank_wolfe,
                                      Algorithm::importance_sampling, Algorithm::uniform}) {
      for (const bool refit : {false, true}) {
        SolverOptions options = options_for(algorithm, 25);
        options.refit = refit;
        expect_same_coreset(
            on_cpu(problem, options), on_archetype(problem, options),
            to_string(algorithm) + " seed " + std::to_string(seed) + (refit ? ", refit" : ""));
      }
    }
  }
}

// The duplicate column must not change anything, but only because both backends find it: the
// planted column and its copy tie in every selection, and the copy is never chosen.
TEST(Contract, DuplicateColumnIsFoundAndNeverChosen) {
  const Problem problem = planted(1);
  ArchetypeBackend<double> archetype(problem.phi);
  cpu::CpuBackend<double> cpu(problem.phi.view(), 1);
  EXPECT_EQ(archetype.duplicate_columns(), std::vector<index_t>{239});
  EXPECT_EQ(archetype.duplicate_columns(), cpu.duplicate_columns());
  const SolveResult result = on_archetype(problem, options_for(Algorithm::aiht, 6));
  EXPECT_EQ(std::count(result.coreset.indices.begin(), result.coreset.indices.end(), 239), 0);
}

// from_host takes a support of Phi's columns only (solvers::check_support): an index at or past
// n, a negative one, or one out of order is refused before anything reads Phi with it.
TEST(Contract, FromHostRefusesASupportOutsidePhi) {
  const Matrix<double> phi = test::gaussian_matrix<double>(4, 10, 3);
  cpu::CpuBackend<double> cpu(phi.view(), 1);
  cpu::CpuBackend<double>::SparseDatapointVector out;
  cpu.from_host({0, 4, 9}, {1.0, 2.0, 3.0}, out);  // the last column is inside
  EXPECT_EQ(out.index, (std::vector<index_t>{0, 4, 9}));
  for (const std::vector<index_t>& bad :
       std::vector<std::vector<index_t>>{{0, 10}, {-1, 3}, {3, 3}, {5, 2}, {20000}}) {
    try {
      cpu.from_host(bad, std::vector<double>(bad.size(), 1.0), out);
      ADD_FAILURE() << "support " << ::testing::PrintToString(bad) << " was taken";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("[0, 10)"), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW(cpu.from_host({1, 2}, {1.0}, out), InvalidArgument);  // a value short
}

}  // namespace
}  // namespace coreset
