// The closed-form line searches (spec 2.3 lines 6 and 8, T2, T3): each must be the true 1-D
// minimiser of f along its direction, and the step rules must scale exactly the step they name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include <Eigen/Eigenvalues>

#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"
#include "solvers/line_search.hpp"
#include "solvers/power_iteration.hpp"

namespace coreset {
namespace {

using Backend = cpu::CpuBackend<double>;

struct Fixture {
  Matrix<double> phi = test::gaussian_matrix(40, 60, 7);
  Backend be{phi.view(), 1};
  std::vector<double> y = std::vector<double>(40, 0.0);

  Fixture() { be.column_sums(y); }

  // f(x + a d) for sparse x and d, evaluated directly from Phi.
  double f_along(const Backend::SparseDatapointVector& x, const Backend::SparseDatapointVector& d,
                 double a) const {
    std::vector<double> residual = y;
    for (std::size_t p = 0; p < x.index.size(); ++p) {
      for (index_t i = 0; i < phi.rows(); ++i) {
        residual[i] -= x.value[p] * phi(i, x.index[p]);
      }
    }
    for (std::size_t p = 0; p < d.index.size(); ++p) {
      for (index_t i = 0; i < phi.rows(); ++i) {
        residual[i] -= a * d.value[p] * phi(i, d.index[p]);
      }
    }
    return test::squared_norm(residual);
  }
};

// Golden-section search: an independent 1-D minimiser of a convex quadratic on [lo, hi].
template <class F>
double golden_minimiser(F f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int step = 0; step < 200; ++step) {
    const double a = hi - ratio * (hi - lo);
    const double b = lo + ratio * (hi - lo);
    (f(a) < f(b) ? hi : lo) = (f(a) < f(b) ? b : a);
  }
  return 0.5 * (lo + hi);
}

TEST(LineSearch, GradientStepIsTheExactMinimiserAlongTheRestrictedGradient) {
  Fixture fx;
  Backend::SparseDatapointVector z;
  z.index = {3, 17, 42};
  z.value = {0.5, -0.25, 2.0};
  auto phi_z = fx.be.make_sample_vector();
  auto residual = fx.be.make_sample_vector();
  auto gradient = fx.be.make_datapoint_vector();
  fx.be.phi_times(z, phi_z);
  fx.be.subtract(fx.y, phi_z, residual);
  fx.be.phi_t_times(residual, gradient);
  Backend::SparseDatapointVector expansion, on_s;
  fx.be.select_top_k(gradient, 5, solvers::SelectionRule::largest_magnitude, z, expansion);
  fx.be.restrict_to_union(gradient, z, expansion, on_s);
  ASSERT_EQ(on_s.size(), 8);
  auto q = fx.be.make_sample_vector();
  fx.be.phi_times(on_s, q);
  const double step = fx.be.line_search(fx.be.squared_norm(on_s), fx.be.dot(q, q),
                                        solvers::gradient_step_factor(StepRule::exact));
  ASSERT_GT(step, 0.0);
  const auto f = [&](double a) { return fx.f_along(z, on_s, a); };
  EXPECT_LE(f(step), f(step * (1 + 1e-3)));
  EXPECT_LE(f(step), f(step * (1 - 1e-3)));
  EXPECT_NEAR(step, golden_minimiser(f, 0.0, 10.0 * step), 1e-7 * step);
  EXPECT_LT(f(step), f(0.0));
}

TEST(LineSearch, MomentumIsTheExactMinimiserAlongTheLastMove) {
  Fixture fx;
  Backend::SparseDatapointVector w, w_next, d;
  w.index = {1, 5, 9};
  w.value = {1.0, 0.5, 0.25};
  w_next.index = {5, 9, 30};
  w_next.value = {0.75, 1.5, 0.5};
  d.index = {1, 5, 9, 30};
  d.value = {-1.0, 0.25, 1.25, 0.5};
  auto phi_w = fx.be.make_sample_vector(), phi_next = fx.be.make_sample_vector(),
       phi_d = fx.be.make_sample_vector(), residual = fx.be.make_sample_vector();
  fx.be.phi_times(w, phi_w);
  fx.be.phi_times(w_next, phi_next);
  fx.be.subtract(phi_next, phi_w, phi_d);
  fx.be.subtract(fx.y, phi_next, residual);
  const double tau = fx.be.line_search(fx.be.dot(residual, phi_d), fx.be.dot(phi_d, phi_d),
                                       solvers::momentum_factor(StepRule::exact));
  const auto f = [&](double a) { return fx.f_along(w_next, d, a); };
  EXPECT_NEAR(tau, golden_minimiser(f, -100.0, 100.0), 1e-6 * (1.0 + std::abs(tau)));
  // The extrapolated point is the one the driver builds: z = w_next + tau (w_next - w).
  Backend::SparseDatapointVector z;
  fx.be.extrapolate(w_next, w, tau, z);
  Backend::SparseDatapointVector nothing;
  EXPECT_NEAR(fx.f_along(z, nothing, 0.0), f(tau), 1e-9 * (1.0 + f(tau)));
}

TEST(LineSearch, StepRulesScaleExactlyTheStepTheyName) {
  EXPECT_EQ(solvers::gradient_step_factor(StepRule::exact), 1.0);
  EXPECT_EQ(solvers::momentum_factor(StepRule::exact), 1.0);
  EXPECT_EQ(solvers::gradient_step_factor(StepRule::reference), 0.5);  // authors' code, spec A2
  EXPECT_EQ(solvers::momentum_factor(StepRule::reference), 1.0);
  EXPECT_EQ(solvers::gradient_step_factor(StepRule::paper), 1.0);  // printed formulas, spec A1
  EXPECT_EQ(solvers::momentum_factor(StepRule::paper), 0.5);
  EXPECT_DOUBLE_EQ(solvers::guarded_step(3.0, 4.0, 0.5), 0.375);
}

TEST(LineSearch, VanishingOrNonFiniteDenominatorGivesZeroStep) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solvers::guarded_step(1.0, 0.0, 1.0), 0.0);
  EXPECT_EQ(solvers::guarded_step(0.0, 0.0, 1.0), 0.0);
  EXPECT_EQ(solvers::guarded_step(1.0, -1.0, 1.0), 0.0);
  EXPECT_EQ(solvers::guarded_step(1.0, nan, 1.0), 0.0);
  EXPECT_EQ(solvers::guarded_step(inf, 1.0, 1.0), 0.0);
  EXPECT_EQ(solvers::guarded_step(1.0, 1e-320, 1.0), 0.0);  // overflows to inf
}

// The IHT step 1/L must not overshoot: the estimate is an upper bound on lambda_max(Phi^T Phi)
// and within 1% of it. Checked against a dense eigensolver on several spectra.
TEST(PowerIteration, UpperEstimateOfTheLargestEigenvalue) {
  for (const auto& [rows, cols, seed] : {std::tuple{30, 80, 1}, std::tuple{80, 30, 2},
                                         std::tuple{5, 200, 3}, std::tuple{1, 10, 4}}) {
    Matrix<double> phi = test::gaussian_matrix(rows, cols, static_cast<std::uint64_t>(seed));
    Eigen::Map<const Eigen::MatrixXd> dense(phi.data(), rows, cols);
    const Eigen::MatrixXd gram = dense.transpose() * dense;
    const double exact =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues().maxCoeff();
    Backend be(phi.view(), 1);
    const double estimate = solvers::estimate_lambda_max(be, 7);
    EXPECT_GE(estimate, exact * (1 - 1e-12)) << rows << "x" << cols;
    EXPECT_LE(estimate, exact * (1 + 1e-2)) << rows << "x" << cols;
  }
  // Wide random matrices cluster their top eigenvalues, so 30 power steps do not make v
  // dominant; the estimate is then only close (the IHT driver backtracks overshooting steps).
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    Matrix<double> phi = test::gaussian_matrix(100, 2000, seed);
    Eigen::Map<const Eigen::MatrixXd> dense(phi.data(), 100, 2000);
    const Eigen::MatrixXd gram = dense * dense.transpose();  // same non-zero spectrum
    const double exact =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram).eigenvalues().maxCoeff();
    Backend be(phi.view(), 1);
    EXPECT_NEAR(solvers::estimate_lambda_max(be, 0), exact, 0.01 * exact) << "seed " << seed;
  }
  const Matrix<double> zero(4, 6);
  Backend be(zero.view(), 1);
  EXPECT_EQ(solvers::estimate_lambda_max(be, 7), 0.0);
}

}  // namespace
}  // namespace coreset
