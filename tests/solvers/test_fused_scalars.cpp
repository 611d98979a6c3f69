// solvers/fused_scalars.hpp: the driver's composed scalars go to a backend's own member where it
// has one, and are composed of the required primitives otherwise, with the same numbers.
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
  mutable int calls = 0;
};

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
}

}  // namespace
}  // namespace coreset
