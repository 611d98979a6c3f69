// The vectorised log-sigmoid kernels (src/models/simd) against the scalar link formula that the
// rest of the engine and the GPU share (models::logistic_value, built on glibc's exp/log1p).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "helpers/isa_test.hpp"
#include "models/link.hpp"
#include "models/simd/log_sigmoid.hpp"

namespace coreset::models::simd {
namespace {

std::vector<double> scaled_by(std::vector<double> a, double y) {
  for (double& value : a) {
    value *= y;
  }
  return a;
}

class LogSigmoidKernel : public test::IsaTest {
 protected:
  // out[j] = log sigma(y a[j]) through the kernel, which takes the margins y a[j].
  void run(const std::vector<double>& a, double y, std::vector<double>& out) const {
    const std::vector<double> scaled = scaled_by(a, y);
    out.assign(a.size(), -7.0);
    log_sigmoid(GetParam(), scaled.data(), out.data(), static_cast<index_t>(a.size()));
  }
};

// Margins over the whole range the link meets: the bulk near 0, the tails where exp(-|x|)
// goes subnormal (|x| > 708) and underflows (|x| > 745), and the points where the kernel's
// branches switch (e^-|x| = 1/2 at |x| = ln 2, the exponent split).
std::vector<double> margins() {
  std::vector<double> a = {0.0,
                           -0.0,
                           1e-300,
                           -1e-300,
                           1e-17,
                           -1e-17,
                           0.6931471805599453,
                           -0.6931471805599453,
                           0.69314718055994,
                           36.0,
                           -36.0,
                           40.0,
                           -40.0,
                           708.3,
                           -708.3,
                           708.5,
                           -708.5,
                           720.0,
                           -720.0,
                           744.4,
                           -744.4,
                           745.2,
                           -745.2,
                           746.0,
                           -746.0,
                           1e3,
                           -1e3,
                           1e5,
                           -1e5,
                           1e300,
                           -1e300};
  for (int i = -20000; i <= 20000; ++i) {
    a.push_back(i * 0.05);  // [-1000, 1000]
  }
  std::mt19937_64 random(20261121);
  std::normal_distribution<double> normal(0.0, 4.0);
  for (int i = 0; i < 20000; ++i) {
    a.push_back(normal(random));
  }
  return a;
}

// Within 4 units in the last place of the scalar formula, or, for results below the normal
// range, within 4 subnormal units.
::testing::AssertionResult close_to_scalar(double got, double want, double a) {
  const double tolerance = std::max(4.0 * std::numeric_limits<double>::epsilon() * std::abs(want),
                                    4.0 * std::numeric_limits<double>::denorm_min());
  if (std::abs(got - want) <= tolerance) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "a = " << a << ": kernel " << got << ", scalar " << want
                                       << " (difference " << got - want << ")";
}

TEST_P(LogSigmoidKernel, MatchesTheScalarLinkToFourUlpOverTheWholeRange) {
  const std::vector<double> a = margins();
  std::vector<double> out;
  for (double y : {1.0, -1.0, 0.5}) {
    run(a, y, out);
    for (std::size_t j = 0; j < a.size(); ++j) {
      const double want = models::logistic_value(a[j], y);
      ASSERT_TRUE(close_to_scalar(out[j], want, a[j] * y));
    }
  }
}

TEST_P(LogSigmoidKernel, EachValueIsIndependentOfCountAndPosition) {
  // The tail is evaluated in a zero-padded vector: every count and offset must give the very
  // same bits for the same input.
  std::vector<double> a = margins();
  a.resize(200);
  std::vector<double> full;
  run(a, 1.0, full);
  for (std::size_t start : {0, 1, 3, 7}) {
    for (std::size_t count = 0; count + start <= 80; ++count) {
      std::vector<double> part(a.begin() + start, a.begin() + start + count);
      std::vector<double> out;
      run(part, 1.0, out);
      for (std::size_t j = 0; j < count; ++j) {
        ASSERT_EQ(out[j], full[start + j]) << "count " << count << " start " << start;
      }
    }
  }
}

TEST_P(LogSigmoidKernel, SpecialValuesAndInPlaceEvaluation) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> a = {std::nan(""), inf, -inf, 2.0};
  std::vector<double> out;
  run(a, 1.0, out);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 0.0);   // log sigma(+inf) = 0
  EXPECT_EQ(out[2], -inf);  // log sigma(-inf) = -inf
  EXPECT_TRUE(close_to_scalar(out[3], models::logistic_value(2.0, 1.0), 2.0));
  // out may alias the input: the projection evaluates Phi's columns in place.
  std::vector<double> in_place = margins();
  std::vector<double> separate;
  run(in_place, 1.0, separate);
  log_sigmoid(GetParam(), in_place.data(), in_place.data(), static_cast<index_t>(in_place.size()));
  EXPECT_EQ(in_place, separate);
}

INSTANTIATE_TEST_SUITE_P(AllCompiledSets, LogSigmoidKernel, test::kEveryIsa, test::isa_test_name);

TEST(IsaDispatch, Avx2AndAvx512GiveIdenticalBits) {
  // Every lane runs the same FMA sequence, so Phi (and every solve on it) does not depend on
  // which of the two a CPU has.
  if (!supported(Isa::avx2) || !supported(Isa::avx512)) {
    GTEST_SKIP() << "needs a CPU with both AVX2 and AVX-512";
  }
  for (double y : {1.0, -1.0}) {
    const std::vector<double> a = scaled_by(margins(), y);
    std::vector<double> narrow(a.size()), wide(a.size());
    log_sigmoid(Isa::avx2, a.data(), narrow.data(), static_cast<index_t>(a.size()));
    log_sigmoid(Isa::avx512, a.data(), wide.data(), static_cast<index_t>(a.size()));
    EXPECT_EQ(narrow, wide);
  }
}

TEST(IsaDispatch, TheActiveSetIsSupportedAndBaselineAlwaysIs) {
  EXPECT_TRUE(supported(Isa::baseline));
  EXPECT_TRUE(supported(active_isa()));
}

}  // namespace
}  // namespace coreset::models::simd
