// GPU ranks of a distributed job: the device column block (cuda/device_column_block.hpp) against
// the host block (the reference) on the same columns, and whole solves and builds on R ranks that
// share this machine's GPU (threads of this process, helpers/thread_communicator.hpp) against one
// GPU's. The mpirun form of the solve check is tests/mpi/check_distributed_solve.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/distributed_backend.hpp"
#include "cpu/host_column_block.hpp"
#include "cuda/device_column_block.hpp"
#include "cuda/gpu_test_support.hpp"
#include "cuda/resources.hpp"
#include "helpers/model_datasets.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/thread_communicator.hpp"
#include "io/readers.hpp"
#include "solvers/baselines/frank_wolfe.hpp"

namespace coreset {
namespace {

constexpr index_t kRows = 30;
constexpr index_t kCols = 700;
constexpr index_t kFirst = 2 * kReductionBlock;  // the block's first global column

// A block whose column 600 copies column 5: equal columns must hash alike on the device.
Matrix<double> block_columns() {
  Matrix<double> phi = test::gaussian_matrix<double>(kRows, kCols, 11);
  for (index_t i = 0; i < kRows; ++i) {
    phi(i, 600) = phi(i, 5);
  }
  return phi;
}

void expect_near_all(const std::vector<double>& expected, const std::vector<double>& actual,
                     const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-12 * (1.0 + std::abs(expected[i]))) << what << " " << i;
  }
}

std::vector<double> rounded(const cpu::ExactSums& sums) {
  std::vector<double> out;
  cpu::round_into(sums, out);
  return out;
}

TEST(DeviceColumnBlock, EveryPrimitiveMatchesTheHostBlockOnTheSameColumns) {
  CORESET_REQUIRE_GPU();
  const Matrix<double> phi = block_columns();
  const cpu::HostColumnBlock<double> host(phi.view(), kFirst, 1);
  cuda::GpuSession session;
  const auto held = session.lock();
  const cuda::DeviceColumnBlock<double> device(session, phi.view(), kFirst);
  ASSERT_EQ(device.rows(), kRows);
  ASSERT_EQ(device.cols(), kCols);
  ASSERT_EQ(device.first(), kFirst);

  const Matrix<double> r_matrix = test::gaussian_matrix<double>(kRows, 1, 12);
  const std::vector<double> r(r_matrix.data(), r_matrix.data() + kRows);
  auto on_host = host.make_dense();
  auto on_device = device.make_dense();
  host.phi_t_times(r, on_host);
  device.phi_t_times(r, on_device);
  expect_near_all(host.to_host(on_host), device.to_host(on_device), "phi_t_times");

  const std::vector<index_t> subset{0, 7, 99, 600, kCols - 1};
  host.phi_t_times_on_subset(r, subset, on_host);
  device.phi_t_times_on_subset(r, subset, on_device);
  expect_near_all(host.to_host(on_host), device.to_host(on_device), "phi_t_times_on_subset");

  host.phi_t_times(r, on_host);
  device.phi_t_times(r, on_device);
  const std::vector<index_t> exclude{3, 40, 41};
  for (const auto rule :
       {solvers::SelectionRule::largest_positive, solvers::SelectionRule::largest_magnitude}) {
    std::vector<index_t> host_index;
    std::vector<index_t> device_index;
    std::vector<double> host_value;
    std::vector<double> device_value;
    host.top_k(on_host, 25, rule, exclude, host_index, host_value);
    device.top_k(on_device, 25, rule, exclude, device_index, device_value);
    EXPECT_EQ(device_index, host_index);
    expect_near_all(host_value, device_value, "top_k values");
    for (const index_t i : device_index) {
      EXPECT_TRUE(std::find(exclude.begin(), exclude.end(), i) == exclude.end()) << i;
    }
  }

  const std::vector<index_t> at{1, 5, 250, 600, 699};
  expect_near_all(host.values_at(on_host, at), device.values_at(on_device, at), "values_at");
  expect_near_all(host.column_dots(at, r), device.column_dots(at, r), "column_dots");
  EXPECT_EQ(device.columns(at), host.columns(at));  // exact: copies of the same bits

  const std::vector<std::uint64_t> hashes = device.column_hashes();
  ASSERT_EQ(hashes.size(), static_cast<std::size_t>(kCols));
  EXPECT_EQ(hashes[600], hashes[5]);
  EXPECT_NE(hashes[6], hashes[5]);

  cpu::ExactSums host_sums(kRows);
  cpu::ExactSums device_sums(kRows);
  host.add_phi_times_dense(on_host, host_sums);
  device.add_phi_times_dense(on_device, device_sums);
  expect_near_all(rounded(host_sums), rounded(device_sums), "add_phi_times_dense");

  // Entries below and above the block belong to other ranks: only the block's count.
  solvers::SparseVector<double> w;
  for (const index_t global : {index_t{3}, kFirst, kFirst + 17, kFirst + 600, kFirst + kCols + 4}) {
    w.push_back(global, 0.5 + static_cast<double>(global % 7));
  }
  cpu::ExactSums host_product(kRows);
  cpu::ExactSums device_product(kRows);
  host.add_phi_times(w, host_product);
  device.add_phi_times(w, device_product);
  expect_near_all(rounded(host_product), rounded(device_product), "add_phi_times");
  // A second product on another support: the first one's weights must not linger on the device
  // (the list path scatters them into an n-vector it zeroes again after each product).
  solvers::SparseVector<double> other;
  other.push_back(kFirst + 1, 2.0);
  other.push_back(kFirst + kCols - 1, -1.0);
  cpu::ExactSums host_other(kRows);
  cpu::ExactSums device_other(kRows);
  host.add_phi_times(other, host_other);
  device.add_phi_times(other, device_other);
  expect_near_all(rounded(host_other), rounded(device_other), "add_phi_times, second support");

  support::ExactSum host_dot;
  support::ExactSum device_dot;
  host.add_dot(on_host, on_host, host_dot);
  device.add_dot(on_device, on_device, device_dot);
  EXPECT_NEAR(device_dot.value(), host_dot.value(), 1e-12 * host_dot.value());
  support::ExactSum host_sum;
  support::ExactSum device_sum;
  host.add_sum(on_host, host_sum);
  device.add_sum(on_device, device_sum);
  EXPECT_NEAR(device_sum.value(), host_sum.value(), 1e-10);

  host.zero_entries(at, on_host);
  device.zero_entries(at, on_device);
  host.scale(-2.5, on_host, on_host);
  device.scale(-2.5, on_device, on_device);
  expect_near_all(host.to_host(on_host), device.to_host(on_device), "zero_entries and scale");

  auto norms_host = host.make_dense();
  auto norms_device = device.make_dense();
  host.column_norms(norms_host);
  device.column_norms(norms_device);
  expect_near_all(host.to_host(norms_host), device.to_host(norms_device), "column_norms");
  const solvers::ArgMax host_best = host.argmax(solvers::FrankWolfeScore{}, on_host, norms_host);
  const solvers::ArgMax device_best =
      device.argmax(solvers::FrankWolfeScore{}, on_device, norms_device);
  EXPECT_EQ(device_best.index, host_best.index);

  const std::vector<double> ones(static_cast<std::size_t>(kCols), 1.0);
  device.upload(ones, on_device);
  EXPECT_EQ(device.to_host(on_device), ones);
}

TEST(DeviceColumnBlock, ABlockWithoutColumnsAnswersEmptyAndMakesNothing) {
  CORESET_REQUIRE_GPU();
  cuda::GpuSession session;
  const auto held = session.lock();
  const cuda::DeviceColumnBlock<float> device(session, MatrixView<float>{nullptr, kRows, 0, kRows},
                                              kFirst);
  auto v = device.make_dense();
  EXPECT_TRUE(v.empty());
  std::vector<index_t> index{1};
  std::vector<float> value{1.0f};
  device.top_k(v, 10, solvers::SelectionRule::largest_positive, {}, index, value);
  EXPECT_TRUE(index.empty());
  EXPECT_TRUE(value.empty());
  EXPECT_TRUE(device.column_hashes().empty());
  cpu::ExactSums sums(kRows);
  solvers::SparseVector<float> w;
  w.push_back(kFirst - 1, 2.0f);
  device.add_phi_times(w, sums);
  device.add_phi_times_dense(v, sums);
  for (const double x : rounded(sums)) {
    EXPECT_EQ(x, 0.0);
  }
  EXPECT_EQ(device.argmax(solvers::FrankWolfeScore{}, v, v).index, -1);
  // Nothing was made on the device for it: no stream, cuBLAS handle or scratch.
  EXPECT_FALSE(session.has_resources());
}

// The solve of `phi` over `ranks` thread ranks on the GPU, split by datapoint_range.
template <class T>
std::vector<SolveResult> solve_on_gpu_ranks(const Matrix<T>& phi, int ranks,
                                            const SolverOptions& options, const T* y = nullptr) {
  std::vector<SolveResult> results(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    const DatapointRange range = datapoint_range(phi.cols(), comm->rank(), ranks);
    const Matrix<T> block = test::columns_of(phi, range);
    SolverOptions mine = options;
    mine.communicator = comm;
    results[static_cast<std::size_t>(comm->rank())] = solve(block.view(), y, mine);
  });
  return results;
}

// 5 reduction blocks, the last short; columns share a direction so the solve has work to do.
// S > k, so y = Phi 1 is not a sum of k columns and no solve reaches the rounding floor, where
// the summation orders of one GPU and of R ranks would decide the relative error alone.
template <class T>
Matrix<T> shared_direction_phi() {
  return test::shared_direction_matrix<T>(64, 4 * kReductionBlock + 77, 21, 0.5);
}

template <class T>
void check_ranks_match_one_gpu(Algorithm algorithm, double tolerance) {
  const Matrix<T> phi = shared_direction_phi<T>();
  SolverOptions options;
  options.algorithm = algorithm;
  options.k = 30;
  options.max_iterations = 60;
  options.seed = 4;
  options.device = Device::gpu;
  const SolveResult one = solve(phi.view(), nullptr, options);
  ASSERT_EQ(one.device, Device::gpu);
  ASSERT_FALSE(one.coreset.indices.empty());
  for (const int ranks : {1, 2, 3, 6}) {  // 6: one rank without columns
    const std::vector<SolveResult> results = solve_on_gpu_ranks(phi, ranks, options);
    for (std::size_t r = 0; r < results.size(); ++r) {
      const SolveResult& mine = results[r];
      const std::string where =
          to_string(algorithm) + ", " + std::to_string(ranks) + " ranks, rank " + std::to_string(r);
      EXPECT_EQ(mine.device, Device::gpu) << where;
      ASSERT_EQ(mine.rank_devices.size(), static_cast<std::size_t>(ranks)) << where;
      for (const std::string& device : mine.rank_devices) {
        EXPECT_EQ(device.rfind("gpu ", 0), 0u) << where << ": " << device;
      }
      EXPECT_NEAR(mine.relative_error, one.relative_error, tolerance * one.relative_error + 1e-12)
          << where;
      EXPECT_EQ(mine.coreset.indices, results[0].coreset.indices) << where;  // ranks agree
      EXPECT_LE(mine.coreset.size(), options.k) << where;
    }
  }
}

TEST(DistributedGpuSolve, RanksSharingTheGpuMatchOneGpuInDouble) {
  CORESET_REQUIRE_GPU();
  for (const Algorithm algorithm :
       {Algorithm::aiht2, Algorithm::aiht, Algorithm::iht, Algorithm::giga, Algorithm::frank_wolfe,
        Algorithm::importance_sampling}) {
    check_ranks_match_one_gpu<double>(algorithm, 1e-8);
  }
}

TEST(DistributedGpuSolve, RanksSharingTheGpuMatchOneGpuInFloat) {
  CORESET_REQUIRE_GPU();
  check_ranks_match_one_gpu<float>(Algorithm::aiht2, 1e-3);
}

// What the default solves above leave out, each against one GPU with the same options: a given
// y, batches (a rank's batch may hold none of its columns), the refit (the support's columns
// fetched from their ranks' devices) and a warm start.
TEST(DistributedGpuSolve, YBatchesRefitAndWarmStartsMatchOneGpu) {
  CORESET_REQUIRE_GPU();
  const Matrix<double> phi = shared_direction_phi<double>();
  std::vector<double> y(static_cast<std::size_t>(phi.rows()), 0.0);
  for (index_t j = 0; j < phi.cols(); j += 3) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      y[static_cast<std::size_t>(i)] += phi(i, j);
    }
  }
  struct Variant {
    const char* name;
    Algorithm algorithm;
    bool given_y;
    double batch_fraction;
    bool refit;
    Coreset start;
  };
  const Variant variants[] = {
      {"given y", Algorithm::aiht2, true, 0.0, false, {}},
      {"batches", Algorithm::aiht2, false, 0.3, false, {}},
      {"refit", Algorithm::giga, false, 0.0, true, {}},
      {"warm start", Algorithm::aiht, false, 0.0, false, Coreset{{3, 500, 1000}, {1.0, 2.0, 3.0}}},
  };
  for (const Variant& variant : variants) {
    SolverOptions options;
    options.algorithm = variant.algorithm;
    options.k = 30;
    options.max_iterations = 60;
    options.seed = 4;
    options.device = Device::gpu;
    options.batch_fraction = variant.batch_fraction;
    options.refit = variant.refit;
    options.initial_weights = variant.start;
    const double* target = variant.given_y ? y.data() : nullptr;
    const SolveResult one = solve(phi.view(), target, options);
    ASSERT_FALSE(one.coreset.indices.empty()) << variant.name;
    for (const int ranks : {1, 3, 6}) {
      const std::vector<SolveResult> results = solve_on_gpu_ranks(phi, ranks, options, target);
      for (std::size_t r = 0; r < results.size(); ++r) {
        const std::string where = std::string(variant.name) + ", " + std::to_string(ranks) +
                                  " ranks, rank " + std::to_string(r);
        EXPECT_NEAR(results[r].relative_error, one.relative_error,
                    1e-8 * one.relative_error + 1e-12)
            << where;
        EXPECT_EQ(results[r].coreset.indices, results[0].coreset.indices) << where;
        EXPECT_EQ(results[r].coreset.weights, results[0].coreset.weights) << where;
      }
    }
  }
}

// Copies of columns within a rank's block, across ranks' blocks, and a group of 40 spread over
// every rank (test::matrix_with_copies): the device blocks' hashes and comparisons find the
// one-process copies, also with
// hashes sent in small rounds and with 3-bit hashes (about a hundred distinct columns per hash,
// so that only the comparisons tell a copy from a collision).
TEST(DistributedGpuSolve, DuplicateColumnsAcrossRanksAreTheOneProcessCopies) {
  CORESET_REQUIRE_GPU();
  const Matrix<double> phi = test::matrix_with_copies();
  const index_t n = phi.cols();
  const std::vector<index_t> expected = cpu::CpuBackend<double>(phi.view(), 1).duplicate_columns();
  ASSERT_EQ(expected.size(), 43u);
  for (const std::pair<std::size_t, int>& round_and_bits :
       {std::pair<std::size_t, int>{std::size_t{256} << 20, 64}, {1600, 3}}) {
    for (int ranks = 1; ranks <= 4; ++ranks) {
      const std::string where = std::to_string(round_and_bits.first) + "-byte rounds, " +
                                std::to_string(round_and_bits.second) + "-bit hashes, " +
                                std::to_string(ranks) + " ranks";
      std::vector<std::vector<index_t>> found(static_cast<std::size_t>(ranks));
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        const DatapointRange range = datapoint_range(n, comm->rank(), ranks);
        const Matrix<double> block = test::columns_of(phi, range);
        cuda::GpuSession session;
        const auto held = session.lock();
        cpu::DistributedBackend<double, cuda::DeviceColumnBlock<double>> backend(
            cuda::DeviceColumnBlock<double>(session, block.view(), range.first), n, *comm);
        backend.set_hash_gather_bytes(round_and_bits.first);
        backend.set_hash_bits(round_and_bits.second);
        found[static_cast<std::size_t>(comm->rank())] = backend.duplicate_columns();
      });
      for (const std::vector<index_t>& duplicates : found) {
        EXPECT_EQ(duplicates, expected) << where;
      }
    }
  }
}

// A distributed build on GPU ranks sharing this GPU: each rank uploads its own rows once, takes
// its part of the Laplace sums there (rounded on the device, then added exactly over the ranks,
// where one GPU rounds the whole sum once) and projects its block of Phi there, so the two
// agree to rounding, not bit for bit.
void check_build_ranks_match_one_gpu(BuildAlgorithm algorithm, bool shares) {
  const Dataset data = synthetic_logistic_dataset(5 * kReductionBlock + 77, 5);
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.samples = 24;
  options.seed = 11;
  options.precision = Precision::float64;
  options.solver.algorithm = algorithm;
  options.solver.k = 12;
  options.solver.max_iterations = 60;
  options.solver.refit = true;
  options.solver.device = Device::gpu;
  options.solver.sparsevi.steps = 6;
  options.solver.sparsevi.samples = 20;
  const PreparedProblem alone(data, options);
  const CoresetRun expected = alone.solve_and_evaluate(options.solver);
  ASSERT_GE(expected.solve.coreset.size(), 2);
  for (const int ranks : {1, 2, 3, 7}) {  // 7: a rank without rows
    std::vector<CoresetRun> runs(static_cast<std::size_t>(ranks));
    test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
      Dataset held = data;
      if (shares) {
        io::detail::keep_share(held, comm->rank(), ranks);
      }
      BuildOptions mine = options;
      mine.solver.communicator = comm;
      const PreparedProblem problem(held, mine);
      runs[static_cast<std::size_t>(comm->rank())] = problem.solve_and_evaluate(mine.solver);
    });
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const CoresetRun& run = runs[r];
      const std::string where = to_string(algorithm) + (shares ? ", shares, " : ", whole, ") +
                                std::to_string(ranks) + " ranks, rank " + std::to_string(r);
      EXPECT_EQ(run.solve.device, Device::gpu) << where;
      ASSERT_EQ(run.solve.rank_devices.size(), static_cast<std::size_t>(ranks)) << where;
      EXPECT_EQ(run.solve.coreset.indices, runs[0].solve.coreset.indices) << where;
      const double error = expected.quality.relative_projection_error;
      EXPECT_NEAR(run.quality.relative_projection_error, error, 1e-6 * error) << where;
      EXPECT_NEAR(run.quality.forward_kl, expected.quality.forward_kl,
                  1e-6 * expected.quality.forward_kl + 1e-12)
          << where;
    }
  }
}

TEST(DistributedGpuBuild, RanksProjectingTheirOwnRowsMatchOneGpu) {
  CORESET_REQUIRE_GPU();
  for (const BuildAlgorithm algorithm :
       {BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::sparsevi}) {
    check_build_ranks_match_one_gpu(algorithm, false);
  }
  check_build_ranks_match_one_gpu(BuildAlgorithm::aiht2, true);
}

}  // namespace
}  // namespace coreset
