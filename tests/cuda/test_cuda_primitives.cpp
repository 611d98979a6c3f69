// Every primitive of the GPU backend against the CPU backend (the reference) on fresh random
// inputs, at sizes that are not multiples of any block size. Label `gpu`: skipped without one.
// Elementwise steps and selections must agree exactly (the kernels round as the CPU does);
// products and reductions to a few ulps per term (the summation orders differ).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/gpu_test_support.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/top_k_oracle.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/launch.hpp"
#include "kernels/list_product_logic.hpp"
#include "kernels/phi_t_r_kernel.hpp"
#include "kernels/streamed_columns_logic.hpp"
#include "kernels/tiled_columns_logic.hpp"
#include "kernels/transfer.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"

namespace coreset::cuda {
namespace {

using solvers::SelectionRule;
using test::random_sparse;
using test::to_cpu;
using test::to_gpu;

struct Shape {
  index_t rows;
  index_t cols;
};
// Block sizes are 256 (and 32 for warps): none of these is a multiple of either.
const Shape kShapes[] = {{1, 1}, {3, 37}, {33, 1000}, {257, 4099}, {7, 70001}};

template <class T>
class GpuPrimitives : public ::testing::Test {
 protected:
  void SetUp() override { CORESET_REQUIRE_GPU(); }
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuPrimitives, Precisions);

template <class T>
std::vector<T> random_vector(index_t size, std::uint64_t seed) {
  return test::gaussian_values<T>(size, seed);
}

template <class T>
void expect_near_vectors(const std::vector<T>& gpu, const std::vector<T>& cpu, index_t terms,
                         const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  double magnitude = 0.0;
  for (const T v : cpu) {
    magnitude = std::max(magnitude, std::abs(static_cast<double>(v)));
  }
  const double tolerance = test::sum_tolerance<T>(terms, magnitude);
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_NEAR(gpu[i], cpu[i], tolerance) << what << " entry " << i;
  }
}

template <class T>
void expect_same_sparse(const solvers::SparseVector<T>& gpu, const solvers::SparseVector<T>& cpu,
                        const std::string& what) {
  EXPECT_EQ(gpu.index, cpu.index) << what;
  ASSERT_EQ(gpu.value.size(), cpu.value.size()) << what;
  for (std::size_t p = 0; p < cpu.value.size(); ++p) {
    EXPECT_EQ(gpu.value[p], cpu.value[p]) << what << " at index " << cpu.index[p];
  }
}

TYPED_TEST(GpuPrimitives, DensePassesMatchTheCpu) {
  using T = TypeParam;
  for (const Shape shape : kShapes) {
    const Matrix<T> phi = test::gaussian_matrix<T>(shape.rows, shape.cols, 11 + shape.cols);
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    Resources resources;
    CudaBackend<T> gpu(resources, phi.view());
    const std::vector<T> r = random_vector<T>(shape.rows, 5);
    const std::vector<T> v = random_vector<T>(shape.cols, 6);
    typename CudaBackend<T>::SampleVector r_gpu;
    typename CudaBackend<T>::DatapointVector v_gpu;
    gpu.upload(r, r_gpu);
    gpu.upload(v, v_gpu);
    const std::string at = " at " + std::to_string(shape.rows) + " x " + std::to_string(shape.cols);

    auto out_cpu = cpu.make_datapoint_vector();
    auto out_gpu = gpu.make_datapoint_vector();
    cpu.phi_t_times(r, out_cpu);
    gpu.phi_t_times(r_gpu, out_gpu);
    const std::vector<T> gradient = gpu.download(out_gpu);
    expect_near_vectors(gradient, out_cpu, shape.rows, "phi_t_times" + at);
    // The backend's Phi^T r is a kernel of ours at these S (S <= 1024): its arithmetic exactly.
    const kernels::PhiTr chosen = gpu.phi_t_r_kernel();
    ASSERT_EQ(chosen, kernels::phi_t_r_kernel(shape.rows, sizeof(T))) << at;
    ASSERT_NE(chosen, kernels::PhiTr::cublas) << at;
    const index_t width =
        kernels::streamed_columns::load_width(gpu.phi_data(), shape.rows, sizeof(T));
    for (index_t j = 0; j < shape.cols; ++j) {
      const T expected =
          chosen == kernels::PhiTr::tiled
              ? kernels::tiled_columns::dot(phi.column(j), r.data(), shape.rows)
              : kernels::streamed_columns::dot(phi.column(j), r.data(), shape.rows, width);
      ASSERT_EQ(gradient[static_cast<std::size_t>(j)], expected)
          << "phi_t_times by " << kernels::to_string(chosen) << at << ", column " << j;
    }
    // Every kernel the backend may be told to take, against the CPU; one that does not take the
    // columns is refused and leaves the choice as it was.
    for (const kernels::PhiTr kernel :
         {kernels::PhiTr::tiled, kernels::PhiTr::streamed, kernels::PhiTr::cublas}) {
      if (!kernels::phi_t_r_takes(kernel, shape.rows, sizeof(T))) {
        EXPECT_THROW(gpu.compute_phi_t_r_by(kernel), InvalidArgument);
        EXPECT_EQ(gpu.phi_t_r_kernel(), chosen);
        continue;
      }
      gpu.compute_phi_t_r_by(kernel);
      EXPECT_EQ(gpu.phi_t_r_kernel(), kernel);
      gpu.phi_t_times(r_gpu, out_gpu);
      expect_near_vectors(gpu.download(out_gpu), out_cpu, shape.rows,
                          std::string("phi_t_times by ") + kernels::to_string(kernel) + at);
    }
    gpu.compute_phi_t_r_by(kernels::PhiTr::automatic);
    EXPECT_EQ(gpu.phi_t_r_kernel(), chosen);

    auto short_cpu = cpu.make_sample_vector();
    auto short_gpu = gpu.make_sample_vector();
    cpu.phi_times_dense(v, short_cpu);
    gpu.phi_times_dense(v_gpu, short_gpu);
    expect_near_vectors(gpu.download(short_gpu), short_cpu, shape.cols, "phi_times_dense" + at);
    cpu.column_sums(short_cpu);
    gpu.column_sums(short_gpu);
    expect_near_vectors(gpu.download(short_gpu), short_cpu, shape.cols, "column_sums" + at);

    cpu.column_norms(out_cpu);
    gpu.column_norms(out_gpu);
    expect_near_vectors(gpu.download(out_gpu), out_cpu, shape.rows, "column_norms" + at);

    // The batch gradient: a subset of columns, 0 elsewhere (sentinel values must be cleared).
    const auto subset = random_sparse<T>(shape.cols, shape.cols / 3 + 1, 7, true).index;
    gpu.upload(std::vector<T>(static_cast<std::size_t>(shape.cols), T(9)), out_gpu);
    cpu.phi_t_times_on_subset(r, subset, out_cpu);
    gpu.phi_t_times_on_subset(r_gpu, subset, out_gpu);
    expect_near_vectors(gpu.download(out_gpu), out_cpu, shape.rows, "on_subset" + at);
  }
}

// A selection test's vector: Gaussian in trial 1, awkward values (ties, NaNs, infinities) in the
// others.
template <class T>
std::vector<T> selection_values(index_t n, int trial, std::uint64_t seed) {
  return trial == 1 ? test::gaussian_values<T>(n, seed) : test::awkward_values<T>(n, seed);
}

TYPED_TEST(GpuPrimitives, TopKMatchesTheCpuAndNthElementOnAwkwardInputs) {
  using T = TypeParam;
  Resources resources;
  // 4096 and 4097: one tile of the one-block selection and the first key of its second tile;
  // 16384 and 16385: the last size of the one-block selection and the first of the multi-block
  // one.
  for (const index_t n :
       {1, 2, 5, 255, 256, 257, 1000, 4095, 4096, 4097, 16384, 16385, 65537, 300007}) {
    const Matrix<T> phi(1, n);  // only the size matters here
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    CudaBackend<T> gpu(resources, phi.view());
    // Hints at every k they serve (the default only up to kLargestHintedBudget): over 16384
    // keys, k = n / 3 + 1 selects with one too, on ties, NaNs, infinities and exclusions.
    gpu.reuse_thresholds(true, CudaBackend<T>::kEveryBudget);
    // The excluding trial first: the exclusion mask must be clear again for the two after it.
    for (const int trial : {2, 0, 1}) {
      const auto seed = static_cast<std::uint64_t>(n + 101 * trial);
      const std::vector<T> v = selection_values<T>(n, trial, seed);
      typename CudaBackend<T>::DatapointVector v_gpu;
      gpu.upload(v, v_gpu);
      // trial 2: a third of the entries excluded (as supp(z) is in the expansion step).
      solvers::SparseVector<T> exclude;
      if (trial == 2) {
        exclude = random_sparse<T>(n, n / 3 + 1, seed + 1, true);
      }
      std::vector<bool> excluded(static_cast<std::size_t>(n), false);
      for (const index_t i : exclude.index) {
        excluded[static_cast<std::size_t>(i)] = true;
      }
      typename CudaBackend<T>::SparseDatapointVector exclude_gpu;
      if (trial == 2) {
        to_gpu(gpu, exclude, exclude_gpu);
      }
      for (const auto rule : {SelectionRule::largest_positive, SelectionRule::largest_magnitude}) {
        for (const index_t k : {index_t{1}, n / 3 + 1, n - 1, n, n + 10}) {
          if (k < 1) {
            continue;
          }
          solvers::SparseVector<T> out_cpu;
          typename CudaBackend<T>::SparseDatapointVector out_gpu;
          cpu.select_top_k(v, k, rule, exclude, out_cpu);
          gpu.select_top_k(v_gpu, k, rule, exclude_gpu, out_gpu);
          const auto got = to_cpu(gpu, out_gpu);
          const std::string what = "n " + std::to_string(n) + " k " + std::to_string(k) +
                                   " trial " + std::to_string(trial);
          expect_same_sparse(got, out_cpu, what);
          EXPECT_EQ(got.index, test::nth_element_top_k(v, k, rule, excluded)) << what;
        }
      }
    }
  }
}

// Both selections over one vector at once (select_top_k_both_rules): each the CPU's selection
// under its rule and the oracle's, where hints serve (k <= 256, two selections as before) and
// where they do not (one set of histogram passes for both, kernels::top_k_both_rules), with reuse
// off (every k the shared passes), with and without an exclusion, one pair after another (the
// second histogram and state must be left ready) and a plain selection without the exclusion
// after each (the mask must be clear again).
TYPED_TEST(GpuPrimitives, BothSelectionsAreEachRulesOwn) {
  using T = TypeParam;
  Resources resources;
  // One block's selection (5) and the multi-block passes (over 16384): the sizes whose kernels
  // differ, kept few for the sanitizers' runs.
  for (const index_t n : {5, 16385, 65537}) {
    const Matrix<T> phi(1, n);  // only the size matters here
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    CudaBackend<T> gpu(resources, phi.view());
    const typename CudaBackend<T>::SparseDatapointVector none;
    for (const bool reuse : {true, false}) {
      gpu.reuse_thresholds(reuse);
      for (const int trial : {0, 1, 2}) {
        const auto seed = static_cast<std::uint64_t>(n + 37 * trial);
        const std::vector<T> v = selection_values<T>(n, trial, seed);
        typename CudaBackend<T>::DatapointVector v_gpu;
        gpu.upload(v, v_gpu);
        solvers::SparseVector<T> exclude;
        typename CudaBackend<T>::SparseDatapointVector exclude_gpu;
        if (trial != 1) {
          exclude = random_sparse<T>(n, n / 5 + 1, seed + 1, true);
          to_gpu(gpu, exclude, exclude_gpu);
        }
        std::vector<bool> excluded(static_cast<std::size_t>(n), false);
        for (const index_t i : exclude.index) {
          excluded[static_cast<std::size_t>(i)] = true;
        }
        for (const index_t k : {index_t{1}, index_t{100}, index_t{300}, n / 3 + 1, n + 10}) {
          const std::string what = "n " + std::to_string(n) + " k " + std::to_string(k) +
                                   " trial " + std::to_string(trial) +
                                   (reuse ? " with hints" : " without hints");
          typename CudaBackend<T>::SparseDatapointVector by_magnitude_gpu;
          typename CudaBackend<T>::SparseDatapointVector positive_gpu;
          const auto before = gpu.selection_counts();
          gpu.select_top_k_both_rules(v_gpu, k, trial != 1 ? exclude_gpu : none, by_magnitude_gpu,
                                      positive_gpu);
          // Hinted selections are counted in their hints (two); the shared passes take none.
          const auto after = gpu.selection_counts();
          const bool hinted =
              reuse && k <= kernels::radix::kLargestHintedBudget &&
              kernels::radix::hint_serves(n, std::min(k, n), gpu.selection_capacity());
          EXPECT_EQ(after.by_candidates + after.full - before.by_candidates - before.full,
                    hinted ? 2 : 0)
              << what;
          for (const auto rule :
               {SelectionRule::largest_magnitude, SelectionRule::largest_positive}) {
            solvers::SparseVector<T> out_cpu;
            cpu.select_top_k(v, k, rule, exclude, out_cpu);
            const auto got = to_cpu(
                gpu, rule == SelectionRule::largest_magnitude ? by_magnitude_gpu : positive_gpu);
            const std::string which =
                what + (rule == SelectionRule::largest_magnitude ? " magnitude" : " positive");
            expect_same_sparse(got, out_cpu, which);
            EXPECT_EQ(got.index, test::nth_element_top_k(v, k, rule, excluded)) << which;
          }
          typename CudaBackend<T>::SparseDatapointVector unexcluded;
          gpu.select_top_k(v_gpu, k, SelectionRule::largest_positive, none, unexcluded);
          EXPECT_EQ(to_cpu(gpu, unexcluded).index,
                    test::nth_element_top_k(v, k, SelectionRule::largest_positive))
              << what << ": the exclusion mask left set";
        }
      }
    }
  }
}

// Threshold reuse (kernels/radix_select_logic.hpp, ThresholdHint): one vector drifting a little
// and selected again after every drift, as a solver's gradient is, with and without an excluded
// support, and one jump in scale. Every selection must be the oracle's; after the first of each
// rule and each jump, the selections must be made among the candidates, except for a few that
// widen the bound; with reuse off, the same positions.
TYPED_TEST(GpuPrimitives, TopKReusesItsThresholdOnADriftingVectorAndStaysExact) {
  using T = TypeParam;
  Resources resources;
  const index_t n = 100003;
  const Matrix<T> phi(1, n);  // only the size matters here
  CudaBackend<T> gpu(resources, phi.view());
  // The mechanism at every k it serves: by default only k <= kLargestHintedBudget use hints.
  gpu.reuse_thresholds(true, CudaBackend<T>::kEveryBudget);
  std::vector<T> v = test::gaussian_values<T>(n, 9);
  std::mt19937_64 generator(4);
  const solvers::SparseVector<T> exclude = random_sparse<T>(n, 2999, 21, true);
  std::vector<bool> excluded(static_cast<std::size_t>(n), false);
  for (const index_t i : exclude.index) {
    excluded[static_cast<std::size_t>(i)] = true;
  }
  typename CudaBackend<T>::SparseDatapointVector exclude_gpu;
  to_gpu(gpu, exclude, exclude_gpu);
  const typename CudaBackend<T>::SparseDatapointVector none;
  const int steps = 16;
  for (const index_t k : {index_t{1}, index_t{100}, index_t{1000}, index_t{3000}}) {
    const auto before = gpu.selection_counts();
    for (int step = 0; step < steps; ++step) {
      test::drift(v, generator, step == steps / 2 ? 16.0 : 1.0);
      typename CudaBackend<T>::DatapointVector v_gpu;
      gpu.upload(v, v_gpu);
      for (const auto rule : {SelectionRule::largest_positive, SelectionRule::largest_magnitude}) {
        const bool excluding = step % 2 == 1;
        typename CudaBackend<T>::SparseDatapointVector out;
        gpu.select_top_k(v_gpu, k, rule, excluding ? exclude_gpu : none, out);
        const auto got = to_cpu(gpu, out);
        const std::string what = "k " + std::to_string(k) + " step " + std::to_string(step) +
                                 " rule " + std::to_string(static_cast<int>(rule));
        ASSERT_EQ(got.index,
                  test::nth_element_top_k(v, k, rule, excluding ? excluded : std::vector<bool>{}))
            << what;
        for (std::size_t p = 0; p < got.index.size(); ++p) {
          ASSERT_EQ(got.value[p], v[static_cast<std::size_t>(got.index[p])]) << what;
        }
      }
    }
    const auto after = gpu.selection_counts();
    const long long by_candidates = after.by_candidates - before.by_candidates;
    const long long full = after.full - before.full;
    EXPECT_EQ(by_candidates + full, 2 * steps) << "k " << k;
    if (k <= 1000) {
      // Per rule: the first selection of this k after another k's hint, the jump, and a few
      // widenings. The top 1000 of 100003 Gaussians are 1%: the keys up to 1/8 of an octave
      // below t are about 2%, about 2000, well under 16384. (At k = 3000, about 9000, and with
      // the exclusions and the jump nearer the capacity: exactness only.)
      EXPECT_LE(full, 2 * 6) << "k " << k << ": " << by_candidates << " among candidates";
    }
  }
  // Reuse off: the full passes every time, and the same positions.
  gpu.reuse_thresholds(false);
  const auto before = gpu.selection_counts();
  typename CudaBackend<T>::DatapointVector v_gpu;
  gpu.upload(v, v_gpu);
  typename CudaBackend<T>::SparseDatapointVector out;
  gpu.select_top_k(v_gpu, 1000, SelectionRule::largest_magnitude, none, out);
  EXPECT_EQ(to_cpu(gpu, out).index,
            test::nth_element_top_k(v, 1000, SelectionRule::largest_magnitude));
  const auto after = gpu.selection_counts();
  EXPECT_EQ(after.by_candidates, before.by_candidates);
  EXPECT_EQ(after.full, before.full);
}

TYPED_TEST(GpuPrimitives, SparseProductsMatchTheCpu) {
  using T = TypeParam;
  Resources resources;
  for (const Shape shape : kShapes) {
    const Matrix<T> phi = test::gaussian_matrix<T>(shape.rows, shape.cols, 3 + shape.rows);
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    CudaBackend<T> gpu(resources, phi.view());
    const std::vector<T> r = random_vector<T>(shape.rows, 8);
    typename CudaBackend<T>::SampleVector r_gpu;
    gpu.upload(r, r_gpu);
    for (const index_t m : {index_t{0}, index_t{1}, index_t{50}, shape.cols}) {
      const auto v = random_sparse<T>(shape.cols, m, 9 + m, false);
      typename CudaBackend<T>::SparseDatapointVector v_gpu;
      to_gpu(gpu, v, v_gpu);
      expect_same_sparse(to_cpu(gpu, v_gpu), v, "round trip");

      auto out_cpu = cpu.make_sample_vector();
      auto out_gpu = gpu.make_sample_vector();
      cpu.phi_times(v, out_cpu);
      gpu.phi_times(v_gpu, out_gpu);
      expect_near_vectors(gpu.download(out_gpu), out_cpu, m, "phi_times m " + std::to_string(m));

      solvers::SparseVector<T> on_cpu;
      typename CudaBackend<T>::SparseDatapointVector on_gpu;
      cpu.phi_t_times_on(v, r, on_cpu);
      gpu.phi_t_times_on(v_gpu, r_gpu, on_gpu);
      const auto got = to_cpu(gpu, on_gpu);
      EXPECT_EQ(got.index, on_cpu.index);
      expect_near_vectors(got.value, on_cpu.value, shape.rows, "phi_t_times_on");

      EXPECT_NEAR(gpu.read(gpu.squared_norm(v_gpu)), cpu.squared_norm(v),
                  test::sum_tolerance<double>(m, cpu.squared_norm(v)));
    }
    // Values over another vector's support into one output, longest support first: the launch
    // that writes the values also copies the support and its count over the last one's.
    typename CudaBackend<T>::SparseDatapointVector dots_gpu;
    typename CudaBackend<T>::SparseDatapointVector gathered_gpu;
    const std::vector<T> dense = random_vector<T>(shape.cols, 12);
    typename CudaBackend<T>::DatapointVector dense_gpu;
    gpu.upload(dense, dense_gpu);
    for (const index_t m : {shape.cols, index_t{50}, index_t{1}, index_t{0}}) {
      const auto v = random_sparse<T>(shape.cols, std::min(m, shape.cols), 19 + m, false);
      typename CudaBackend<T>::SparseDatapointVector v_gpu;
      to_gpu(gpu, v, v_gpu);
      solvers::SparseVector<T> dots_cpu;
      solvers::SparseVector<T> gathered_cpu;
      cpu.phi_t_times_on(v, r, dots_cpu);
      cpu.gather(dense, v, gathered_cpu);
      gpu.phi_t_times_on(v_gpu, r_gpu, dots_gpu);
      gpu.gather(dense_gpu, v_gpu, gathered_gpu);
      const auto dots = to_cpu(gpu, dots_gpu);
      ASSERT_EQ(dots.index, v.index) << "phi_t_times_on over a shorter support, m " << m;
      expect_near_vectors(dots.value, dots_cpu.value, shape.rows, "phi_t_times_on, reused");
      expect_same_sparse(to_cpu(gpu, gathered_gpu), gathered_cpu, "gather, reused");
    }
  }
}

TYPED_TEST(GpuPrimitives, SparseStepsRoundExactlyAsTheCpu) {
  using T = TypeParam;
  Resources resources;
  for (const Shape shape : kShapes) {
    const index_t n = shape.cols;
    const Matrix<T> phi(1, n);
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    CudaBackend<T> gpu(resources, phi.view());
    using SparseDatapointVector = typename CudaBackend<T>::SparseDatapointVector;
    const auto a = random_sparse<T>(n, n / 4 + 1, 21, true);
    const auto b = random_sparse<T>(n, n / 5 + 1, 22, true);
    const auto g = random_sparse<T>(n, n / 6 + 1, 23, false);
    SparseDatapointVector a_gpu;
    SparseDatapointVector b_gpu;
    SparseDatapointVector g_gpu;
    to_gpu(gpu, a, a_gpu);
    to_gpu(gpu, b, b_gpu);
    to_gpu(gpu, g, g_gpu);
    const std::vector<T> dense = random_vector<T>(n, 24);
    typename CudaBackend<T>::DatapointVector dense_gpu;
    gpu.upload(dense, dense_gpu);
    const std::string at = " n " + std::to_string(n);

    solvers::SparseVector<T> out_cpu;
    SparseDatapointVector out_gpu;
    cpu.gather(dense, a, out_cpu);
    gpu.gather(dense_gpu, a_gpu, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "gather" + at);
    cpu.restrict_to_union(dense, a, b, out_cpu);
    gpu.restrict_to_union(dense_gpu, a_gpu, b_gpu, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "restrict_to_union" + at);
    cpu.subtract(a, b, out_cpu);
    gpu.subtract(a_gpu, b_gpu, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "subtract" + at);
    // a - a: every entry is an exact zero and leaves the support.
    gpu.subtract(a_gpu, a_gpu, out_gpu);
    EXPECT_TRUE(to_cpu(gpu, out_gpu).index.empty()) << "a - a" + at;
    // Into one of its inputs (through the slots: a launch that made and compacted them at once
    // would have to prepare its output, the input, first).
    SparseDatapointVector c_gpu;
    gpu.copy(a_gpu, c_gpu);
    gpu.subtract(c_gpu, b_gpu, c_gpu);
    cpu.subtract(a, b, out_cpu);
    expect_same_sparse(to_cpu(gpu, c_gpu), out_cpu, "subtract into its first input" + at);

    for (const double tau : {0.0, 0.37, -1.0, 1.5}) {
      cpu.extrapolate(a, b, tau, out_cpu);
      gpu.extrapolate(a_gpu, b_gpu, gpu.constant(tau), out_gpu);
      expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "extrapolate" + at);
    }
    for (const double step : {0.0, 0.25, -3.0}) {
      solvers::SparseVector<T> g_on_a;
      cpu.gather(dense, a, g_on_a);
      cpu.clamped_step(a, step, g_on_a, out_cpu);
      SparseDatapointVector g_on_a_gpu;
      gpu.gather(dense_gpu, a_gpu, g_on_a_gpu);
      gpu.clamped_step(a_gpu, gpu.constant(step), g_on_a_gpu, out_gpu);
      expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "clamped_step" + at);

      // The projected step over supp(a) and the positive gradient entries outside it.
      solvers::SparseVector<T> outside;
      cpu.select_top_k(dense, n / 7 + 1, SelectionRule::largest_positive, a, outside);
      SparseDatapointVector outside_gpu;
      gpu.select_top_k(dense_gpu, n / 7 + 1, SelectionRule::largest_positive, a_gpu, outside_gpu);
      for (const index_t k : {index_t{1}, n / 5 + 1, n}) {
        cpu.projected_step(a, g_on_a, outside, step, k, out_cpu);
        gpu.projected_step(a_gpu, g_on_a_gpu, outside_gpu, gpu.constant(step), k, out_gpu);
        expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu,
                           "projected_step k " + std::to_string(k) + at);
      }
    }
    const index_t j = n / 2;
    cpu.convex_step(a, 0.3, j, 2.5, out_cpu);
    gpu.convex_step(a_gpu, 0.3, j, 2.5, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "convex_step" + at);
    cpu.convex_step(a, 1.0, j, 2.5, out_cpu);  // gamma = 1: only the vertex survives
    gpu.convex_step(a_gpu, 1.0, j, 2.5, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "convex_step gamma 1" + at);
    cpu.scale(-0.75, g, out_cpu);
    gpu.scale(-0.75, g_gpu, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "scale" + at);
    gpu.scale(2.0, g_gpu, g_gpu);  // in place
    solvers::SparseVector<T> doubled;
    cpu.scale(2.0, g, doubled);
    expect_same_sparse(to_cpu(gpu, g_gpu), doubled, "scale in place" + at);
    gpu.copy(a_gpu, out_gpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), a, "copy" + at);

    // A default-constructed sparse vector is empty everywhere it is read.
    const SparseDatapointVector nothing;
    gpu.extrapolate(a_gpu, nothing, gpu.constant(0.5), out_gpu);
    cpu.extrapolate(a, {}, 0.5, out_cpu);
    expect_same_sparse(to_cpu(gpu, out_gpu), out_cpu, "extrapolate from empty" + at);
    EXPECT_EQ(gpu.read(gpu.squared_norm(nothing)), 0.0);
    EXPECT_TRUE(gpu.to_coreset(nothing).indices.empty());

    const double distance = cpu.squared_distance(a, b);
    EXPECT_NEAR(gpu.read(gpu.squared_distance(a_gpu, b_gpu)), distance,
                test::sum_tolerance<double>(n, distance));
    const Coreset coreset = gpu.to_coreset(g_gpu);
    const Coreset expected = cpu.to_coreset(doubled);
    EXPECT_EQ(coreset.indices, expected.indices);
    EXPECT_EQ(coreset.weights, expected.weights);
  }
}

// Which launches a sparse step takes, by the nodes of its recording, and its result against
// the CPU's. A one-list step (the clamped step) of up to 2048 slots: one launch that makes and
// compacts them (exactly 2048 included); past it, or into the gradient it reads (the output is
// prepared before the one launch would read it), two. A union (the difference, the
// extrapolation) takes its two launches at any size, into its own input too. The inputs of the
// extrapolation have fewer entries than their bound (a difference whose equal entries left it).
TYPED_TEST(GpuPrimitives, OneListStepsOfOneTileTakeOneLaunchAndUnionsTwo) {
  using T = TypeParam;
  using SparseDatapointVector = typename CudaBackend<T>::SparseDatapointVector;
  Resources resources;
  const index_t n = 5000;
  const Matrix<T> phi(1, n);
  cpu::CpuBackend<T> cpu(phi.view(), 1);
  CudaBackend<T> gpu(resources, phi.view());
  // Runs step(out) once to make room for its output (a recording allocates nothing), then
  // records it, checks its nodes, replays it and checks its result. `reset` puts back an input
  // the step overwrites, before each run and before the recording: a step into its own input
  // leaves that input's bound at its output's, and a recording of the step from there would
  // need more room than the first run made.
  const auto expect_step = [&](const std::string& what, std::size_t nodes, const auto& step,
                               SparseDatapointVector& out, const solvers::SparseVector<T>& want,
                               const auto& reset) {
    reset();
    step(out);
    reset();
    const auto recording = gpu.record([&] { step(out); });
    EXPECT_EQ(gpu.recorded_nodes(), nodes) << what;
    reset();
    gpu.replay(recording, 1);
    expect_same_sparse(to_cpu(gpu, out), want, what);
  };
  const auto nothing = [] {};
  for (const index_t b_entries : {index_t{3}, index_t{1025}}) {
    const auto a = random_sparse<T>(n, 1024, 71, false);
    const auto b = random_sparse<T>(n, b_entries, 72, false);
    SparseDatapointVector a_gpu;
    SparseDatapointVector b_gpu;
    to_gpu(gpu, a, a_gpu);
    to_gpu(gpu, b, b_gpu);
    const std::string at = " slots " + std::to_string(a.index.size() + b.index.size());
    solvers::SparseVector<T> want;
    cpu.subtract(a, b, want);
    SparseDatapointVector out_gpu;
    expect_step(
        "subtract" + at, 2, [&](SparseDatapointVector& out) { gpu.subtract(a_gpu, b_gpu, out); },
        out_gpu, want, nothing);
    // a - (a with every other entry changed): the equal entries leave, so the difference holds
    // fewer entries than its bound, and the extrapolation reads it so.
    solvers::SparseVector<T> changed = a;
    for (std::size_t p = 0; p < changed.value.size(); p += 2) {
      changed.value[p] = static_cast<T>(changed.value[p] * T(2));
    }
    SparseDatapointVector changed_gpu;
    to_gpu(gpu, changed, changed_gpu);
    solvers::SparseVector<T> difference;
    cpu.subtract(a, changed, difference);
    ASSERT_LT(difference.index.size(), a.index.size());
    SparseDatapointVector difference_gpu;
    gpu.subtract(a_gpu, changed_gpu, difference_gpu);
    cpu.extrapolate(difference, b, 0.37, want);
    const auto tau = gpu.constant(0.37);
    expect_step(
        "extrapolate from a shorter list" + at, 2,
        [&](SparseDatapointVector& out) { gpu.extrapolate(difference_gpu, b_gpu, tau, out); },
        out_gpu, want, nothing);
    SparseDatapointVector c_gpu;
    cpu.subtract(a, b, want);
    expect_step(
        "subtract into its first input" + at, 2,
        [&](SparseDatapointVector& out) { gpu.subtract(out, b_gpu, out); }, c_gpu, want,
        [&] { gpu.copy(a_gpu, c_gpu); });
  }
  // The clamped step: one launch into a vector of its own up to 2048 entries, two past it; two
  // into the gradient it reads.
  for (const index_t entries : {index_t{1000}, index_t{2048}, index_t{2049}}) {
    const std::string at = " entries " + std::to_string(entries);
    const auto x = random_sparse<T>(n, entries, 73, true);
    const auto g = random_sparse<T>(n, entries, 74, false);
    solvers::SparseVector<T> g_on_x;
    g_on_x.index = x.index;
    g_on_x.value = g.value;
    SparseDatapointVector x_gpu;
    SparseDatapointVector g_gpu;
    to_gpu(gpu, x, x_gpu);
    to_gpu(gpu, g_on_x, g_gpu);
    solvers::SparseVector<T> want;
    cpu.clamped_step(x, -0.5, g_on_x, want);
    const auto step = gpu.constant(-0.5);
    SparseDatapointVector out_gpu;
    expect_step(
        "clamped_step" + at, entries <= 2048 ? 1 : 2,
        [&](SparseDatapointVector& out) { gpu.clamped_step(x_gpu, step, g_gpu, out); }, out_gpu,
        want, nothing);
    expect_step(
        "clamped_step into its gradient" + at, 2,
        [&](SparseDatapointVector& out) { gpu.clamped_step(x_gpu, step, out, out); }, g_gpu, want,
        [&] { to_gpu(gpu, g_on_x, g_gpu); });
  }
}

// Unions made and compacted in one launch when asked (CudaBackend::unions_in_one_launch,
// kernels::merge_compacted: the lists' indices in shared memory, the slots striped over the
// threads) give the two launches' bits: the difference, the extrapolation, restrict_to_union and
// the convex step, over supports that overlap (void slots), are disjoint, are empty, fill one
// row of 256 slots, its first slot past it, two lists of 1024 (exactly one tile), and one slot
// past the tile (two launches again), each recorded: one node up to 2048 slots, two past it, and
// two into the step's own input, whatever the slots.
TYPED_TEST(GpuPrimitives, UnionsInOneLaunchGiveTheTwoLaunchesBits) {
  using T = TypeParam;
  using SparseDatapointVector = typename CudaBackend<T>::SparseDatapointVector;
  Resources resources;
  const index_t n = 5000;
  const Matrix<T> phi(1, n);
  CudaBackend<T> gpu(resources, phi.view());
  const std::vector<T> dense = random_vector<T>(n, 81);
  typename CudaBackend<T>::DatapointVector dense_gpu;
  gpu.upload(dense, dense_gpu);
  const auto tau = gpu.constant(0.37);
  struct Sizes {
    index_t a;
    index_t b;
  };
  for (const Sizes sizes : {Sizes{1, 1}, Sizes{0, 5}, Sizes{7, 0}, Sizes{100, 110}, Sizes{200, 56},
                            Sizes{200, 57}, Sizes{1024, 1024}, Sizes{1000, 1049}}) {
    const auto a = random_sparse<T>(n, sizes.a, 82 + sizes.a, false);
    const auto b = random_sparse<T>(n, sizes.b, 83 + sizes.b, false);
    SparseDatapointVector a_gpu;
    SparseDatapointVector b_gpu;
    to_gpu(gpu, a, a_gpu);
    to_gpu(gpu, b, b_gpu);
    const index_t slots = a_gpu.bound + b_gpu.bound;
    const std::string at = " a " + std::to_string(sizes.a) + " b " + std::to_string(sizes.b);
    // Each union of `union_slots` slots, first in two launches, then in one when asked:
    // recorded, replayed, compared. `other_nodes`: the step's launches besides the union's.
    const auto expect_same = [&](const std::string& what, index_t union_slots,
                                 std::size_t other_nodes, const auto& step) {
      gpu.unions_in_one_launch(false);
      SparseDatapointVector two;
      step(two);
      const solvers::SparseVector<T> want = to_cpu(gpu, two);
      gpu.unions_in_one_launch(true);
      SparseDatapointVector one;
      step(one);  // room for the output: a recording allocates nothing
      const auto recording = gpu.record([&] { step(one); });
      EXPECT_EQ(gpu.recorded_nodes(), other_nodes + (union_slots <= 2048 ? 1u : 2u)) << what << at;
      gpu.replay(recording, 1);
      expect_same_sparse(to_cpu(gpu, one), want, what + at);
      gpu.unions_in_one_launch(false);
    };
    expect_same("subtract", slots, 0,
                [&](SparseDatapointVector& out) { gpu.subtract(a_gpu, b_gpu, out); });
    expect_same("extrapolate", slots, 0,
                [&](SparseDatapointVector& out) { gpu.extrapolate(a_gpu, b_gpu, tau, out); });
    expect_same("restrict_to_union", slots, 0, [&](SparseDatapointVector& out) {
      gpu.restrict_to_union(dense_gpu, a_gpu, b_gpu, out);
    });
    // The convex step's second list is its one vertex, which one launch first writes: a's slots
    // and one.
    expect_same("convex_step", a_gpu.bound + 1, 1,
                [&](SparseDatapointVector& out) { gpu.convex_step(a_gpu, 0.3, n / 2, 2.5, out); });
    // a - b into a itself: prepared before the launch, the output would free an input, so two
    // launches, and the same bits.
    gpu.unions_in_one_launch(true);
    SparseDatapointVector c_gpu;
    gpu.copy(a_gpu, c_gpu);
    gpu.subtract(c_gpu, b_gpu, c_gpu);
    gpu.copy(a_gpu, c_gpu);
    const auto in_place = gpu.record([&] { gpu.subtract(c_gpu, b_gpu, c_gpu); });
    EXPECT_EQ(gpu.recorded_nodes(), 2u) << "subtract into its first input" << at;
    gpu.copy(a_gpu, c_gpu);
    gpu.replay(in_place, 1);
    gpu.unions_in_one_launch(false);
    SparseDatapointVector want_gpu;
    gpu.subtract(a_gpu, b_gpu, want_gpu);
    expect_same_sparse(to_cpu(gpu, c_gpu), to_cpu(gpu, want_gpu), "subtract into its input" + at);
  }
}

// The fused scalars and products (solvers/fused_scalars.hpp: one launch each where the sums fit
// one block; a product's residual in its own launches) give exactly the bits of the compositions
// they replace, which the recorded loop and the host loop both ran before: the line searches,
// the progress numbers and a product with its residual on supports of 1 to 8192 entries (the
// one-block limit) and past it (the composed fallback), S from 1 to past the limit, an empty
// support, overlapping and disjoint supports, and a zero direction (step 0).
TYPED_TEST(GpuPrimitives, FusedScalarsGiveTheCompositionsBits) {
  using T = TypeParam;
  Resources resources;
  // Phi has a column for every datapoint the supports can name (n > 8193, the largest support):
  // the product reads the columns of h's support. Uniform entries: up to 67 million of them.
  const index_t n = 8200;
  for (const index_t rows : {1, 300, 8192, 8193}) {
    const Matrix<T> phi = test::uniform_matrix<T>(rows, n, 5);
    CudaBackend<T> gpu(resources, phi.view());
    typename CudaBackend<T>::SampleVector r;
    typename CudaBackend<T>::SampleVector q;
    gpu.upload(random_vector<T>(rows, 61), r);
    gpu.upload(random_vector<T>(rows, 62), q);
    typename CudaBackend<T>::SampleVector zero;
    gpu.upload(std::vector<T>(static_cast<std::size_t>(rows), T(0)), zero);
    for (const index_t m : {0, 1, 700, 4096, 8192, 8193}) {
      const std::string at = "S " + std::to_string(rows) + ", support " + std::to_string(m);
      typename CudaBackend<T>::SparseDatapointVector g;
      typename CudaBackend<T>::SparseDatapointVector h;
      to_gpu(gpu, random_sparse<T>(n, m, 63 + m, false), g);
      to_gpu(gpu, random_sparse<T>(n, std::max<index_t>(m / 2, 1), 64 + m, true), h);
      const auto fused =
          gpu.read_all(gpu.gradient_line_search(g, q, 0.5), gpu.momentum_line_search(r, q, 1.0),
                       gpu.gradient_line_search(g, zero, 1.0));
      const auto composed =
          gpu.read_all(gpu.line_search(gpu.squared_norm(g), gpu.dot(q, q), 0.5),
                       gpu.line_search(gpu.dot(r, q), gpu.dot(q, q), 1.0),
                       gpu.line_search(gpu.squared_norm(g), gpu.dot(zero, zero), 1.0));
      EXPECT_EQ(fused[0], composed[0]) << "gradient_line_search, " << at;
      EXPECT_EQ(fused[1], composed[1]) << "momentum_line_search, " << at;
      EXPECT_EQ(fused[2], 0.0) << "a zero direction, " << at;
      // The fused launch did run where the sums fit one block (else the comparisons above would
      // hold the composition to itself), and gives the backend's number; past the limit it
      // launches nothing.
      gpu.read(gpu.constant(0.0));  // the uploads are done: the launch below takes stream 0
      kernels::DeviceBuffer<double> slot(1);
      const bool fits = m <= 8192 && rows <= 8192;
      EXPECT_EQ(kernels::gradient_line_search<T>(nullptr,
                                                 {g.index.data(), g.value.data(), g.count.data()},
                                                 g.bound, q.data(), rows, 0.5, slot.data()),
                fits)
          << at;
      if (fits) {
        double direct = 0.0;
        kernels::copy_to_host_async(nullptr, &direct, slot.data(), sizeof(double));
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        EXPECT_EQ(direct, fused[0]) << at;
      }
      // A product with its residual in the product's launches: both vectors the composed bits.
      auto product = gpu.make_sample_vector();
      auto residual = gpu.make_sample_vector();
      auto product_by_parts = gpu.make_sample_vector();
      auto residual_by_parts = gpu.make_sample_vector();
      gpu.phi_times_and_residual(h, r, product, residual);
      gpu.phi_times(h, product_by_parts);
      gpu.subtract(r, product_by_parts, residual_by_parts);
      EXPECT_EQ(gpu.download(product), gpu.download(product_by_parts)) << at;
      EXPECT_EQ(gpu.download(residual), gpu.download(residual_by_parts)) << at;
      const auto progress = gpu.progress_scalars(r, g, h);
      const auto by_parts =
          std::array{gpu.dot(r, r), gpu.squared_distance(g, h), gpu.squared_norm(g)};
      const auto a = gpu.read_all(progress[0], progress[1], progress[2]);
      const auto b = gpu.read_all(by_parts[0], by_parts[1], by_parts[2]);
      EXPECT_EQ(a, b) << "progress_scalars, " << at;
      if (m > 0) {
        EXPECT_GT(a[2], 0.0) << at;  // the sums are not vacuous
      }
    }
  }
}

TYPED_TEST(GpuPrimitives, ScalarsAndShortVectorsMatchTheCpu) {
  using T = TypeParam;
  Resources resources;
  const Matrix<T> phi = test::gaussian_matrix<T>(301, 77, 4);
  cpu::CpuBackend<T> cpu(phi.view(), 1);
  CudaBackend<T> gpu(resources, phi.view());
  const std::vector<T> x = random_vector<T>(301, 31);
  const std::vector<T> z = random_vector<T>(301, 32);
  typename CudaBackend<T>::SampleVector x_gpu;
  typename CudaBackend<T>::SampleVector z_gpu;
  gpu.upload(x, x_gpu);
  gpu.upload(z, z_gpu);
  const double dot = cpu.dot(x, z);
  EXPECT_NEAR(gpu.read(gpu.dot(x_gpu, z_gpu)), dot, test::sum_tolerance<T>(301, 301.0));
  auto out_cpu = cpu.make_sample_vector();
  auto out_gpu = gpu.make_sample_vector();
  cpu.axpby(0.3, x, -1.7, z, out_cpu);
  gpu.axpby(0.3, x_gpu, -1.7, z_gpu, out_gpu);
  EXPECT_EQ(gpu.download(out_gpu), out_cpu);
  cpu.subtract(x, z, out_cpu);
  gpu.subtract(x_gpu, z_gpu, out_gpu);
  EXPECT_EQ(gpu.download(out_gpu), out_cpu);
  gpu.copy(x_gpu, out_gpu);
  EXPECT_EQ(gpu.download(out_gpu), x);

  // The line search's guards run on the device: 0 for a zero or non-finite denominator.
  const auto s = gpu.read_all(gpu.line_search(gpu.constant(3.0), gpu.constant(4.0), 0.5),
                              gpu.line_search(gpu.constant(3.0), gpu.constant(0.0), 1.0),
                              gpu.line_search(gpu.constant(1.0), gpu.constant(-2.0), 1.0),
                              gpu.constant(-7.25));
  EXPECT_EQ(s[0], solvers::guarded_step(3.0, 4.0, 0.5));
  EXPECT_EQ(s[1], 0.0);
  EXPECT_EQ(s[2], 0.0);
  EXPECT_EQ(s[3], -7.25);

  typename CudaBackend<T>::DatapointVector dense_gpu;
  const std::vector<T> dense = random_vector<T>(77, 33);
  gpu.upload(dense, dense_gpu);
  EXPECT_EQ(gpu.read(gpu.value_at(dense_gpu, 76)), static_cast<double>(dense[76]));
  EXPECT_NEAR(gpu.read(gpu.sum(dense_gpu)), cpu.sum(dense), test::sum_tolerance<T>(77, 77.0));
  EXPECT_EQ(gpu.to_host(dense_gpu), cpu.to_host(dense));
  auto scaled_cpu = cpu.make_datapoint_vector();
  auto scaled_gpu = gpu.make_datapoint_vector();
  cpu.scale(0.1, dense, scaled_cpu);
  gpu.scale(0.1, dense_gpu, scaled_gpu);
  EXPECT_EQ(gpu.download(scaled_gpu), scaled_cpu);
  cpu.fill_unit_random(scaled_cpu, 99);
  gpu.fill_unit_random(scaled_gpu, 99);
  EXPECT_EQ(gpu.download(scaled_gpu), scaled_cpu);
  const std::vector<index_t> columns = {0, 76, 13, 13};
  EXPECT_EQ(gpu.columns_to_host(columns), cpu.columns_to_host(columns));
  // A support past Phi's 77 columns is refused on the host, as the CPU backend refuses it.
  typename CudaBackend<T>::SparseDatapointVector outside;
  EXPECT_THROW(gpu.from_host({0, 77}, {1.0, 1.0}, outside), InvalidArgument);
  EXPECT_THROW(gpu.from_host({5, 5}, {1.0, 1.0}, outside), InvalidArgument);
  // Scalars outlive many later ones (the ring of slots is large).
  const auto early = gpu.constant(1.5);
  for (int i = 0; i < 100; ++i) {
    gpu.constant(i);
  }
  EXPECT_EQ(gpu.read(early), 1.5);
}

TYPED_TEST(GpuPrimitives, DuplicateColumnsAndZeroEntriesMatchTheCpu) {
  using T = TypeParam;
  Resources resources;
  Matrix<T> phi = test::gaussian_matrix<T>(19, 5003, 41);
  // Planted copies: of column 7 at 100 and 4000, of column 4001 at 4002 (a copy of a later
  // column is not a duplicate of the earlier one), and a column that differs only by -0.0.
  for (index_t i = 0; i < 19; ++i) {
    phi(i, 100) = phi(i, 7);
    phi(i, 4000) = phi(i, 7);
    phi(i, 4002) = phi(i, 4001);
    phi(i, 300) = T(0);
    phi(i, 301) = T(0);
  }
  phi(3, 301) = -T(0);
  cpu::CpuBackend<T> cpu(phi.view(), 1);
  CudaBackend<T> gpu(resources, phi.view());
  const auto duplicates = gpu.duplicate_columns();
  EXPECT_EQ(duplicates, cpu.duplicate_columns());
  EXPECT_EQ(duplicates, (std::vector<index_t>{100, 4000, 4002}));

  std::vector<T> v = random_vector<T>(5003, 42);
  typename CudaBackend<T>::DatapointVector v_gpu;
  gpu.upload(v, v_gpu);
  gpu.zero_entries(duplicates, v_gpu);
  gpu.zero_entries(duplicates, v_gpu);  // the cached upload path
  cpu.zero_entries(duplicates, v);
  EXPECT_EQ(gpu.download(v_gpu), v);
}

// Phi^T r by column tiles (kernels/columns.cu: phi_t_times_tiled, the backend's Phi^T r for short
// columns): every entry exactly the host replay of its arithmetic
// (kernels/tiled_columns_logic.hpp), with 4 threads per column and with a warp per column (from 129
// entries, and from 95 in double, where 4 threads' tile would not fit), through the 16-byte staging
// of an aligned Phi and the entry-by-entry staging of a Phi one entry off, with one tile per block
// and with blocks that take many in turn; columns too long for a tile are refused. (In float every
// product and most partial sums are exact in double, so the combining order shows mostly in the
// double case.)
TYPED_TEST(GpuPrimitives, TiledColumnProductsMatchTheirHostReplayExactly) {
  using T = TypeParam;
  for (const index_t rows : {1, 3, 4, 37, 95, 100, 128, 129, 500, 682, 683, 1365, 1366}) {
    if (!kernels::tiled_columns::fits(rows, sizeof(T))) {
      EXPECT_THROW(kernels::phi_t_times_tiled<T>(nullptr, nullptr, rows, 1, nullptr, nullptr),
                   InvalidArgument)
          << rows;
      continue;
    }
    const std::vector<T> r = random_vector<T>(rows, 42);
    kernels::DeviceBuffer<T> r_device;
    kernels::upload_async(nullptr, r_device, r.data(), rows);
    // Tiles of 64 columns (4 threads each) or 8 (a warp each): one column, a tile short by one,
    // whole, one over, and the most, where three blocks at most stride over many tiles.
    const bool warp_per_column =
        kernels::tiled_columns::parts_for(rows, sizeof(T)) == kernels::tiled_columns::kMostParts;
    const std::vector<index_t> widths = warp_per_column
                                            ? std::vector<index_t>{1, 7, 8, 9, 1000}
                                            : std::vector<index_t>{1, 63, 64, 65, 1000, 4099};
    for (const index_t cols : widths) {
      for (const index_t offset : {0, 1}) {
        const index_t max_blocks = cols == widths.back() ? 3 : index_t{1} << 16;
        const std::vector<T> phi = random_vector<T>(rows * cols + offset, 41 + rows + cols);
        kernels::DeviceBuffer<T> phi_device;
        kernels::upload_async(nullptr, phi_device, phi.data(), rows * cols + offset);
        kernels::DeviceBuffer<T> out_device(cols);
        kernels::phi_t_times_tiled(nullptr, phi_device.data() + offset, rows, cols, r_device.data(),
                                   out_device.data(), max_blocks);
        std::vector<T> out(static_cast<std::size_t>(cols));
        kernels::copy_to_host_async(nullptr, out.data(), out_device.data(), cols * sizeof(T));
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        for (index_t j = 0; j < cols; ++j) {
          const T expected =
              kernels::tiled_columns::dot(phi.data() + offset + j * rows, r.data(), rows);
          ASSERT_EQ(out[static_cast<std::size_t>(j)], expected)
              << "S " << rows << ", n " << cols << ", offset " << offset << ", column " << j;
        }
      }
    }
  }
}

// Phi^T r by streamed columns (kernels/streamed_columns.cu: phi_t_times_streamed, the backend's
// Phi^T r for longer columns): every entry exactly the host replay of its arithmetic
// (kernels/streamed_columns_logic.hpp) at each number of entries a lane holds (4 to 32, and where
// it changes), with 16-byte loads of an aligned Phi and entry-by-entry loads of one an entry off
// or of columns whose length breaks the alignment, with one warp step, a step short by one, and
// three blocks striding over many; columns too long for a warp's registers are refused. In float
// every product is exact in double and a sum's order seldom shows after the rounding to float, so
// some columns hold +-2^60 (with r = 1 there) where only the documented order gives their total:
// every third column 2^60 as lane 0's first entry and -2^60 as lane 1's first (the products
// each lane adds after them are lost, and the two cancel only at the butterfly's last step), and
// the next one 2^60 and -2^60 as lane 0's first and second entries (they cancel before lane 0's
// later products, which count).
TYPED_TEST(GpuPrimitives, StreamedColumnProductsMatchTheirHostReplayExactly) {
  using T = TypeParam;
  namespace streamed = kernels::streamed_columns;
  for (const index_t rows :
       {1, 3, 4, 37, 100, 128, 129, 256, 257, 500, 512, 513, 1000, 1024, 1025}) {
    if (!streamed::fits(rows, sizeof(T))) {
      EXPECT_THROW(kernels::phi_t_times_streamed<T>(nullptr, nullptr, rows, 1, nullptr, nullptr),
                   InvalidArgument)
          << rows;
      continue;
    }
    const index_t step = streamed::columns_per_step(rows, sizeof(T));
    std::vector<index_t> widths = {1, step + 1, 2 * step - 1, 1001};
    std::sort(widths.begin(), widths.end());
    widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
    for (const index_t offset : {0, 1}) {
      // cudaMalloc's memory is 256-byte aligned: the offset and S decide the loads.
      const bool aligned = offset == 0 && (rows * static_cast<index_t>(sizeof(T))) % 16 == 0;
      const index_t expected_width = aligned ? static_cast<index_t>(16 / sizeof(T)) : 1;
      std::vector<T> r = random_vector<T>(rows, 43);
      // Lane 1's first entry, and lane 0's second.
      const index_t lane_one = expected_width;
      const index_t lane_zero_again = 32 * expected_width;
      for (const index_t i : {index_t{0}, lane_one, lane_zero_again}) {
        if (i < rows) {
          r[static_cast<std::size_t>(i)] = T(1);
        }
      }
      kernels::DeviceBuffer<T> r_device;
      kernels::upload_async(nullptr, r_device, r.data(), rows);
      for (const index_t cols : widths) {
        const index_t max_blocks = cols == 1001 ? 3 : index_t{1} << 16;
        std::vector<T> phi = random_vector<T>(rows * cols + offset, 47 + rows + cols);
        for (index_t j = 0; j < cols; ++j) {
          const index_t other = j % 3 == 0 ? lane_one : j % 3 == 1 ? lane_zero_again : rows;
          if (other < rows) {
            phi[static_cast<std::size_t>(offset + j * rows)] = T(0x1p60);
            phi[static_cast<std::size_t>(offset + j * rows + other)] = T(-0x1p60);
          }
        }
        kernels::DeviceBuffer<T> phi_device;
        kernels::upload_async(nullptr, phi_device, phi.data(), rows * cols + offset);
        const T* columns = phi_device.data() + offset;
        const index_t width = streamed::load_width(columns, rows, sizeof(T));
        ASSERT_EQ(width, expected_width) << rows;
        kernels::DeviceBuffer<T> out_device(cols);
        kernels::phi_t_times_streamed(nullptr, columns, rows, cols, r_device.data(),
                                      out_device.data(), max_blocks);
        std::vector<T> out(static_cast<std::size_t>(cols));
        kernels::copy_to_host_async(nullptr, out.data(), out_device.data(), cols * sizeof(T));
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        for (index_t j = 0; j < cols; ++j) {
          const T expected = streamed::dot(phi.data() + offset + j * rows, r.data(), rows, width);
          ASSERT_EQ(out[static_cast<std::size_t>(j)], expected)
              << "S " << rows << ", n " << cols << ", offset " << offset << ", width " << width
              << ", column " << j;
        }
      }
    }
  }
}

// The products over a support list against their host replay (kernels/list_product_logic.hpp),
// bit for bit, with the fused residual: at bounds on both sides of a chunk's 16 places and of
// the 512 chunks and with chunks of several staged tiles, with half or all of the places past
// the count (holding NaN, never read), on rows that
// take one, two and three row tiles. Row 0 of Phi is all ones and the list's values there cancel
// across a chunk's edge (2^60, 1 at places 0 and 1; -2^60, 1 at places 16 and 17), so that in
// float too only the documented chunks give its total.
TYPED_TEST(GpuPrimitives, ListProductsMatchTheirHostReplayExactly) {
  using T = TypeParam;
  namespace product = kernels::list_product;
  const index_t cols = 4099;
  std::vector<std::pair<index_t, index_t>> product_cases;  // (least chunk, bound)
  for (const index_t bound : {1, 15, 16, 17, 18, 300, 8192, 8193, 20000, 40000, 100000}) {
    product_cases.emplace_back(kernels::kProductChunk, bound);
  }
  for (const index_t bound : {1, 63, 64, 65, 300, 40000}) {
    product_cases.emplace_back(64, bound);
  }
  for (const index_t rows : {1, 37, 100, 257, 513}) {
    std::vector<T> phi = random_vector<T>(rows * cols, 53 + rows);
    for (index_t j = 0; j < cols; ++j) {
      phi[static_cast<std::size_t>(j * rows)] = T(1);
    }
    kernels::DeviceBuffer<T> phi_device;
    kernels::upload_async(nullptr, phi_device, phi.data(), rows * cols);
    const std::vector<T> y = random_vector<T>(rows, 59);
    kernels::DeviceBuffer<T> y_device;
    kernels::upload_async(nullptr, y_device, y.data(), rows);
    // Past 32768 places a chunk holds more than the 64 a block stages at once. Chunks of at least
    // 64 places too (CudaBackend::chunk_products_by, for the benchmark): a block's staged tile
    // full, and past 32768 places more than one.
    for (const auto& [least, bound] : product_cases) {
      for (const index_t count : {bound, (bound + 1) / 2, index_t{0}}) {
        std::vector<index_t> index(static_cast<std::size_t>(bound));
        std::vector<T> value = random_vector<T>(bound, 61 + bound);
        std::mt19937_64 generator(static_cast<std::uint64_t>(bound + rows));
        std::uniform_int_distribution<index_t> column(0, cols - 1);
        for (index_t p = 0; p < bound; ++p) {
          index[static_cast<std::size_t>(p)] = column(generator);
          if (p >= count) {
            value[static_cast<std::size_t>(p)] = std::numeric_limits<T>::quiet_NaN();
          }
        }
        const T cancelling[] = {T(0x1p60), T(1), T(-0x1p60), T(1)};
        const index_t places[] = {0, 1, 16, 17};
        for (int c = 0; c < 4; ++c) {
          if (places[c] < count) {
            value[static_cast<std::size_t>(places[c])] = cancelling[c];
          }
        }
        kernels::DeviceBuffer<index_t> index_device;
        kernels::DeviceBuffer<T> value_device;
        kernels::DeviceBuffer<index_t> count_device;
        kernels::upload_async(nullptr, index_device, index.data(), bound);
        kernels::upload_async(nullptr, value_device, value.data(), bound);
        kernels::upload_async(nullptr, count_device, &count, 1);
        kernels::DeviceBuffer<double> partials(kernels::phi_times_partials(bound, rows, least));
        kernels::DeviceBuffer<T> out_device(rows);
        kernels::DeviceBuffer<T> residual_device(rows);
        kernels::phi_times_list(nullptr, phi_device.data(), rows, index_device.data(),
                                count_device.data(), bound, value_device.data(), partials.data(),
                                out_device.data(), y_device.data(), residual_device.data(), least);
        std::vector<T> out(static_cast<std::size_t>(rows));
        std::vector<T> residual(static_cast<std::size_t>(rows));
        kernels::copy_to_host_async(nullptr, out.data(), out_device.data(), rows * sizeof(T));
        kernels::copy_to_host_async(nullptr, residual.data(), residual_device.data(),
                                    rows * sizeof(T));
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        for (index_t row = 0; row < rows; ++row) {
          const T expected = product::product_row(phi.data(), rows, index.data(), value.data(),
                                                  count, bound, row, least);
          const auto at = static_cast<std::size_t>(row);
          ASSERT_EQ(out[at], expected) << "S " << rows << ", bound " << bound << ", count " << count
                                       << ", row " << row << ", chunks of " << least;
          ASSERT_EQ(residual[at], static_cast<T>(y[at] - expected)) << "row " << row;
        }
      }
    }
  }
}

TYPED_TEST(GpuPrimitives, ArgmaxMatchesTheCpuAndBreaksTiesToTheLowerIndex) {
  using T = TypeParam;
  Resources resources;
  for (const index_t n : {1, 300, 70001}) {
    const Matrix<T> phi(1, n);
    cpu::CpuBackend<T> cpu(phi.view(), 1);
    CudaBackend<T> gpu(resources, phi.view());
    std::vector<T> c = random_vector<T>(n, 51);
    std::vector<T> sigma = random_vector<T>(n, 52);
    for (T& s : sigma) {
      s = std::abs(s);
    }
    // An exact tie for the best score at two indices, and a zero column.
    if (n > 10) {
      c[3] = c[n - 2] = T(1e30);
      sigma[3] = sigma[n - 2] = T(1);
      sigma[5] = T(0);
    }
    typename CudaBackend<T>::DatapointVector c_gpu;
    typename CudaBackend<T>::DatapointVector sigma_gpu;
    gpu.upload(c, c_gpu);
    gpu.upload(sigma, sigma_gpu);
    const solvers::ArgMax fw_cpu = cpu.argmax(solvers::FrankWolfeScore{}, c, sigma);
    const solvers::ArgMax fw_gpu = gpu.argmax(solvers::FrankWolfeScore{}, c_gpu, sigma_gpu);
    EXPECT_EQ(fw_gpu.index, fw_cpu.index);
    EXPECT_EQ(fw_gpu.score, fw_cpu.score);
    if (n > 10) {
      EXPECT_EQ(fw_gpu.index, 3);
    }
    const solvers::GigaScore giga{0.2, 0.9, 1e-6};
    const solvers::ArgMax g_cpu = cpu.argmax(giga, c, c, sigma);
    const solvers::ArgMax g_gpu = gpu.argmax(giga, c_gpu, c_gpu, sigma_gpu);
    EXPECT_EQ(g_gpu.index, g_cpu.index);
    EXPECT_EQ(g_gpu.score, g_cpu.score);  // argmax.cu is built without FMA contraction
  }
}

TEST(GpuResources, RefusesAMatrixLargerThanTheFreeMemoryWithTheSizes) {
  CORESET_REQUIRE_GPU();
  Resources resources;
  try {
    check_fits(std::size_t{1} << 50, 0, "Phi");
    FAIL() << "a 1 PiB matrix fitted";
  } catch (const DeviceError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("needs about"), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace coreset::cuda
