// The driver against a deliberately plain, dense transcription of spec 2.2-2.4: the same iterates
// w_1, w_2, ... to rounding, for every algorithm and step rule. Planted-recovery tests converge
// even with a wrong factor or a de-bias step at the wrong point; this one does not. A spy backend
// then checks the invariants of spec T7 and the one-dense-pass-per-iteration cost.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/solver_cases.hpp"
#include "solvers/iht_driver.hpp"

namespace coreset {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Pi_{C_k and R+}: the k largest positive entries (ties: lower index), zero elsewhere.
VectorXd project_sparse_nonnegative(const VectorXd& v, index_t k) {
  std::vector<index_t> order(v.size());
  std::iota(order.begin(), order.end(), index_t{0});
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return v[a] > v[b]; });
  VectorXd out = VectorXd::Zero(v.size());
  for (index_t p = 0; p < std::min<index_t>(k, v.size()) && v[order[p]] > 0; ++p) {
    out[order[p]] = v[order[p]];
  }
  return out;
}

// The index set supp(Pi_{C_k \ Z}(v)): the k largest non-zero |entries| outside Z.
std::vector<index_t> top_magnitude_outside(const VectorXd& v, index_t k, const VectorXd& z) {
  std::vector<index_t> order;
  for (index_t i = 0; i < v.size(); ++i) {
    if (z[i] == 0.0 && v[i] != 0.0) {
      order.push_back(i);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t b) { return std::abs(v[a]) > std::abs(v[b]); });
  order.resize(std::min<std::size_t>(order.size(), static_cast<std::size_t>(k)));
  return order;
}

VectorXd restrict_to(const VectorXd& v, const std::vector<bool>& keep) {
  VectorXd out = VectorXd::Zero(v.size());
  for (index_t i = 0; i < v.size(); ++i) {
    out[i] = keep[i] ? v[i] : 0.0;
  }
  return out;
}

// Spec 2.2-2.4 in the papers' own notation: grad f = -2 Phi^T (y - Phi w), mu = argmin, ...
std::vector<VectorXd> reference_iterates(const MatrixXd& phi, const VectorXd& y, index_t k,
                                         Algorithm algorithm, StepRule rule, double lipschitz,
                                         int iterations) {
  const double gradient_factor = rule == StepRule::reference ? 0.5 : 1.0;
  const double momentum_factor = rule == StepRule::paper ? 0.5 : 1.0;
  auto grad = [&](const VectorXd& w) -> VectorXd { return -2.0 * phi.transpose() * (y - phi * w); };
  const index_t n = phi.cols();
  VectorXd w = VectorXd::Zero(n), z = VectorXd::Zero(n);
  std::vector<VectorXd> trace;
  for (int t = 0; t < iterations; ++t) {
    VectorXd w_next;
    if (algorithm == Algorithm::iht) {
      w_next = project_sparse_nonnegative(w - grad(w) / lipschitz, k);
    } else {
      const VectorXd g = grad(z);
      std::vector<bool> in_s(n, false);
      for (index_t i = 0; i < n; ++i) {
        in_s[i] = z[i] != 0.0;
      }
      for (const index_t i : top_magnitude_outside(g, k, z)) {
        in_s[i] = true;
      }
      const VectorXd g1 = restrict_to(g, in_s);
      const double mu1 = gradient_factor * g1.squaredNorm() / (2.0 * (phi * g1).squaredNorm());
      const VectorXd x = project_sparse_nonnegative(z - mu1 * g, k);
      w_next = x;
      if (algorithm == Algorithm::aiht2) {
        std::vector<bool> in_x(n);
        for (index_t i = 0; i < n; ++i) {
          in_x[i] = x[i] != 0.0;
        }
        const VectorXd g2 = restrict_to(grad(x), in_x);
        const double mu2 = gradient_factor * g2.squaredNorm() / (2.0 * (phi * g2).squaredNorm());
        w_next = (x - mu2 * g2).cwiseMax(0.0);
      }
      const VectorXd d = w_next - w;
      const double tau =
          momentum_factor * (y - phi * w_next).dot(phi * d) / (phi * d).squaredNorm();
      z = w_next + tau * d;
    }
    w = w_next;
    trace.push_back(w);
  }
  return trace;
}

VectorXd dense(const Coreset& c, index_t n) {
  VectorXd w = VectorXd::Zero(n);
  for (std::size_t p = 0; p < c.indices.size(); ++p) {
    w[c.indices[p]] = c.weights[p];
  }
  return w;
}

class Trajectory : public ::testing::TestWithParam<test::SolverCase> {};

TEST_P(Trajectory, IteratesMatchTheSpecTranscription) {
  const auto [algorithm, rule] = GetParam();
  // Noisy target, k below the number of useful columns: the support keeps changing early on.
  const Matrix<double> phi = test::gaussian_matrix(25, 40, 3);
  std::vector<double> y(25, 0.0);
  for (index_t j = 0; j < 40; ++j) {
    for (index_t i = 0; i < 25; ++i) {
      y[i] += phi(i, j) * (1.0 + 0.3 * ((i + j) % 3));
    }
  }
  const MatrixXd phi_dense = Eigen::Map<const MatrixXd>(phi.data(), 25, 40);
  const VectorXd y_dense = Eigen::Map<const VectorXd>(y.data(), 25);
  const index_t k = 6;
  SolverOptions options;
  options.algorithm = algorithm;
  options.step_rule = rule;
  options.k = k;
  options.tolerance = 0.0;
  options.max_iterations = 1;
  const double lipschitz = solve(phi.view(), y.data(), options).lipschitz;
  const int iterations = 8;
  const auto expected =
      reference_iterates(phi_dense, y_dense, k, algorithm, rule, lipschitz, iterations);
  for (int t = 1; t <= iterations; ++t) {
    options.max_iterations = t;
    const SolveResult result = solve(phi.view(), y.data(), options);
    ASSERT_EQ(result.iterations, t);
    if (algorithm == Algorithm::iht) {
      ASSERT_EQ(result.lipschitz, lipschitz)
          << "a step was retaken; the comparison needs a fixed L";
    }
    const VectorXd got = dense(result.coreset, 40);
    const VectorXd& want = expected[static_cast<std::size_t>(t - 1)];
    EXPECT_LE((got - want).norm(), 1e-10 * (1.0 + want.norm())) << "iteration " << t << "\n"
                                                                << got.transpose() << "\n"
                                                                << want.transpose();
    EXPECT_NEAR(result.objective, (y_dense - phi_dense * want).squaredNorm(),
                1e-10 * (1.0 + result.objective));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithmAndRule, Trajectory, test::every_solver_case(),
                         test::solver_case_name);

// Forwards to the CPU backend and records what the driver asks of it.
class SpyBackend : public cpu::CpuBackend<double> {
 public:
  using Base = cpu::CpuBackend<double>;
  using Base::Base;

  void phi_t_times(const SampleVector& r, DatapointVector& out) {
    ++dense_passes;
    Base::phi_t_times(r, out);
  }
  void phi_times(const SparseDatapointVector& v, SampleVector& out) {
    max_product_columns = std::max(max_product_columns, v.size());
    Base::phi_times(v, out);
  }
  void restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                         const SparseDatapointVector& b, SparseDatapointVector& out) {
    max_z_support = std::max(max_z_support, a.size());
    Base::restrict_to_union(v, a, b, out);
    max_expanded_support = std::max(max_expanded_support, out.size());
  }
  void projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
                      const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
                      SparseDatapointVector& x) {
    Base::projected_step(z, g_on_z, g_outside_z, step, k, x);
    last_x = x.index;
  }
  void clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
                    SparseDatapointVector& out) {
    Base::clamped_step(x, step, g, out);
    debias_stays_inside &=
        std::includes(x.index.begin(), x.index.end(), out.index.begin(), out.index.end());
    for (const double value : out.value) {
      debias_stays_inside &= value > 0.0;
    }
  }

  int dense_passes = 0;
  index_t max_product_columns = 0;
  index_t max_z_support = 0;
  index_t max_expanded_support = 0;
  std::vector<index_t> last_x;
  bool debias_stays_inside = true;
};

TEST(DriverInvariants, OneDensePassPerIterationAndBoundedSupports) {
  const Matrix<double> phi = test::gaussian_matrix(60, 500, 5);
  std::vector<double> y(60, 0.0);
  cpu::CpuBackend<double>(phi.view(), 1).column_sums(y);
  for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
    const index_t k = 15;
    SolverOptions options;
    options.algorithm = algorithm;
    options.k = k;
    options.tolerance = 0.0;
    options.max_iterations = 40;
    SpyBackend spy(phi.view(), 1);
    solvers::IhtDriver<SpyBackend> driver(spy, y, options);
    const SolveResult result = driver.run();
    EXPECT_EQ(spy.dense_passes, result.iterations) << to_string(algorithm);
    EXPECT_LE(spy.max_z_support, 2 * k);
    EXPECT_LE(spy.max_expanded_support, 3 * k);
    EXPECT_LE(spy.max_product_columns, 3 * k);
    EXPECT_LE(result.coreset.size(), k);
    EXPECT_TRUE(spy.debias_stays_inside);
    EXPECT_GT(spy.max_z_support, k);  // momentum really mixes two supports
  }
}

// Near convergence the momentum's line search divides two tiny numbers; computed from
// differences of products it turned into rounding noise and tau exploded. Running far past
// convergence must neither blow up tau (f would jump) nor lose the best objective.
TEST(DriverInvariants, RunningPastConvergenceKeepsTheObjective) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const Matrix<double> phi = test::gaussian_matrix(100, 2000, seed);
    for (const Algorithm algorithm : {Algorithm::aiht, Algorithm::aiht2}) {
      SolverOptions options;
      options.algorithm = algorithm;
      options.k = 50;
      options.tolerance = 0.0;
      options.max_iterations = 1500;
      const SolveResult result = solve(phi.view(), nullptr, options);
      const auto& history = result.objective_history;
      const double best = *std::min_element(history.begin(), history.end());
      EXPECT_LE(result.objective, best * (1 + 1e-9)) << to_string(algorithm) << " seed " << seed;
      const std::size_t half = history.size() / 2;
      const double worst_late = *std::max_element(history.begin() + half, history.end());
      EXPECT_LE(worst_late, best * (1 + 1e-9)) << to_string(algorithm) << " seed " << seed;
    }
  }
}

// x = Pi_{C_k and R+}(z + step g) assembled from supp(z) and the best positive g outside it
// equals the dense projection, including negative z entries, entries pushed below zero, and
// ties between the two sources.
TEST(DriverInvariants, ProjectedStepEqualsTheDenseProjection) {
  using Backend = cpu::CpuBackend<double>;
  const Matrix<double> phi(1, 12);
  Backend be(phi.view(), 1);
  std::mt19937_64 generator(2);
  std::uniform_int_distribution<int> pick(-4, 4);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> g(12);
    for (double& value : g) {
      value = 0.5 * pick(generator);
    }
    Backend::SparseDatapointVector z;
    VectorXd z_dense = VectorXd::Zero(12);
    for (index_t i = 0; i < 12; ++i) {
      if (pick(generator) > 1) {
        z.push_back(i, 0.25 * pick(generator));
        z_dense[i] = z.value.back();
      }
    }
    const double step = trial % 5 == 0 ? 0.0 : 0.5 * (1 + trial % 3);
    for (const index_t k : {1, 3, 12}) {
      Backend::SparseDatapointVector candidates, g_on_z, x;
      be.select_top_k(g, k, solvers::SelectionRule::largest_positive, z, candidates);
      be.gather(g, z, g_on_z);
      be.projected_step(z, g_on_z, candidates, step, k, x);
      const VectorXd want =
          project_sparse_nonnegative(z_dense + step * Eigen::Map<const VectorXd>(g.data(), 12), k);
      VectorXd got = VectorXd::Zero(12);
      for (std::size_t p = 0; p < x.index.size(); ++p) {
        got[x.index[p]] = x.value[p];
      }
      ASSERT_EQ(got, want) << "trial " << trial << " k " << k;
    }
  }
}

}  // namespace
}  // namespace coreset
