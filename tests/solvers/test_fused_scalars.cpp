// solvers/fused_scalars.hpp: the driver's composed scalars and products go to a backend's own
// member where it has one, and are composed of the required primitives otherwise, with the same
// numbers.
#include "solvers/fused_scalars.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "helpers/random_problem.hpp"

namespace coreset {
namespace {

using Plain = cpu::CpuBackend<double>;

// The CPU backend with the three optional members, each counting its calls and answering with
// the composition, as a fusing backend must.
class Fusing : public Plain {
 public:
  using Plain::Plain;
  Scalar gradient_line_search(const SparseDatapointVector& g, const SampleVector& q,
                              double factor) const {
    ++calls;
    return line_search(squared_norm(g), dot(q, q), factor);
  }
  Scalar momentum_line_search(const SampleVector& r, const SampleVector& q, double factor) const {
    ++calls;
    return line_search(dot(r, q), dot(q, q), factor);
  }
  std::array<Scalar, 3> progress_scalars(const SampleVector& residual,
                                         const SparseDatapointVector& next,
                                         const SparseDatapointVector& prev) const {
    ++calls;
    return {dot(residual, residual), squared_distance(next, prev), squared_norm(next)};
  }
  void phi_times_and_residual(const SparseDatapointVector& v, const SampleVector& y,
                              SampleVector& product, SampleVector& residual) const {
    ++calls;
    phi_times(v, product);
    subtract(y, product, residual);
  }
  void select_top_k_both_rules(const DatapointVector& v, index_t k,
                               const SparseDatapointVector& exclude,
                               SparseDatapointVector& by_magnitude,
                               SparseDatapointVector& positive) const {
    ++calls;
    select_top_k(v, k, solvers::SelectionRule::largest_magnitude, exclude, by_magnitude);
    select_top_k(v, k, solvers::SelectionRule::largest_positive, exclude, positive);
  }
  mutable int calls = 0;
};

namespace fused = solvers::fused_detail;
static_assert(!fused::has_gradient_line_search<Plain> && !fused::has_momentum_line_search<Plain> &&
              !fused::has_progress_scalars<Plain> && !fused::has_phi_times_and_residual<Plain> &&
              !fused::has_select_top_k_both_rules<Plain>);
static_assert(fused::has_gradient_line_search<const Fusing> &&
              fused::has_momentum_line_search<const Fusing> &&
              fused::has_progress_scalars<const Fusing> &&
              fused::has_phi_times_and_residual<const Fusing> &&
              fused::has_select_top_k_both_rules<const Fusing>);

TEST(FusedScalars, ABackendsOwnMembersAreCalledAndOthersAreComposed) {
  const Matrix<double> phi = test::gaussian_matrix(5, 30, 3);
  const Plain plain(phi.view(), 1);
  const Fusing fusing(phi.view(), 1);
  const std::vector<double> r = {1.0, -2.0, 0.5, 3.0, 0.25};
  const std::vector<double> q = {0.5, 1.5, -1.0, 2.0, 4.0};
  solvers::SparseVector<double> g;
  g.index = {2, 7, 19};
  g.value = {1.5, -0.5, 2.0};
  solvers::SparseVector<double> h;
  h.index = {7, 11};
  h.value = {0.25, 3.0};

  // Composed by hand: ||g||^2 = 6.5, ||q||^2 = 23.5, <r, q> = 4, ||r||^2 = 14.3125, and
  // ||g - h||^2 = 1.5^2 + 0.75^2 + 3^2 + 2^2 = 15.8125.
  EXPECT_EQ(solvers::gradient_line_search(plain, g, q, 0.5), 0.5 * 6.5 / 23.5);
  EXPECT_EQ(solvers::momentum_line_search(plain, r, q, 1.0), 4.0 / 23.5);
  const auto progress = solvers::progress_scalars(plain, r, g, h);
  EXPECT_EQ(progress, (std::array<double, 3>{14.3125, 15.8125, 6.5}));

  EXPECT_EQ(solvers::gradient_line_search(fusing, g, q, 0.5), 0.5 * 6.5 / 23.5);
  EXPECT_EQ(solvers::momentum_line_search(fusing, r, q, 1.0), 4.0 / 23.5);
  EXPECT_EQ(solvers::progress_scalars(fusing, r, g, h), progress);
  EXPECT_EQ(fusing.calls, 3);

  // The product Phi g and r - Phi g, by both.
  std::vector<double> product = plain.make_sample_vector();
  std::vector<double> residual = plain.make_sample_vector();
  solvers::phi_times_and_residual(plain, g, r, product, residual);
  ASSERT_EQ(product.size(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double expected = 1.5 * phi(static_cast<index_t>(i), 2) -
                            0.5 * phi(static_cast<index_t>(i), 7) +
                            2.0 * phi(static_cast<index_t>(i), 19);
    EXPECT_NEAR(product[i], expected, 1e-12) << i;
    EXPECT_EQ(residual[i], r[i] - product[i]) << i;
  }
  std::vector<double> fused_product = fusing.make_sample_vector();
  std::vector<double> fused_residual = fusing.make_sample_vector();
  solvers::phi_times_and_residual(fusing, g, r, fused_product, fused_residual);
  EXPECT_EQ(fused_product, product);
  EXPECT_EQ(fused_residual, residual);
  EXPECT_EQ(fusing.calls, 4);
}

// The two selections over one gradient: each rule into its own output, outside the exclusion.
// Entry 3 (-9) is the largest in magnitude and not positive; entry 5 (8) is excluded.
TEST(FusedScalars, BothSelectionsTakeTheirOwnRuleOutsideTheExclusion) {
  const Matrix<double> phi = test::gaussian_matrix(2, 8, 4);
  const Plain plain(phi.view(), 1);
  const Fusing fusing(phi.view(), 1);
  const std::vector<double> v = {1.0, -2.0, 3.0, -9.0, 0.5, 8.0, 2.5, -0.25};
  solvers::SparseVector<double> exclude;
  exclude.index = {5};
  exclude.value = {1.0};
  const auto expect_selections = [](const solvers::SparseVector<double>& by_magnitude,
                                    const solvers::SparseVector<double>& positive) {
    EXPECT_EQ(by_magnitude.index, (std::vector<index_t>{2, 3}));
    EXPECT_EQ(by_magnitude.value, (std::vector<double>{3.0, -9.0}));
    EXPECT_EQ(positive.index, (std::vector<index_t>{2, 6}));
    EXPECT_EQ(positive.value, (std::vector<double>{3.0, 2.5}));
  };
  solvers::SparseVector<double> by_magnitude;
  solvers::SparseVector<double> positive;
  solvers::select_top_k_both_rules(plain, v, 2, exclude, by_magnitude, positive);
  expect_selections(by_magnitude, positive);
  solvers::SparseVector<double> fused_by_magnitude;
  solvers::SparseVector<double> fused_positive;
  solvers::select_top_k_both_rules(fusing, v, 2, exclude, fused_by_magnitude, fused_positive);
  expect_selections(fused_by_magnitude, fused_positive);
  EXPECT_EQ(fusing.calls, 1);
}

}  // namespace
}  // namespace coreset
