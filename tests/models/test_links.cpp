// The scalar links of models/link.hpp (spec 3.1, 3.5-3.7, T35): derivatives against central
// finite differences, concavity, values at extreme linear predictors against long-double
// references, and the continuity of the Poisson link across its small-a branch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/link.hpp"

namespace coreset::models {
namespace {

const std::vector<double> kLabels = {-1.0, 1.0};
const std::vector<double> kCounts = {0.0, 1.0, 3.0, 10.0};

// a in [-40, 40]: a step that is not a fraction of 1, so the grid also hits non-round values,
// plus the integers and the poisson branch point.
std::vector<double> predictor_grid() {
  std::vector<double> grid;
  for (double a = -40.0; a <= 40.0; a += 0.37) {
    grid.push_back(a);
  }
  for (int a = -40; a <= 40; ++a) {
    grid.push_back(a);
  }
  return grid;
}

// Every link of the four, each with the parameters it is tested at: (link, y, precision).
struct Case {
  Link link;
  double y;
  double precision;
  std::string name() const {
    const char* names[] = {"logistic", "poisson", "identity", "gaussian"};
    return std::string(names[static_cast<int>(link)]) + " y=" + std::to_string(y) +
           " p=" + std::to_string(precision);
  }
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const double y : kLabels) {
    cases.push_back({Link::logistic, y, 1.0});
  }
  for (const double y : kCounts) {
    cases.push_back({Link::poisson, y, 1.0});
  }
  cases.push_back({Link::identity, 0.0, 1.0});
  for (const double y : {-2.0, 0.0, 3.5}) {
    for (const double p : {0.5, 2.0}) {
      cases.push_back({Link::gaussian, y, p});
    }
  }
  return cases;
}

// A central difference has truncation error ~ h^2 f''' / 6 and rounding error ~ eps |f| / h;
// the tolerance allows both plus a relative 1e-7, which still catches any wrong factor or sign.
double difference_tolerance(double analytic, double f_scale, double h) {
  return 1e-7 * std::abs(analytic) + 1e-9 + 4e-16 * (1.0 + f_scale) / h;
}

TEST(LinkDerivatives, FirstDerivativeMatchesCentralDifferences) {
  const double h = 1e-4;
  for (const Case& c : all_cases()) {
    for (const double a : predictor_grid()) {
      const double up = evaluate_link(c.link, a + h, c.y, c.precision).value;
      const double down = evaluate_link(c.link, a - h, c.y, c.precision).value;
      const double numeric = (up - down) / (2.0 * h);
      const double analytic = evaluate_link(c.link, a, c.y, c.precision).first;
      EXPECT_NEAR(analytic, numeric,
                  difference_tolerance(analytic, std::max(std::abs(up), std::abs(down)), h))
          << c.name() << " a=" << a;
    }
  }
}

TEST(LinkDerivatives, SecondDerivativeMatchesCentralDifferences) {
  const double h = 1e-4;
  for (const Case& c : all_cases()) {
    for (const double a : predictor_grid()) {
      const double up = evaluate_link(c.link, a + h, c.y, c.precision).first;
      const double down = evaluate_link(c.link, a - h, c.y, c.precision).first;
      const double numeric = (up - down) / (2.0 * h);
      const double analytic = evaluate_link(c.link, a, c.y, c.precision).second;
      EXPECT_NEAR(analytic, numeric,
                  difference_tolerance(analytic, std::max(std::abs(up), std::abs(down)), h))
          << c.name() << " a=" << a;
    }
  }
}

TEST(LinkDerivatives, EveryLinkIsConcave) {
  std::vector<double> grid = predictor_grid();
  for (const double a : {-1e300, -1e3, -700.0, 700.0, 1e3, 1e300}) {
    grid.push_back(a);
  }
  for (const Case& c : all_cases()) {
    for (const double a : grid) {
      EXPECT_LE(evaluate_link(c.link, a, c.y, c.precision).second, 0.0) << c.name() << " a=" << a;
    }
  }
}

TEST(LinkDerivatives, DispatchCallsTheNamedLink) {
  for (const double a : {-3.0, 0.5, 2.0}) {
    const LinkTerms logistic = evaluate_link(Link::logistic, a, -1.0, 7.0);
    EXPECT_EQ(logistic.value, logistic_link(a, -1.0).value);
    EXPECT_EQ(logistic.first, logistic_link(a, -1.0).first);
    const LinkTerms poisson = evaluate_link(Link::poisson, a, 3.0, 7.0);
    EXPECT_EQ(poisson.value, poisson_link(a, 3.0).value);
    EXPECT_EQ(poisson.second, poisson_link(a, 3.0).second);
    const LinkTerms identity = evaluate_link(Link::identity, a, 3.0, 7.0);
    EXPECT_EQ(identity.value, a);
    EXPECT_EQ(identity.first, 1.0);
    EXPECT_EQ(identity.second, 0.0);
    const LinkTerms gaussian = evaluate_link(Link::gaussian, a, 3.0, 7.0);
    EXPECT_DOUBLE_EQ(gaussian.value, -3.5 * (3.0 - a) * (3.0 - a));
    EXPECT_DOUBLE_EQ(gaussian.first, 7.0 * (3.0 - a));
    EXPECT_EQ(gaussian.second, -7.0);
  }
}

// ---- references in long double: a 64-bit mantissa and an exponent range to 1e4932, so e^1000
// and e^-1000 are representable and the naive formulas are accurate where they do not cancel.

struct Reference {
  long double value;
  long double first;
  long double second;
  // The size of the terms each quantity is a sum of: where the true value is itself a
  // cancellation (y log lambda ~ lambda, y / lambda ~ 1) even a perfect double evaluation is only
  // accurate relative to these, not to the (small) result.
  long double value_scale;
  long double first_scale;
};

Reference logistic_reference(long double a, long double y) {
  const long double margin = y * a;
  const long double ea = std::exp(a);
  const long double value = -std::log1p(std::exp(-margin));
  const long double first = y / (1.0L + std::exp(margin));
  return {value, first, -ea / ((1.0L + ea) * (1.0L + ea)), std::abs(value), std::abs(first)};
}

// g(lambda) = 1 - e^-lambda (1 + lambda) = sum_{k >= 2} (-1)^k (k - 1) lambda^k / k!, summed as
// a series for small lambda, where the closed form cancels.
long double poisson_g(long double lambda) {
  if (lambda >= 0.5L) {
    return 1.0L - std::exp(-lambda) * (1.0L + lambda);
  }
  long double term = lambda;  // lambda^k / k! for k = 1
  long double sum = 0.0L;
  for (int k = 2; k <= 40; ++k) {
    term *= lambda / static_cast<long double>(k);
    sum += ((k % 2 == 0) ? 1.0L : -1.0L) * static_cast<long double>(k - 1) * term;
  }
  return sum;
}

// The second derivative in the cancellation-free form of spec 3.7,
// ell'' = -(s / lambda^2) [y g(lambda) + lambda^2 e^-lambda]: an independent formula.
Reference poisson_reference(long double a, long double y) {
  const long double lambda = std::log1p(std::exp(a));
  const long double s = 1.0L / (1.0L + std::exp(-a));
  return {y * std::log(lambda) - lambda, (y / lambda - 1.0L) * s,
          -(s / (lambda * lambda)) * (y * poisson_g(lambda) + lambda * lambda * std::exp(-lambda)),
          std::abs(y * std::log(lambda)) + lambda, (y / lambda + 1.0L) * s};
}

// A double result is "correct to its limit" when it is within `relative` of the reference
// (relative to `scale`, the size of the terms it is computed from), or, where the reference is
// below the normal double range, itself that small.
void expect_matches(double got, long double reference, long double scale, double relative,
                    const std::string& what) {
  ASSERT_TRUE(std::isfinite(got)) << what;
  if (std::abs(reference) < 1e-300L) {
    EXPECT_LE(std::abs(got), 1e-300) << what << " reference " << static_cast<double>(reference);
    return;
  }
  const auto error =
      static_cast<double>(std::abs(static_cast<long double>(got) - reference) / scale);
  EXPECT_LE(error, relative) << what << ": got " << got << ", reference "
                             << static_cast<double>(reference);
}

void expect_matches(const LinkTerms& got, const Reference& ref, double relative,
                    const std::string& what) {
  expect_matches(got.value, ref.value, ref.value_scale, relative, what + " value");
  expect_matches(got.first, ref.first, ref.first_scale, relative, what + " first");
  expect_matches(got.second, ref.second, std::abs(ref.second), relative, what + " second");
}

TEST(LinkExtremes, LogisticIsFiniteAndExactAtHugePredictors) {
  for (const double a : {-1e3, -700.0, -40.0, 0.0, 40.0, 700.0, 1e3}) {
    for (const double y : kLabels) {
      const LinkTerms got = logistic_link(a, y);
      const Reference ref = logistic_reference(a, y);
      expect_matches(got, ref, 1e-13,
                     "logistic a=" + std::to_string(a) + " y=" + std::to_string(y));
    }
  }
}

TEST(LinkExtremes, PoissonIsFiniteAndExactAtHugePredictors) {
  for (const double a : {-1e3, -700.0, -40.0, 0.0, 40.0, 700.0, 1e3}) {
    for (const double y : kCounts) {
      const LinkTerms got = poisson_link(a, y);
      const Reference ref = poisson_reference(a, y);
      expect_matches(got, ref, 1e-12, "poisson a=" + std::to_string(a) + " y=" + std::to_string(y));
    }
  }
}

TEST(LinkExtremes, GaussianAndIdentityAreFiniteAtHugePredictors) {
  for (const double a : {-1e3, -700.0, 700.0, 1e3}) {
    const LinkTerms identity = identity_link(a);
    EXPECT_EQ(identity.value, a);
    const LinkTerms gaussian = gaussian_link(a, 1.0, 0.25);
    EXPECT_DOUBLE_EQ(gaussian.value, -0.125 * (1.0 - a) * (1.0 - a));
    EXPECT_DOUBLE_EQ(gaussian.first, 0.25 * (1.0 - a));
  }
}

// Every derivative of the Poisson link against the cancellation-free reference over the whole
// grid: the plain formula ell'' = (y/lambda - 1) s (1 - s) - y s^2 / lambda^2 subtracts two
// numbers close to y to get one of size y e^a, so it would lose digits as a falls towards -30.
TEST(LinkPoisson, MatchesTheCancellationFreeReferenceOnTheGrid) {
  for (const double y : kCounts) {
    for (const double a : predictor_grid()) {
      const LinkTerms got = poisson_link(a, y);
      const Reference ref = poisson_reference(a, y);
      expect_matches(got, ref, 1e-12, "a=" + std::to_string(a) + " y=" + std::to_string(y));
    }
  }
}

// The link switches to the e^a expansion below a = -30; both sides of the switch must agree.
TEST(LinkPoisson, BranchIsContinuousAtMinus30) {
  const double below = std::nextafter(-30.0, -100.0);
  for (const double y : kCounts) {
    const LinkTerms left = poisson_link(below, y);
    const LinkTerms right = poisson_link(-30.0, y);
    const auto relative = [](double u, double v) {
      return std::abs(u - v) / std::max(std::abs(u), std::abs(v));
    };
    EXPECT_LE(relative(left.value, right.value), 1e-12) << "y=" << y;
    EXPECT_LE(relative(left.first, right.first), 1e-12) << "y=" << y;
    EXPECT_LE(relative(left.second, right.second), 1e-12) << "y=" << y;
  }
}

// The links share one exponential, e^-|a|, among softplus and the sigmoids. Against each
// function's own exponential, written out as the branches the functions document: the same bits,
// for labels that make |y a| = |a| (the shared case) and labels that do not, at every grid point,
// at zeros of both signs and at the extremes.
double softplus_alone(double a) {
  return a > 0.0 ? a + std::log1p(std::exp(-a)) : std::log1p(std::exp(a));
}
double sigmoid_alone(double a) {
  return a >= 0.0 ? 1.0 / (1.0 + std::exp(-a)) : std::exp(a) / (1.0 + std::exp(a));
}

TEST(LinkSharedExponential, LogisticAndPoissonGiveTheBitsOfSeparateExponentials) {
  std::vector<double> grid = predictor_grid();
  for (const double a : {0.0, -0.0, 1e-300, -1e-300, 700.0, -700.0, 1e308, -1e308}) {
    grid.push_back(a);
  }
  for (const double a : grid) {
    for (const double y : {-1.0, 1.0, 0.5, -0.25, 3.0}) {
      const LinkTerms logistic = logistic_link(a, y);
      EXPECT_EQ(logistic.value, -softplus_alone(-y * a)) << "a " << a << ", y " << y;
      EXPECT_EQ(logistic.first, y * sigmoid_alone(-y * a)) << "a " << a << ", y " << y;
      EXPECT_EQ(logistic.second, -sigmoid_alone(a) * sigmoid_alone(-a)) << "a " << a;
      EXPECT_EQ(logistic.value, logistic_value(a, y)) << "a " << a << ", y " << y;
    }
    for (const double y : kCounts) {
      if (a < kPoissonExpansionBelow) {
        continue;  // the expansion's branch takes no softplus or sigmoid
      }
      const LinkTerms poisson = poisson_link(a, y);
      const double lambda = softplus_alone(a);
      const double s = sigmoid_alone(a);
      EXPECT_EQ(poisson.value, y * std::log(lambda) - lambda) << "a " << a << ", y " << y;
      EXPECT_EQ(poisson.first, (y / lambda - 1.0) * s) << "a " << a << ", y " << y;
      // models::poisson_g: this file also has a long-double reference of that name.
      EXPECT_EQ(poisson.second,
                -s * (y * models::poisson_g(lambda) / lambda / lambda + sigmoid_alone(-a)))
          << "a " << a << ", y " << y;
      EXPECT_EQ(poisson.value, poisson_value(a, y)) << "a " << a << ", y " << y;
    }
  }
}

}  // namespace
}  // namespace coreset::models
