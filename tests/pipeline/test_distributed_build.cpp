// build_coreset and PreparedProblem distributed over ranks (BuildOptions::solver.communicator),
// the ranks being threads of this process (helpers/thread_communicator.hpp): every rank holds the
// dataset, or only its share of the rows, and projects only its block of Phi's columns, and every
// algorithm, SparseVI included, and every model, RBF features included, must give every rank the
// one-process build bit for bit: coreset, objective trace, refit and quality, on every split.
// tests/mpi runs `coreset build` under a real MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/progress.hpp"
#include "coreset/sweep.hpp"
#include "helpers/model_datasets.hpp"
#include "helpers/thread_communicator.hpp"
#include "io/readers.hpp"
#include "models/model.hpp"
#include "pipeline/coreset_rows.hpp"
#include "pipeline/distributed_row_sums.hpp"

namespace coreset {
namespace {

// Five reduction blocks and a short sixth: uneven splits, and at R = 4 ranks of two blocks and
// of one. Small S keeps SparseVI's per-step projections cheap.
constexpr index_t kRows = 5 * kReductionBlock + 77;

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void expect_same_bits(const std::vector<double>& expected, const std::vector<double>& actual,
                      const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(same_bits(actual[i], expected[i]))
        << what << "[" << i << "]: " << actual[i] << " vs " << expected[i];
  }
}

void expect_same_run(const CoresetRun& expected, const CoresetRun& actual,
                     const std::string& where) {
  SCOPED_TRACE(where);
  const SolveResult& a = actual.solve;
  const SolveResult& e = expected.solve;
  EXPECT_EQ(a.coreset.indices, e.coreset.indices);
  expect_same_bits(e.coreset.weights, a.coreset.weights, "weights");
  expect_same_bits(e.objective_history, a.objective_history, "objective_history");
  EXPECT_TRUE(same_bits(a.objective, e.objective)) << a.objective << " vs " << e.objective;
  EXPECT_TRUE(same_bits(a.objective_before_refit, e.objective_before_refit));
  EXPECT_TRUE(same_bits(a.relative_error, e.relative_error));
  EXPECT_EQ(a.iterations, e.iterations);
  EXPECT_EQ(a.stop_reason, e.stop_reason);
  EXPECT_TRUE(same_bits(actual.quality.forward_kl, expected.quality.forward_kl));
  EXPECT_TRUE(same_bits(actual.quality.reverse_kl, expected.quality.reverse_kl));
  EXPECT_TRUE(same_bits(actual.quality.relative_projection_error,
                        expected.quality.relative_projection_error));
  expect_same_bits(expected.coreset_posterior_mean, actual.coreset_posterior_mean,
                   "coreset_posterior_mean");
}

BuildOptions options_for(ModelKind kind, BuildAlgorithm algorithm, Precision precision) {
  BuildOptions options;
  options.model.kind = kind;
  options.samples = 24;
  options.seed = 11;
  options.precision = precision;
  options.solver.algorithm = algorithm;
  options.solver.k = 12;
  options.solver.max_iterations = 60;
  options.solver.threads = 2;
  options.solver.refit = true;
  options.solver.sparsevi.steps = 6;
  options.solver.sparsevi.samples = 20;
  return options;
}

// How the ranks hold the dataset: each all of it, or each its share (Dataset::first_row,
// total_rows; what `coreset build` reads under mpirun).
enum class Holding { whole, shares };

Dataset held_by_rank(const Dataset& data, Holding holding, int rank, int ranks) {
  Dataset held = data;
  if (holding == Holding::shares) {
    io::detail::keep_share(held, rank, ranks);
  }
  return held;
}

// `options` with the rank's communicator.
BuildOptions on_rank(BuildOptions options, const std::shared_ptr<Communicator>& comm) {
  options.solver.communicator = comm;
  return options;
}

// Every rank's run, in rank order, of `make(problem, options)` on a problem prepared on R ranks.
template <class Make>
std::vector<CoresetRun> on_ranks(const Dataset& data, const BuildOptions& options, int ranks,
                                 Holding holding, Make&& make) {
  std::vector<CoresetRun> runs(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    const BuildOptions mine = on_rank(options, comm);
    const PreparedProblem problem(held_by_rank(data, holding, comm->rank(), ranks), mine);
    runs[static_cast<std::size_t>(comm->rank())] = make(problem, mine);
  });
  return runs;
}

CoresetRun solve_and_evaluate(const PreparedProblem& problem, const BuildOptions& options) {
  return problem.solve_and_evaluate(options.solver);
}

void expect_every_rank_got(const CoresetRun& expected, const std::vector<CoresetRun>& runs) {
  for (std::size_t r = 0; r < runs.size(); ++r) {
    expect_same_run(expected, runs[r],
                    "rank " + std::to_string(r) + " of " + std::to_string(runs.size()));
  }
}

// The messages of the E that build_coreset threw on the ranks (held_by_rank(rank) their data),
// in rank order; a rank that threw nothing adds none.
template <class E, class DataOf>
std::vector<std::string> build_errors_on_ranks(int ranks, const BuildOptions& options,
                                               DataOf&& data_of) {
  std::vector<std::string> thrown(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    try {
      build_coreset(data_of(comm->rank()), on_rank(options, comm));
    } catch (const E& error) {
      thrown[static_cast<std::size_t>(comm->rank())] = error.what();
    }
  });
  std::vector<std::string> messages;
  for (std::string& message : thrown) {
    if (!message.empty()) {
      messages.push_back(std::move(message));
    }
  }
  return messages;
}

struct Case {
  ModelKind kind;
  BuildAlgorithm algorithm;
};

class DistributedBuild : public ::testing::TestWithParam<Case> {};

void check_every_split(const Case& c, Precision precision) {
  const Dataset data = c.kind == ModelKind::gaussian ? synthetic_gaussian_dataset(kRows, 3, 5)
                                                     : synthetic_logistic_dataset(kRows, 5);
  const BuildOptions options = options_for(c.kind, c.algorithm, precision);
  const PreparedProblem alone(data, options);
  const CoresetRun expected = alone.solve_and_evaluate(options.solver);
  ASSERT_GE(expected.solve.coreset.size(), 2);  // else the comparison proves little
  for (int ranks = 1; ranks <= 4; ++ranks) {
    expect_every_rank_got(expected,
                          on_ranks(data, options, ranks, Holding::whole, solve_and_evaluate));
  }
}

TEST_P(DistributedBuild, EveryRankGetsTheOneProcessBuildInDouble) {
  check_every_split(GetParam(), Precision::float64);
}

TEST_P(DistributedBuild, EveryRankGetsTheOneProcessBuildInFloat) {
  check_every_split(GetParam(), Precision::float32);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, DistributedBuild,
                         ::testing::Values(Case{ModelKind::logistic, BuildAlgorithm::aiht2},
                                           Case{ModelKind::logistic, BuildAlgorithm::aiht},
                                           Case{ModelKind::logistic, BuildAlgorithm::iht},
                                           Case{ModelKind::logistic, BuildAlgorithm::giga},
                                           Case{ModelKind::logistic, BuildAlgorithm::frank_wolfe},
                                           Case{ModelKind::logistic,
                                                BuildAlgorithm::importance_sampling},
                                           Case{ModelKind::logistic, BuildAlgorithm::uniform},
                                           Case{ModelKind::logistic, BuildAlgorithm::sparsevi},
                                           Case{ModelKind::gaussian, BuildAlgorithm::aiht2},
                                           Case{ModelKind::gaussian, BuildAlgorithm::sparsevi}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name =
                               to_string(info.param.kind) + "_" + to_string(info.param.algorithm);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The Laplace fit's sums split over the ranks: each rank must read only its own rows (the others
// are NaN on its copy here) and every rank must get the one-process log joint bit for bit.
TEST(DistributedRowSums, EachRankSumsItsOwnRowsAndAllGetTheOneProcessSums) {
  for (const ModelKind kind : {ModelKind::logistic, ModelKind::poisson}) {
    SCOPED_TRACE(to_string(kind));
    const Dataset data = test::model_dataset(kind, kRows, 6, 3);
    ModelOptions model_options;
    model_options.kind = kind;
    const models::Model model = models::make_model(data, model_options, 0);
    const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), -0.3, 0.2);
    Eigen::VectorXd gradient;
    Eigen::MatrixXd hessian;
    const double value = models::log_joint(model, nullptr, theta, &gradient, &hessian);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        const DatapointRange mine = datapoint_range(model.rows(), comm->rank(), ranks);
        models::Model poisoned = model;
        Eigen::MatrixXd rows = model.design.dense();
        for (index_t i = 0; i < model.rows(); ++i) {
          if (i < mine.first || i >= mine.first + mine.count) {
            rows.row(i).setConstant(std::numeric_limits<double>::quiet_NaN());
          }
        }
        poisoned.design = rows;
        const pipeline::DistributedRowSums sums(poisoned, mine, *comm);
        Eigen::VectorXd g;
        Eigen::MatrixXd h;
        const double v = models::log_joint(poisoned, nullptr, theta, &g, &h, &sums);
        EXPECT_TRUE(same_bits(v, value)) << v << " vs " << value;
        EXPECT_TRUE(g == gradient);
        EXPECT_TRUE(h == hessian);
      });
    }
  }
}

// A GPU rank's sums (cuda::DeviceDataset's, stood in for here by a provider that rounds the
// rank's own rows' sums as a device does): each rank's part is rounded once where it is taken and
// the parts are added exactly, so R ranks give the exact sum of their rounded parts, within
// rounding of one process's sums, and one rank gives its part bit for bit.
class RoundedRankSums final : public models::RowSumsProvider {
 public:
  RoundedRankSums(const models::Model& model, DatapointRange mine) : model_(model), mine_(mine) {}
  index_t rows() const noexcept override { return mine_.count; }
  index_t dim() const noexcept override { return model_.dim(); }
  models::RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const override {
    ++calls;
    return models::round_row_sums(
        models::exact_link_sums(model_, mine_.first, mine_.count, theta, want_vector, want_matrix),
        model_.dim(), want_vector, want_matrix);
  }
  mutable int calls = 0;

 private:
  const models::Model& model_;
  DatapointRange mine_;
};

TEST(DistributedRowSums, AGpuRanksPartIsRoundedWhereItIsTakenThenAddedExactly) {
  const Dataset data = test::model_dataset(ModelKind::logistic, kRows, 6, 3);
  ModelOptions model_options;
  model_options.kind = ModelKind::logistic;
  const models::Model model = models::make_model(data, model_options, 0);
  const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), -0.3, 0.2);
  const index_t d = model.dim();
  // The layout of the exact accumulators survives the round trip bit for bit.
  const models::RowSums whole = models::round_row_sums(
      models::exact_link_sums(model, 0, model.rows(), theta, true, true), d, true, true);
  const models::RowSums again =
      models::round_row_sums(models::exact_row_sums_of(whole, d, true, true), d, true, true);
  EXPECT_TRUE(same_bits(again.value, whole.value));
  EXPECT_TRUE(again.vector == whole.vector);
  EXPECT_TRUE(again.matrix == whole.matrix);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    // What the ranks' rounded parts add up to, exactly, then rounded once.
    models::ExactRowSums expected_exact(
        static_cast<std::size_t>(models::row_sum_accumulators(d, true, true)));
    for (int r = 0; r < ranks; ++r) {
      const DatapointRange part = datapoint_range(model.rows(), r, ranks);
      const models::ExactRowSums mine = models::exact_row_sums_of(
          RoundedRankSums(model, part).link_sums(theta, true, true), d, true, true);
      for (std::size_t slot = 0; slot < mine.size(); ++slot) {
        expected_exact[slot].add(mine[slot].value());
      }
    }
    const models::RowSums expected = models::round_row_sums(expected_exact, d, true, true);
    test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
      const DatapointRange mine = datapoint_range(model.rows(), comm->rank(), ranks);
      const RoundedRankSums device(model, mine);
      const pipeline::DistributedRowSums sums(model, mine, *comm, &device);
      const models::RowSums got = sums.link_sums(theta, true, true);
      EXPECT_EQ(device.calls, 1);  // the rank's part came from its "device", not the host
      EXPECT_TRUE(same_bits(got.value, expected.value)) << ranks << " ranks";
      EXPECT_TRUE(got.vector == expected.vector) << ranks << " ranks";
      EXPECT_TRUE(got.matrix == expected.matrix) << ranks << " ranks";
      EXPECT_NEAR(got.value, whole.value, 1e-12 * std::abs(whole.value));
    });
  }
}

// Each rank holding only its share of the rows (Dataset::first_row, total_rows; what `coreset
// build` reads under mpirun): pi-hat's sums, Phi and the coreset posterior's rows come from the
// ranks, and the build must still be the one-process build bit for bit, for every model.
TEST(DistributedBuildShares, EveryModelGivesTheOneProcessBuildFromTheRanksShares) {
  for (const ModelKind kind : test::all_model_kinds()) {
    const Dataset data = test::model_dataset(kind, kRows, 3, 17);
    for (const BuildAlgorithm algorithm :
         {BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::importance_sampling}) {
      for (const Precision precision : {Precision::float64, Precision::float32}) {
        SCOPED_TRACE(to_string(kind) + " " + to_string(algorithm) +
                     (precision == Precision::float32 ? " float" : " double"));
        const BuildOptions options = options_for(kind, algorithm, precision);
        const CoresetRun expected =
            PreparedProblem(data, options).solve_and_evaluate(options.solver);
        ASSERT_GE(expected.solve.coreset.size(), 2);
        for (const int ranks : {2, 3, 4}) {
          expect_every_rank_got(
              expected, on_ranks(data, options, ranks, Holding::shares,
                                 [](const PreparedProblem& problem, const BuildOptions& mine) {
                                   EXPECT_EQ(problem.rows(), kRows);
                                   return solve_and_evaluate(problem, mine);
                                 }));
        }
      }
    }
  }
}

// One block (n <= 256) on several ranks: the last rank holds every row and the others none,
// yet all must take the shares' paths together (a rank holding all its job's rows is still a
// share) and give the one-process build.
TEST(DistributedBuildShares, ADatasetOfOneBlockOnSeveralRanks) {
  for (const ModelKind kind : {ModelKind::logistic, ModelKind::gaussian}) {
    SCOPED_TRACE(to_string(kind));
    const Dataset data = test::model_dataset(kind, 200, 3, 8);
    BuildOptions options = options_for(kind, BuildAlgorithm::aiht2, Precision::float64);
    options.solver.k = 8;
    const CoresetRun expected = PreparedProblem(data, options).solve_and_evaluate(options.solver);
    for (const int ranks : {2, 3}) {
      expect_every_rank_got(expected,
                            on_ranks(data, options, ranks, Holding::shares, solve_and_evaluate));
    }
  }
}

// The one-process build of `data` against every rank's build from its share, on R = 1 ... 4
// ranks (and `more` ranks besides).
void expect_shares_give_one_process(const Dataset& data, const BuildOptions& options,
                                    const std::vector<int>& more = {}) {
  const CoresetRun expected = PreparedProblem(data, options).solve_and_evaluate(options.solver);
  ASSERT_GE(expected.solve.coreset.size(), 2);  // else the comparison proves little
  std::vector<int> splits = {1, 2, 3, 4};
  splits.insert(splits.end(), more.begin(), more.end());
  for (const int ranks : splits) {
    expect_every_rank_got(expected,
                          on_ranks(data, options, ranks, Holding::shares,
                                   [&](const PreparedProblem& problem, const BuildOptions& mine) {
                                     EXPECT_EQ(problem.rows(), data.rows());
                                     return solve_and_evaluate(problem, mine);
                                   }));
  }
}

// SparseVI from the ranks' shares: each rank projects only its own datapoints at the draws every
// rank makes alike, the coreset posterior's rows are gathered, and r, the scores and the steps
// come from the ranks; the coreset, its trace, refit and quality are one process's bit for bit.
// kRows splits unevenly (at R = 4, ranks of one and two blocks, the last one short).
TEST(DistributedBuildShares, SparseViFromSharesGivesTheOneProcessBuild) {
  for (const ModelKind kind : test::all_model_kinds()) {
    const Dataset data = test::model_dataset(kind, kRows, 3, 5);
    for (const Precision precision : {Precision::float64, Precision::float32}) {
      SCOPED_TRACE(to_string(kind) + (precision == Precision::float32 ? " float" : " double"));
      const BuildOptions options = options_for(kind, BuildAlgorithm::sparsevi, precision);
      expect_shares_give_one_process(data, options);
    }
  }
}

// Ranks that hold fewer rows than k, or none: 2 blocks and 5 rows on 3 ranks (the last holds 5
// rows, k = 12), and one block of 200 rows on 2 and 3 ranks (all rows on the last rank).
TEST(DistributedBuildShares, SparseViWithRanksHoldingFewerRowsThanK) {
  for (const index_t rows : {2 * kReductionBlock + 5, index_t{200}}) {
    for (const ModelKind kind : {ModelKind::logistic, ModelKind::gaussian}) {
      SCOPED_TRACE(to_string(kind) + ", " + std::to_string(rows) + " rows");
      const Dataset data = test::model_dataset(kind, rows, 3, 31);
      const BuildOptions options = options_for(kind, BuildAlgorithm::sparsevi, Precision::float64);
      expect_shares_give_one_process(data, options, {5});
    }
  }
}

// A dataset whose second half repeats its first, row for row, on two ranks that hold a half
// each: every column of Phi_w has a twin with the same bits on the other rank, so every selection
// is a tie between the ranks. One process keeps the lower index (spec 2.12's argmax scanned in
// index order), so every chosen point is in the first half, and the ranks must merge their bests
// by the same rule.
TEST(DistributedBuildShares, SparseViTiesGoToTheLowerIndexAcrossRanks) {
  constexpr index_t kHalf = 2 * kReductionBlock;
  for (const ModelKind kind : {ModelKind::logistic, ModelKind::gaussian}) {
    SCOPED_TRACE(to_string(kind));
    const Dataset half = test::model_dataset(kind, kHalf, 3, 41);
    Dataset data = half;
    data.covariates = Matrix<double>(2 * kHalf, half.dims());
    for (index_t c = 0; c < half.dims(); ++c) {
      for (index_t i = 0; i < 2 * kHalf; ++i) {
        data.covariates(i, c) = half.covariates(i % kHalf, c);
      }
    }
    data.response.insert(data.response.end(), half.response.begin(), half.response.end());
    BuildOptions options = options_for(kind, BuildAlgorithm::sparsevi, Precision::float64);
    const CoresetRun expected = PreparedProblem(data, options).solve_and_evaluate(options.solver);
    ASSERT_GE(expected.solve.coreset.size(), 2);
    for (const index_t i : expected.solve.coreset.indices) {
      EXPECT_LT(i, kHalf) << "a tie went to the higher index";
    }
    for (const int ranks : {2, 4}) {
      expect_every_rank_got(expected,
                            on_ranks(data, options, ranks, Holding::shares, solve_and_evaluate));
      expect_every_rank_got(expected,
                            on_ranks(data, options, ranks, Holding::whole, solve_and_evaluate));
    }
  }
}

// A linear dataset whose covariates sit near 1000: their means' last bits then survive the
// subtraction x - mean, and with a near-constant basis of scale 1 they reach its features, so a
// mean summed in any but the exact way would show in the design.
Dataset rbf_dataset(index_t rows, index_t dims, std::uint64_t seed) {
  Dataset data = test::model_dataset(ModelKind::linear, rows, dims, seed);
  for (index_t c = 0; c < dims; ++c) {
    for (index_t i = 0; i < rows; ++i) {
      data.covariates(i, c) += 1000.0;
    }
  }
  return data;
}

// The linear model's RBF features from the ranks' shares: the centres drawn by index from all
// rows alike on every rank and gathered from their owners, the near-constant basis at the
// covariate means summed exactly over the ranks; every rank's design rows, hence the build, are
// one process's bit for bit, with and without the near-constant basis, for a Phi algorithm and
// for SparseVI.
TEST(DistributedBuildShares, RbfFeaturesFromSharesGiveTheOneProcessBuild) {
  const Dataset data = rbf_dataset(kRows, 2, 29);
  for (const bool near_constant : {true, false}) {
    for (const BuildAlgorithm algorithm : {BuildAlgorithm::aiht2, BuildAlgorithm::sparsevi}) {
      for (const Precision precision : {Precision::float64, Precision::float32}) {
        SCOPED_TRACE(std::string(near_constant ? "near-constant basis, " : "no near-constant, ") +
                     to_string(algorithm) +
                     (precision == Precision::float32 ? " float" : " double"));
        BuildOptions options = options_for(ModelKind::linear, algorithm, precision);
        options.model.rbf.enabled = true;
        options.model.rbf.scales = {0.5, 1.0, 2.0};
        options.model.rbf.centers_per_scale = 15;
        options.model.rbf.near_constant_basis = near_constant;
        options.model.rbf.near_constant_scale = 1.0;
        expect_shares_give_one_process(data, options);
      }
    }
  }
}

// Each rank's RBF design from its share is its rows of the whole dataset's design, bit for bit,
// also when a scale takes every row (n < centers_per_scale) and the ranks hold none or few.
TEST(DistributedBuildShares, RbfDesignOfEveryShareIsItsRowsOfTheWholeDesign) {
  for (const index_t rows : {kRows, index_t{40}}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const Dataset data = rbf_dataset(rows, 3, 5);
    BuildOptions options =
        options_for(ModelKind::linear, BuildAlgorithm::aiht2, Precision::float64);
    options.model.rbf.enabled = true;
    options.model.rbf.centers_per_scale = 60;
    options.model.rbf.near_constant_scale = 1.0;
    const models::Model whole = models::make_model(data, options.model, options.seed);
    for (const int ranks : {2, 3}) {
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        const Dataset share = held_by_rank(data, Holding::shares, comm->rank(), ranks);
        models::WholeDataset facts;
        facts.rbf = pipeline::gather_rbf_basis(share, options.model.rbf, options.seed, *comm);
        const models::Model mine = models::make_model(share, options.model, options.seed, facts);
        ASSERT_EQ(mine.dim(), whole.dim());
        EXPECT_TRUE(mine.design.dense() ==
                    whole.design.middle_rows(share.first_row, share.rows()).dense());
      });
    }
  }
}

// Many parameters (d >= 128, where Eigen's matrix-vector kernel picks its blocking by the
// matrix's stride: one way above 4000 rows, as the whole design here, another below, as the
// shares): the ranks' Laplace sums from their shares must still be the whole model's bit for bit.
TEST(DistributedBuildShares, LaplaceSumsOfWideSharesAreTheWholeModels) {
  const Dataset data = test::model_dataset(ModelKind::logistic, 17 * kReductionBlock + 10, 140, 4);
  ModelOptions model_options;
  model_options.kind = ModelKind::logistic;
  const models::Model whole = models::make_model(data, model_options, 0);
  Eigen::VectorXd theta(whole.dim());
  for (index_t c = 0; c < whole.dim(); ++c) {
    theta[c] = 0.01 * static_cast<double>((c * 7) % 11) - 0.05;
  }
  Eigen::VectorXd gradient;
  Eigen::MatrixXd hessian;
  const double value = models::log_joint(whole, nullptr, theta, &gradient, &hessian);
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    const models::Model model =
        models::make_model(held_by_rank(data, Holding::shares, comm->rank(), 3), model_options, 0);
    const pipeline::DistributedRowSums sums(model, DatapointRange{0, model.rows()}, *comm);
    Eigen::VectorXd g;
    Eigen::MatrixXd h;
    EXPECT_TRUE(same_bits(models::log_joint(model, nullptr, theta, &g, &h, &sums), value));
    EXPECT_TRUE(g == gradient);
    EXPECT_TRUE(h == hessian);
  });
}

// The coreset's rows gathered to every rank, one that holds no row included, are the whole
// model's rows: their design rows, responses and offsets (stored where the whole model stores
// them, shared where it shares them), so the coreset's log joint is the whole model's bit for
// bit. An empty share must not take its offsets for shared: a Poisson coreset's log y! would be
// lost on that rank.
TEST(DistributedBuildShares, GatheredCoresetRowsAreTheWholeModelsOnEveryRank) {
  const index_t rows = 2 * kReductionBlock + 5;  // three blocks on four ranks: one holds none
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const Dataset data = test::model_dataset(kind, rows, 3, 41);
    ModelOptions model_options;
    model_options.kind = kind;
    const models::Model whole = models::make_model(data, model_options, 0);
    const Coreset coreset{{rows - 1, 3, kReductionBlock + 1, 100}, {2.0, 0.5, 1.25, 3.0}};
    const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(whole.dim(), -0.2, 0.3);
    const double value = models::log_joint(whole, &coreset, theta);
    std::atomic<int> empty_ranks{0};
    test::run_ranks(4, [&](const std::shared_ptr<Communicator>& comm) {
      const DatapointRange range = datapoint_range(rows, comm->rank(), 4);
      empty_ranks += range.count == 0 ? 1 : 0;
      const models::Model share = models::rows_of(whole, range.first, range.count);
      const pipeline::CoresetRows gathered = pipeline::gather_coreset_rows(share, coreset, *comm);
      const std::string rank = "rank " + std::to_string(comm->rank()) + " of rows " +
                               std::to_string(range.first) + " + " + std::to_string(range.count);
      EXPECT_EQ(gathered.model.offset.stored(), whole.offset.stored()) << rank;
      for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
        const index_t row = coreset.indices[p];
        const auto at = static_cast<index_t>(p);
        EXPECT_EQ(gathered.model.offset[at], whole.offset[row]) << rank << ", row " << row;
        EXPECT_EQ(gathered.model.response[at], whole.response[row]) << rank << ", row " << row;
      }
      EXPECT_TRUE(same_bits(models::log_joint(gathered.model, &gathered.coreset, theta), value))
          << rank;
    });
    EXPECT_EQ(empty_ranks.load(), 1);
  }
}

// The logistic labels' encoding is the whole file's: a file whose first block uses {0, 1} and a
// later block -1 is refused as one process refuses it, with its row, though no rank's share
// mixes the two.
TEST(DistributedBuildShares, MixedLabelEncodingsAcrossSharesAreRefusedAsInOneProcess) {
  Dataset data = test::model_dataset(ModelKind::logistic, 3 * kReductionBlock, 2, 6);
  for (std::size_t i = 0; i < data.response.size(); ++i) {
    if (data.response[i] == -1.0 && i < 2 * static_cast<std::size_t>(kReductionBlock)) {
      data.response[i] = 0.0;  // {0, 1} in the first two blocks, {-1, 1} in the third
    }
  }
  const BuildOptions options =
      options_for(ModelKind::logistic, BuildAlgorithm::aiht2, Precision::float64);
  std::string expected;
  try {
    build_coreset(data, options);
  } catch (const InputError& error) {
    expected = error.what();
  }
  ASSERT_NE(expected.find("earlier rows use {0, 1}"), std::string::npos) << expected;
  const std::vector<std::string> messages = build_errors_on_ranks<InputError>(
      3, options, [&](int rank) { return held_by_rank(data, Holding::shares, rank, 3); });
  ASSERT_EQ(messages.size(), 3u);
  for (const std::string& message : messages) {
    EXPECT_EQ(message, expected + " (rank 2 of 3)");
  }
}

// Nothing a build does needs every row on every rank any more (SparseVI and RBF features run
// from shares, above); what is refused is a share that is not the rank's own block, on every
// rank alike, and a share without the ranks that hold the rest, whatever the algorithm.
TEST(DistributedBuildShares, AnotherRanksShareOrAShareAloneIsRefused) {
  const Dataset data = test::model_dataset(ModelKind::linear, kRows, 2, 5);
  BuildOptions options = options_for(ModelKind::linear, BuildAlgorithm::aiht2, Precision::float64);
  BuildOptions rbf = options;
  rbf.model.rbf.enabled = true;
  BuildOptions sparsevi = options;
  sparsevi.solver.algorithm = BuildAlgorithm::sparsevi;
  for (const BuildOptions* c : {&options, &rbf, &sparsevi}) {
    SCOPED_TRACE(c == &rbf ? "rbf" : c == &sparsevi ? "sparsevi" : "aiht2");
    // The share handed to rank r is rank (r + 1) mod 3's.
    const std::vector<std::string> messages = build_errors_on_ranks<InvalidArgument>(
        3, *c, [&](int rank) { return held_by_rank(data, Holding::shares, (rank + 1) % 3, 3); });
    ASSERT_EQ(messages.size(), 3u);
    for (const std::string& message : messages) {
      EXPECT_EQ(message, messages.front());
      EXPECT_NE(message.find("of 3)"), std::string::npos) << message;
    }
    Dataset alone = data;
    io::detail::keep_share(alone, 1, 2);
    EXPECT_THROW(build_coreset(alone, *c), InvalidArgument);
  }
}

// The snapshot paths (one greedy run for many budgets) and the warm-started sweep run their
// collectives in another order than a single solve: they must match one process too.
TEST(DistributedBuildPaths, SweepsAndBudgetSnapshotsMatchOneProcess) {
  const Dataset data = synthetic_logistic_dataset(kRows, 9);
  for (const BuildAlgorithm algorithm :
       {BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::sparsevi}) {
    SCOPED_TRACE(to_string(algorithm));
    const BuildOptions options = options_for(ModelKind::logistic, algorithm, Precision::float64);
    const std::vector<index_t> ks = {3, 8, 12};
    const SweepResult expected = sweep(PreparedProblem(data, options), options.solver, ks);
    for (const Holding holding : {Holding::whole, Holding::shares}) {
      SCOPED_TRACE(holding == Holding::shares ? "shares" : "whole data");
      std::vector<SweepResult> results(3);
      test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
        const BuildOptions mine = on_rank(options, comm);
        results[static_cast<std::size_t>(comm->rank())] = sweep(
            PreparedProblem(held_by_rank(data, holding, comm->rank(), 3), mine), mine.solver, ks);
      });
      for (const SweepResult& result : results) {
        ASSERT_EQ(result.budgets.size(), expected.budgets.size());
        for (std::size_t p = 0; p < ks.size(); ++p) {
          expect_same_run(expected.budgets[p].run, result.budgets[p].run,
                          "k = " + std::to_string(ks[p]));
        }
      }
    }
  }
}

TEST(DistributedBuildPaths, EvaluateGivesTheOneProcessQuality) {
  const Dataset data = synthetic_logistic_dataset(kRows, 4);
  const BuildOptions options =
      options_for(ModelKind::logistic, BuildAlgorithm::aiht2, Precision::float32);
  // Points on several ranks' blocks, the last of the last block among them.
  const Coreset coreset{{2, 300, 700, 1100, kRows - 1}, {40.0, 200.5, 3.25, 600.0, 1.0}};
  const Quality expected = evaluate_coreset(data, options, coreset);
  std::vector<Quality> qualities(4);
  test::run_ranks(4, [&](const std::shared_ptr<Communicator>& comm) {
    qualities[static_cast<std::size_t>(comm->rank())] =
        evaluate_coreset(data, on_rank(options, comm), coreset);
  });
  for (const Quality& quality : qualities) {
    EXPECT_TRUE(same_bits(quality.relative_projection_error, expected.relative_projection_error));
    EXPECT_TRUE(same_bits(quality.forward_kl, expected.forward_kl));
    EXPECT_TRUE(same_bits(quality.reverse_kl, expected.reverse_kl));
  }
  EXPECT_GT(expected.relative_projection_error, 0.0);
}

// A failure of one stage must reach every rank as the same error, named "(rank r of R)", so
// that none is left waiting in a collective.
TEST(DistributedBuildErrors, BadOptionsAndBudgetsStopEveryRankAlike) {
  const Dataset data = synthetic_logistic_dataset(600, 2);
  BuildOptions gpu = options_for(ModelKind::logistic, BuildAlgorithm::aiht2, Precision::float64);
  gpu.solver.device = Device::gpu;
  BuildOptions too_big = gpu;
  too_big.solver.device = Device::automatic;
  too_big.solver.k = 601;
  BuildOptions few_samples = too_big;
  few_samples.solver.k = 5;
  few_samples.samples = 1;
  for (const BuildOptions* options : {&gpu, &too_big, &few_samples}) {
    if (options == &gpu && gpu_usable()) {
      continue;  // the GPU ranks are tests/cuda's
    }
    const std::vector<std::string> messages =
        build_errors_on_ranks<Error>(3, *options, [&](int) { return data; });
    ASSERT_EQ(messages.size(), 3u);
    for (const std::string& message : messages) {
      EXPECT_EQ(message, messages.front());
      EXPECT_NE(message.find("(rank 0 of 3)"), std::string::npos) << message;
    }
  }
}

// Without a GPU on every rank, automatic puts every rank on the CPU: the one-process CPU build,
// bit for bit, each rank's device named in the solve; gpu stops every rank (the test above).
TEST(DistributedBuildDevice, WithoutAGpuAutomaticRunsEveryRankOnTheCpu) {
  if (gpu_usable()) {
    GTEST_SKIP() << "a GPU is usable here: tests/cuda checks the GPU ranks";
  }
  const Dataset data = synthetic_logistic_dataset(kRows, 5);
  // SparseVI reports its device through its own path (solve_sparsevi), the others solve_stage's.
  for (const BuildAlgorithm algorithm : {BuildAlgorithm::aiht2, BuildAlgorithm::sparsevi}) {
    SCOPED_TRACE(to_string(algorithm));
    BuildOptions options = options_for(ModelKind::logistic, algorithm, Precision::float64);
    const CoresetRun expected = PreparedProblem(data, options).solve_and_evaluate(options.solver);
    EXPECT_EQ(expected.solve.device, Device::cpu);
    EXPECT_TRUE(expected.solve.rank_devices.empty());
    options.solver.device = Device::automatic;
    const std::vector<CoresetRun> runs =
        on_ranks(data, options, 3, Holding::shares, solve_and_evaluate);
    expect_every_rank_got(expected, runs);
    for (const CoresetRun& run : runs) {
      EXPECT_EQ(run.solve.device, Device::cpu);
      EXPECT_EQ(run.solve.rank_devices, std::vector<std::string>(3, "cpu"));
    }
  }
}

TEST(DistributedBuildErrors, AProblemSolvesOnlyOnItsOwnCommunicator) {
  const Dataset data = synthetic_logistic_dataset(300, 2);
  for (const BuildAlgorithm algorithm : {BuildAlgorithm::aiht2, BuildAlgorithm::sparsevi}) {
    SCOPED_TRACE(to_string(algorithm));
    const BuildOptions options = options_for(ModelKind::logistic, algorithm, Precision::float64);
    const PreparedProblem alone(data, options);
    test::run_ranks(1, [&](const std::shared_ptr<Communicator>& comm) {
      BuildSolverOptions other = options.solver;
      other.communicator = comm;
      EXPECT_THROW(alone.solve(other), InvalidArgument);
      EXPECT_THROW(sweep(alone, other, {3, 6}), InvalidArgument);
    });
  }
}

// Counts its polls and asks to stop from poll `after` on (never, with 0): on one rank only, as
// when a signal reaches one process of the job first.
class StopAfter : public ProgressObserver {
 public:
  explicit StopAfter(std::int64_t after) : after_(after) {}
  bool stop_requested() noexcept override { return ++polls_ >= after_ && after_ > 0; }
  std::int64_t polls() const noexcept { return polls_.load(); }

 private:
  std::int64_t after_;
  std::atomic<std::int64_t> polls_{0};
};

// What each of 3 ranks' build ends in when rank 1's observer asks to stop from poll `after` on.
std::vector<std::string> stopped_builds(const Dataset& data, const BuildOptions& options,
                                        Holding holding, std::int64_t after,
                                        std::int64_t* polls = nullptr) {
  std::vector<std::string> outcome(3);
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    const auto rank = static_cast<std::size_t>(comm->rank());
    StopAfter stop(after);
    BuildOptions mine = on_rank(options, comm);
    if (rank == 1) {
      mine.solver.progress = &stop;
    }
    try {
      build_coreset(held_by_rank(data, holding, comm->rank(), 3), mine);
      outcome[rank] = "finished";
    } catch (const Cancelled& error) {
      outcome[rank] = error.what();
    } catch (const std::exception& error) {
      outcome[rank] = std::string("not Cancelled: ") + error.what();
    }
    if (rank == 1 && polls != nullptr) {
      *polls = stop.polls();
    }
  });
  return outcome;
}

// A stop that one rank's observer asks for, wherever it comes (Laplace over the ranks' sums, the
// projection, a solver iteration or SparseVI's selection and step, the evaluation), stops every
// rank with the same Cancelled, and none is left waiting in a collective.
TEST(DistributedBuildStop, AStopAskedOnOneRankStopsEveryRankTogether) {
  const Dataset data = synthetic_logistic_dataset(kRows, 5);
  for (const BuildAlgorithm algorithm :
       {BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::sparsevi}) {
    const BuildOptions options = options_for(ModelKind::logistic, algorithm, Precision::float64);
    for (const Holding holding : {Holding::shares, Holding::whole}) {
      std::int64_t polls = 0;
      const std::vector<std::string> unstopped = stopped_builds(data, options, holding, 0, &polls);
      ASSERT_EQ(unstopped, std::vector<std::string>(3, "finished"));
      ASSERT_GT(polls, 10);
      for (const std::int64_t after :
           {std::int64_t{1}, polls / 8, polls / 3, polls / 2, polls - polls / 4, polls}) {
        SCOPED_TRACE("stop from poll " + std::to_string(after) + " of " + std::to_string(polls) +
                     (holding == Holding::shares ? ", shares" : ", whole data"));
        const std::vector<std::string> outcome = stopped_builds(data, options, holding, after);
        EXPECT_EQ(outcome[0].rfind("stopped on request", 0), 0u) << outcome[0];
        EXPECT_EQ(outcome[1], outcome[0]);
        EXPECT_EQ(outcome[2], outcome[0]);
      }
    }
  }
}

}  // namespace
}  // namespace coreset
