// The row block kernels (src/models/simd/row_block.hpp) against their written definitions: the
// predictors' fma chain and the sums' lane order, re-implemented here scalar by scalar (the
// baseline's fmas as a multiply and an add), must give the very bits of every set's kernel; the
// logistic link's vector terms must give AVX2 = AVX-512 bits, the log-sigmoid's value bits, and the
// scalar link to a few ulp.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "helpers/isa_test.hpp"
#include "models/link.hpp"
#include "models/simd/log_sigmoid.hpp"
#include "models/simd/row_block.hpp"

namespace coreset::models::simd {
namespace {

// a b + c as the set computes it (row_block.hpp): one fma, or on the baseline a multiply and an
// add. volatile keeps the compiler from fusing the baseline's pair where it could.
double multiply_add(support::Isa isa, double a, double b, double c) {
  if (isa != support::Isa::baseline) {
    return std::fma(a, b, c);
  }
  volatile double product = a * b;
  return product + c;
}

// The predictor of row j as row_block.hpp defines it.
double predictor_by_definition(support::Isa isa, const RowBlock& block, const double* theta,
                               index_t j) {
  if (block.cols == 0) {
    return 0.0;
  }
  double a = block(j, 0) * theta[0];
  for (index_t i = 1; i < block.cols; ++i) {
    a = multiply_add(isa, block(j, i), theta[i], a);
  }
  return a;
}

// sum_j w_j x_j in the lanes of row_block.hpp: p_l = fma(w_j, x_j, p_l) over j = l mod 8 in order.
template <class W, class X>
double lane_sum_by_definition(support::Isa isa, index_t rows, const W& w, const X& x) {
  double p[kSumLanes] = {};
  for (index_t j = 0; j < rows; ++j) {
    p[j % kSumLanes] = multiply_add(isa, w(j), x(j), p[j % kSumLanes]);
  }
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

// A design of `rows` rows and `cols` columns stored with column stride `stride` >= rows (the
// rows between are garbage that the kernels must not read into their results).
struct Design {
  std::vector<double> storage;
  RowBlock block;
};

Design random_design(index_t rows, index_t cols, index_t stride, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Design design;
  design.storage.assign(static_cast<std::size_t>(stride * cols + 1), std::nan(""));
  for (index_t i = 0; i < cols; ++i) {
    for (index_t j = 0; j < rows; ++j) {
      design.storage[static_cast<std::size_t>(i * stride + j)] = normal(rng);
    }
  }
  design.block = {design.storage.data(), stride, rows, cols};
  return design;
}

std::vector<double> random_vector(index_t size, std::mt19937_64& rng, bool positive = false) {
  std::normal_distribution<double> normal(0.0, 2.0);
  std::vector<double> v(static_cast<std::size_t>(size));
  for (double& x : v) {
    x = positive ? std::abs(normal(rng)) : normal(rng);
  }
  return v;
}

const index_t kRowCounts[] = {0, 1, 7, 8, 9, 31, 32, 33, 40, 255, 256, 300};
const index_t kColumnCounts[] = {0, 1, 2, 3, 4, 5, 6, 10, 11, 17, 23};

class RowBlockKernels : public test::IsaTest {};

TEST_P(RowBlockKernels, PredictorsAreTheDefinedFmaChainWhateverTheStride) {
  std::mt19937_64 rng(1);
  for (const index_t rows : kRowCounts) {
    for (const index_t cols : kColumnCounts) {
      for (const index_t padding : {index_t{0}, index_t{5}}) {
        const Design design = random_design(rows, cols, rows + padding, rng);
        const std::vector<double> theta = random_vector(cols, rng);
        std::vector<double> out(static_cast<std::size_t>(rows) + 1, -7.0);
        linear_predictors(GetParam(), design.block, theta.data(), out.data());
        for (index_t j = 0; j < rows; ++j) {
          ASSERT_EQ(out[j], predictor_by_definition(GetParam(), design.block, theta.data(), j))
              << rows << " x " << cols << ", row " << j;
        }
        EXPECT_EQ(out[rows], -7.0) << "wrote past the block's rows";
      }
    }
  }
}

TEST_P(RowBlockKernels, WeightedSumsFollowTheLaneOrderBitForBit) {
  std::mt19937_64 rng(2);
  for (const index_t rows : kRowCounts) {
    for (const index_t cols : kColumnCounts) {
      const Design design = random_design(rows, cols, rows + 3, rng);
      const RowBlock& z = design.block;
      const std::vector<double> g = random_vector(rows, rng);
      const std::vector<double> c = random_vector(rows, rng, true);
      const auto entries = static_cast<std::size_t>(cols * (cols + 1) / 2);
      // Both sums in one call (the Hessian's tiles then take the gradient too), and each alone
      // (other code paths), all to the same bits; one guard slot past each output.
      std::vector<double> vector(static_cast<std::size_t>(cols) + 1, -7.0);
      std::vector<double> upper(entries + 1, -7.0);
      std::vector<double> vector_alone(static_cast<std::size_t>(cols) + 1, -7.0);
      std::vector<double> upper_alone(entries + 1, -7.0);
      weighted_row_sums(GetParam(), z, g.data(), c.data(), vector.data(), upper.data());
      weighted_row_sums(GetParam(), z, g.data(), nullptr, vector_alone.data(), nullptr);
      weighted_row_sums(GetParam(), z, nullptr, c.data(), nullptr, upper_alone.data());
      for (index_t i = 0; i < cols; ++i) {
        const double want = lane_sum_by_definition(
            GetParam(), rows, [&](index_t j) { return g[j]; }, [&](index_t j) { return z(j, i); });
        ASSERT_EQ(vector[i], want) << rows << " x " << cols << ", entry " << i;
        ASSERT_EQ(vector_alone[i], want) << rows << " x " << cols << ", entry " << i << " alone";
      }
      index_t slot = 0;
      for (index_t l = 0; l < cols; ++l) {
        for (index_t i = 0; i <= l; ++i, ++slot) {
          const double want = lane_sum_by_definition(
              GetParam(), rows, [&](index_t j) { return c[j] * z(j, l); },
              [&](index_t j) { return z(j, i); });
          ASSERT_EQ(upper[slot], want)
              << rows << " x " << cols << ", entry (" << i << ", " << l << ")";
          ASSERT_EQ(upper_alone[slot], want)
              << rows << " x " << cols << ", entry (" << i << ", " << l << ") alone";
        }
      }
      EXPECT_EQ(vector[cols], -7.0) << "wrote past the vector";
      EXPECT_EQ(vector_alone[cols], -7.0) << "wrote past the vector";
      EXPECT_EQ(upper[entries], -7.0) << "wrote past the triangle";
      EXPECT_EQ(upper_alone[entries], -7.0) << "wrote past the triangle";
    }
  }
}

// Prefetching the rows past the block (RowBlock::prefetch_rows: a whole next block of NaN, the
// stride's garbage) leaves every bit of both sums and of the gradient alone, with the columns
// stored and with a unit column: a sweep that took a prefetched row, or the next block's column
// address, for one of its own would sum NaN.
TEST_P(RowBlockKernels, PrefetchingTheNextRowsChangesNoBit) {
  std::mt19937_64 rng(4);
  const std::vector<double> ones(300, 1.0);
  for (const index_t rows : kRowCounts) {
    for (const index_t cols : kColumnCounts) {
      for (const bool with_unit : {false, true}) {
        if (with_unit && cols == 0) {
          continue;
        }
        const index_t next = 256;
        Design design = random_design(rows, cols, rows + next, rng);
        if (with_unit) {
          design.block.unit = ones.data();
        }
        const std::vector<double> g = random_vector(rows, rng);
        const std::vector<double> c = random_vector(rows, rng, true);
        const auto entries = static_cast<std::size_t>(cols * (cols + 1) / 2);
        RowBlock prefetching = design.block;
        prefetching.prefetch_rows = next;
        std::vector<double> vector(static_cast<std::size_t>(cols) + 1, -7.0);
        std::vector<double> upper(entries + 1, -7.0);
        std::vector<double> vector_alone(static_cast<std::size_t>(cols) + 1, -7.0);
        weighted_row_sums(GetParam(), design.block, g.data(), c.data(), vector.data(),
                          upper.data());
        weighted_row_sums(GetParam(), design.block, g.data(), nullptr, vector_alone.data(),
                          nullptr);
        std::vector<double> vector_prefetching(static_cast<std::size_t>(cols) + 1, -7.0);
        std::vector<double> upper_prefetching(entries + 1, -7.0);
        std::vector<double> vector_alone_prefetching(static_cast<std::size_t>(cols) + 1, -7.0);
        weighted_row_sums(GetParam(), prefetching, g.data(), c.data(), vector_prefetching.data(),
                          upper_prefetching.data());
        weighted_row_sums(GetParam(), prefetching, g.data(), nullptr,
                          vector_alone_prefetching.data(), nullptr);
        const std::string shape = std::to_string(rows) + " x " + std::to_string(cols) +
                                  (with_unit ? " with a unit column" : "");
        for (const double x : vector_prefetching) {
          ASSERT_FALSE(std::isnan(x)) << shape;
        }
        EXPECT_EQ(vector_prefetching, vector) << shape;
        EXPECT_EQ(upper_prefetching, upper) << shape;
        EXPECT_EQ(vector_alone_prefetching, vector_alone) << shape;
      }
    }
  }
}

// Each sum alone, the other's weights not given: a kernel that read g or c without being asked
// would dereference null.
TEST_P(RowBlockKernels, WeightedSumsAgreeWithEigenAndReadOnlyTheWeightsAskedFor) {
  std::mt19937_64 rng(3);
  const index_t rows = 256;
  const index_t cols = 9;
  const Design design = random_design(rows, cols, rows, rng);
  const Eigen::Map<const Eigen::MatrixXd> z(design.storage.data(), rows, cols);
  const std::vector<double> g = random_vector(rows, rng);
  const std::vector<double> c = random_vector(rows, rng, true);
  const Eigen::Map<const Eigen::VectorXd> gv(g.data(), rows);
  const Eigen::Map<const Eigen::VectorXd> cv(c.data(), rows);
  const Eigen::VectorXd vector_want = z.transpose() * gv;
  const Eigen::MatrixXd matrix_want = z.transpose() * cv.asDiagonal() * z;

  std::vector<double> vector(cols, -7.0);
  std::vector<double> upper(cols * (cols + 1) / 2, -7.0);
  weighted_row_sums(GetParam(), design.block, g.data(), nullptr, vector.data(), nullptr);
  for (index_t i = 0; i < cols; ++i) {
    EXPECT_NEAR(vector[i], vector_want[i], 1e-12 * rows) << i;
  }
  weighted_row_sums(GetParam(), design.block, nullptr, c.data(), nullptr, upper.data());
  index_t slot = 0;
  for (index_t l = 0; l < cols; ++l) {
    for (index_t i = 0; i <= l; ++i, ++slot) {
      EXPECT_NEAR(upper[slot], matrix_want(i, l), 1e-12 * rows) << i << ", " << l;
    }
  }
}

// A block whose last column is `unit` (an intercept the design does not store) gives the bits of
// the same block with its ones stored, in the predictors and in both sums. The unit block's own
// storage has NaN where its last column would be, so a kernel that read the stored column
// instead of `unit` would turn its results into NaN.
TEST_P(RowBlockKernels, AUnitColumnGivesTheBitsOfStoredOnes) {
  std::mt19937_64 rng(5);
  const std::vector<double> ones(300, 1.0);
  for (const index_t rows : kRowCounts) {
    for (const index_t cols : {index_t{1}, index_t{2}, index_t{5}, index_t{11}}) {
      const index_t stride = rows + 2;
      Design stored = random_design(rows, cols, stride, rng);
      Design unit = stored;
      for (index_t j = 0; j < rows; ++j) {
        stored.storage[static_cast<std::size_t>((cols - 1) * stride + j)] = 1.0;
        unit.storage[static_cast<std::size_t>((cols - 1) * stride + j)] = std::nan("");
      }
      stored.block.data = stored.storage.data();
      unit.block = {unit.storage.data(), stride, rows, cols, ones.data()};
      const std::vector<double> theta = random_vector(cols, rng);
      const std::vector<double> g = random_vector(rows, rng);
      const std::vector<double> c = random_vector(rows, rng, true);
      const auto entries = static_cast<std::size_t>(cols * (cols + 1) / 2);
      std::vector<double> predictors_stored(static_cast<std::size_t>(rows));
      std::vector<double> predictors_unit(static_cast<std::size_t>(rows));
      std::vector<double> vector_stored(static_cast<std::size_t>(cols));
      std::vector<double> vector_unit(static_cast<std::size_t>(cols));
      std::vector<double> upper_stored(entries);
      std::vector<double> upper_unit(entries);
      linear_predictors(GetParam(), stored.block, theta.data(), predictors_stored.data());
      linear_predictors(GetParam(), unit.block, theta.data(), predictors_unit.data());
      weighted_row_sums(GetParam(), stored.block, g.data(), c.data(), vector_stored.data(),
                        upper_stored.data());
      weighted_row_sums(GetParam(), unit.block, g.data(), c.data(), vector_unit.data(),
                        upper_unit.data());
      const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
        return a.size() == b.size() &&
               (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
      };
      EXPECT_TRUE(same_bits(predictors_unit, predictors_stored)) << rows << " x " << cols;
      EXPECT_TRUE(same_bits(vector_unit, vector_stored)) << rows << " x " << cols;
      EXPECT_TRUE(same_bits(upper_unit, upper_stored)) << rows << " x " << cols;
    }
  }
}

// Predictors over the range the link meets, the labels {-1, 1} and, for hand-made models, others.
std::vector<double> predictors() {
  std::vector<double> a = {0.0,    -0.0,  1e-300, -1e-300, 0.6931471805599453,
                           36.0,   -36.0, 708.5,  -708.5,  745.2,
                           -745.2, 1e3,   -1e3};
  for (int i = -4000; i <= 4000; ++i) {
    a.push_back(i * 0.05);  // [-200, 200]
  }
  std::mt19937_64 rng(4);
  std::normal_distribution<double> normal(0.0, 4.0);
  for (int i = 0; i < 4000; ++i) {
    a.push_back(normal(rng));
  }
  return a;
}

std::vector<double> labels(std::size_t count, bool only_units) {
  std::vector<double> y(count);
  for (std::size_t j = 0; j < count; ++j) {
    y[j] = j % 2 == 0 ? 1.0 : -1.0;
    if (!only_units && j % 7 == 3) {
      y[j] = (j % 3 == 0) ? 0.5 : 2.0;
    }
  }
  return y;
}

struct Terms {
  std::vector<double> value, first, second;
};

Terms link_terms(support::Isa isa, const std::vector<double>& a, const std::vector<double>& y) {
  Terms t;
  t.value.assign(a.size(), -7.0);
  t.first.assign(a.size(), -7.0);
  t.second.assign(a.size(), -7.0);
  logistic_link_terms(isa, a.data(), y.data(), static_cast<index_t>(a.size()), t.value.data(),
                      t.first.data(), t.second.data());
  return t;
}

// Within 8 ulp of the scalar link, or 8 subnormal units: the vector exp and log1p are within 4
// ulp, and sigma's division and product add at most a few roundings of the same size.
::testing::AssertionResult close_to(double got, double want, const char* what, double a) {
  const double tolerance = std::max(8.0 * std::numeric_limits<double>::epsilon() * std::abs(want),
                                    8.0 * std::numeric_limits<double>::denorm_min());
  if (std::abs(got - want) <= tolerance || (std::isnan(got) && std::isnan(want))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << " at a = " << a << ": kernel " << got << ", scalar " << want;
}

TEST_P(RowBlockKernels, LogisticTermsMatchTheScalarLinkAndTheLogSigmoidsValue) {
  const std::vector<double> a = predictors();
  for (const bool only_units : {true, false}) {
    const std::vector<double> y = labels(a.size(), only_units);
    const Terms terms = link_terms(GetParam(), a, y);
    std::vector<double> margin(a.size());
    for (std::size_t j = 0; j < a.size(); ++j) {
      margin[j] = y[j] * a[j];
    }
    std::vector<double> log_sigmoid_value(a.size());
    log_sigmoid(GetParam(), margin.data(), log_sigmoid_value.data(),
                static_cast<index_t>(a.size()));
    for (std::size_t j = 0; j < a.size(); ++j) {
      const LinkTerms want = logistic_link(a[j], y[j]);
      ASSERT_TRUE(close_to(terms.value[j], want.value, "value", a[j]));
      ASSERT_TRUE(close_to(terms.first[j], want.first, "first", a[j]));
      ASSERT_TRUE(close_to(terms.second[j], want.second, "second", a[j]));
      // The line search's value-only passes take the log-sigmoid; they must agree with the
      // full evaluations to the bit, or the search compares two different functions.
      ASSERT_EQ(terms.value[j], log_sigmoid_value[j]) << "a = " << a[j] << ", y = " << y[j];
    }
  }
}

TEST_P(RowBlockKernels, LogisticTermsAreIndependentOfCountAndPosition) {
  std::vector<double> a = predictors();
  a.resize(150);
  const std::vector<double> y = labels(a.size(), false);
  const Terms full = link_terms(GetParam(), a, y);
  for (std::size_t start : {0, 1, 5}) {
    for (std::size_t count = 0; count + start <= 100; count += 3) {
      const std::vector<double> part_a(a.begin() + start, a.begin() + start + count);
      const std::vector<double> part_y(y.begin() + start, y.begin() + start + count);
      const Terms part = link_terms(GetParam(), part_a, part_y);
      for (std::size_t j = 0; j < count; ++j) {
        ASSERT_EQ(part.value[j], full.value[start + j]) << count << " from " << start;
        ASSERT_EQ(part.first[j], full.first[start + j]) << count << " from " << start;
        ASSERT_EQ(part.second[j], full.second[start + j]) << count << " from " << start;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCompiledSets, RowBlockKernels, test::kEveryIsa, test::isa_test_name);

TEST(RowBlockKernelsAcrossSets, Avx2AndAvx512GiveTheSameLinkTerms) {
  if (!support::supported(support::Isa::avx2) || !support::supported(support::Isa::avx512)) {
    GTEST_SKIP() << "needs a CPU with both AVX2 and AVX-512";
  }
  const std::vector<double> a = predictors();
  const std::vector<double> y = labels(a.size(), false);
  const Terms narrow = link_terms(support::Isa::avx2, a, y);
  const Terms wide = link_terms(support::Isa::avx512, a, y);
  EXPECT_EQ(narrow.value, wide.value);
  EXPECT_EQ(narrow.first, wide.first);
  EXPECT_EQ(narrow.second, wide.second);
}

}  // namespace
}  // namespace coreset::models::simd
