// solve() distributed over ranks (coreset/distributed.hpp), the ranks being threads of this
// process (helpers/thread_communicator.hpp): every algorithm, on every split, must give every rank
// the one-process coreset bit for bit; a bad block on one rank must stop all of them alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/thread_communicator.hpp"

namespace coreset {
namespace {

// 5 reduction blocks, the last one short: enough for uneven splits and empty ranks.
constexpr index_t kRows = 24;
constexpr index_t kCols = 4 * kReductionBlock + 77;

template <class T>
Matrix<T> coreset_like_phi(std::uint64_t seed) {
  // Columns share a direction (as centred log-likelihoods of one model do), so y = Phi 1 is far
  // from 0 and the solvers have work to do; two columns are copies of earlier ones in other
  // blocks, so duplicates cross ranks.
  Matrix<T> phi = test::gaussian_matrix<T>(kRows, kCols, seed);
  const Matrix<T> common = test::gaussian_matrix<T>(kRows, 1, seed + 1);
  for (index_t j = 0; j < kCols; ++j) {
    for (index_t i = 0; i < kRows; ++i) {
      phi(i, j) += T(0.5) * common(i, 0);
    }
  }
  for (const auto& [copy, of] : {std::pair<index_t, index_t>{900, 3}, {1030, 600}}) {
    for (index_t i = 0; i < kRows; ++i) {
      phi(i, copy) = phi(i, of);
    }
  }
  return phi;
}

// Each rank's block in its own allocation, as separate processes would hold them.
template <class T>
Matrix<T> block_of(const Matrix<T>& phi, index_t first, index_t count) {
  Matrix<T> block(phi.rows(), count);
  for (index_t j = 0; j < count; ++j) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      block(i, j) = phi(i, first + j);
    }
  }
  return block;
}

void expect_same(const SolveResult& expected, const SolveResult& actual, const std::string& where) {
  EXPECT_EQ(actual.coreset.indices, expected.coreset.indices) << where;
  ASSERT_EQ(actual.coreset.weights.size(), expected.coreset.weights.size()) << where;
  for (std::size_t p = 0; p < expected.coreset.weights.size(); ++p) {
    // Bit for bit.
    EXPECT_EQ(std::memcmp(&actual.coreset.weights[p], &expected.coreset.weights[p], sizeof(double)),
              0)
        << where << ": weight " << p << " " << actual.coreset.weights[p] << " vs "
        << expected.coreset.weights[p];
  }
  EXPECT_EQ(actual.objective, expected.objective) << where;
  EXPECT_EQ(actual.iterations, expected.iterations) << where;
  EXPECT_EQ(actual.stop_reason, expected.stop_reason) << where;
}

// Runs `options` on `counts` (columns per rank, in rank order) and returns every rank's result.
template <class T>
std::vector<SolveResult> solve_on_ranks(const Matrix<T>& phi, const std::vector<T>* y,
                                        const std::vector<index_t>& counts, SolverOptions options) {
  const int ranks = static_cast<int>(counts.size());
  std::vector<SolveResult> results(counts.size());
  test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
    index_t first = 0;
    for (int r = 0; r < comm->rank(); ++r) {
      first += counts[static_cast<std::size_t>(r)];
    }
    const Matrix<T> block = block_of(phi, first, counts[static_cast<std::size_t>(comm->rank())]);
    SolverOptions mine = options;
    mine.communicator = comm;
    results[static_cast<std::size_t>(comm->rank())] =
        solve(block.view(), y == nullptr ? nullptr : y->data(), mine);
  });
  return results;
}

std::vector<std::vector<index_t>> splits() {
  std::vector<std::vector<index_t>> all;
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::vector<index_t> counts;
    for (int r = 0; r < ranks; ++r) {
      counts.push_back(datapoint_range(kCols, r, ranks).count);
    }
    all.push_back(counts);
  }
  const index_t b = kReductionBlock;
  all.push_back({0, 2 * b, kCols - 2 * b});  // an empty first rank
  all.push_back({b, 0, kCols - b, 0});       // empty ranks between and after
  all.push_back({4 * b, kCols - 4 * b});     // a last rank with fewer than k points
  return all;
}

std::string describe(const std::vector<index_t>& counts) {
  std::string text = "split";
  for (const index_t c : counts) {
    text += " " + std::to_string(c);
  }
  return text;
}

struct Case {
  Algorithm algorithm;
  bool given_y;
  double batch_fraction;
  bool refit;
};

class DistributedSolve : public ::testing::TestWithParam<Case> {};

template <class T>
void check_every_split(const Case& c) {
  const Matrix<T> phi = coreset_like_phi<T>(5);
  std::vector<T> y;
  if (c.given_y) {
    const Matrix<T> other = test::gaussian_matrix<T>(kRows, 1, 99);
    for (index_t i = 0; i < kRows; ++i) {
      y.push_back(other(i, 0) * T(20));
    }
  }
  SolverOptions options;
  options.algorithm = c.algorithm;
  options.k = 40;
  options.max_iterations = 60;
  options.seed = 3;
  options.threads = 1;
  options.batch_fraction = c.batch_fraction;
  options.refit = c.refit;
  const SolveResult one = solve(phi.view(), y.empty() ? nullptr : y.data(), options);
  ASSERT_FALSE(one.coreset.indices.empty());
  for (const auto& counts : splits()) {
    const auto results = solve_on_ranks(phi, y.empty() ? nullptr : &y, counts, options);
    for (std::size_t r = 0; r < results.size(); ++r) {
      expect_same(one, results[r], describe(counts) + ", rank " + std::to_string(r));
      EXPECT_EQ(results[r].rank_devices, std::vector<std::string>(counts.size(), "cpu"));
    }
    EXPECT_TRUE(one.rank_devices.empty());
  }
}

TEST_P(DistributedSolve, EveryRankGetsTheOneProcessCoresetInDouble) {
  check_every_split<double>(GetParam());
}

TEST_P(DistributedSolve, EveryRankGetsTheOneProcessCoresetInFloat) {
  check_every_split<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Algorithms, DistributedSolve,
                         ::testing::Values(Case{Algorithm::aiht2, false, 0.0, false},
                                           Case{Algorithm::aiht2, true, 0.0, true},
                                           Case{Algorithm::aiht, false, 0.3, false},
                                           Case{Algorithm::iht, false, 0.0, false},
                                           Case{Algorithm::giga, false, 0.0, false},
                                           Case{Algorithm::frank_wolfe, false, 0.0, true},
                                           Case{Algorithm::importance_sampling, false, 0.0, false},
                                           Case{Algorithm::uniform, false, 0.0, false}),
                         [](const auto& info) {
                           std::string name = to_string(info.param.algorithm);
                           for (char& ch : name) {
                             ch = ch == '-' ? '_' : ch;
                           }
                           return name + (info.param.given_y ? "_given_y" : "") +
                                  (info.param.batch_fraction > 0 ? "_batch" : "") +
                                  (info.param.refit ? "_refit" : "");
                         });

TEST(DistributedSolveErrors, ANonFiniteEntryOnOneRankStopsEveryRankWithItsGlobalColumn) {
  Matrix<double> phi = coreset_like_phi<double>(5);
  phi(3, 2 * kReductionBlock + 10) = std::numeric_limits<double>::quiet_NaN();
  SolverOptions options;
  options.k = 10;
  std::mutex mutex;
  std::vector<std::string> messages;
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    const DatapointRange range = datapoint_range(kCols, comm->rank(), 3);
    const Matrix<double> block = block_of(phi, range.first, range.count);
    SolverOptions mine = options;
    mine.communicator = comm;
    try {
      solve(block.view(), nullptr, mine);
      ADD_FAILURE() << "rank " << comm->rank() << " solved";
    } catch (const InvalidArgument& error) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(error.what());
    }
  });
  ASSERT_EQ(messages.size(), 3u);
  for (const std::string& message : messages) {
    EXPECT_EQ(message, messages[0]);
  }
  const DatapointRange bad = datapoint_range(kCols, 1, 3);
  ASSERT_LE(bad.first, 2 * kReductionBlock + 10);  // the NaN's column is rank 1's
  EXPECT_NE(messages[0].find("column " + std::to_string(2 * kReductionBlock + 10)),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[0].find("rank 1 of 3"), std::string::npos) << messages[0];
}

TEST(DistributedSolveErrors, ABlockOffTheReductionGridIsRefusedOnEveryRank) {
  const Matrix<double> phi = coreset_like_phi<double>(5);
  SolverOptions options;
  options.k = 10;
  int refused = 0;
  std::mutex mutex;
  test::run_ranks(2, [&](const std::shared_ptr<Communicator>& comm) {
    const index_t first = comm->rank() == 0 ? 0 : 100;  // 100 is no multiple of 256
    const Matrix<double> block = block_of(phi, first, comm->rank() == 0 ? 100 : kCols - 100);
    SolverOptions mine = options;
    mine.communicator = comm;
    try {
      solve(block.view(), nullptr, mine);
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("multiple of 256"), std::string::npos)
          << error.what();
      std::lock_guard<std::mutex> lock(mutex);
      ++refused;
    }
  });
  EXPECT_EQ(refused, 2);
}

TEST(DistributedSolveErrors, RanksWithDifferentTargetsAreRefused) {
  const Matrix<double> phi = coreset_like_phi<double>(5);
  int refused = 0;
  std::mutex mutex;
  test::run_ranks(2, [&](const std::shared_ptr<Communicator>& comm) {
    const DatapointRange range = datapoint_range(kCols, comm->rank(), 2);
    const Matrix<double> block = block_of(phi, range.first, range.count);
    std::vector<double> y(kRows, 1.0 + comm->rank());
    SolverOptions options;
    options.k = 10;
    options.communicator = comm;
    try {
      solve(block.view(), y.data(), options);
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find("disagree on y"), std::string::npos) << error.what();
      std::lock_guard<std::mutex> lock(mutex);
      ++refused;
    }
  });
  EXPECT_EQ(refused, 2);
}

// Every rank runs on the same kind of device, decided together: without a GPU on every rank,
// automatic is the CPU (the one-process CPU coreset, bit for bit) and gpu stops every rank alike.
TEST(DistributedSolveDevice, WithoutAGpuAutomaticIsTheCpuAndAGpuRequestStopsEveryRank) {
  if (gpu_usable()) {
    GTEST_SKIP() << "a GPU is usable here: tests/cuda checks the GPU ranks";
  }
  const Matrix<double> phi = coreset_like_phi<double>(5);
  SolverOptions options;
  options.k = 12;
  options.threads = 1;
  const SolveResult one = solve(phi.view(), nullptr, options);
  options.device = Device::automatic;
  const std::vector<index_t> counts{512, kCols - 512};
  for (const SolveResult& result :
       solve_on_ranks(phi, static_cast<const std::vector<double>*>(nullptr), counts, options)) {
    expect_same(one, result, "automatic");
    EXPECT_EQ(result.device, Device::cpu);
    EXPECT_EQ(result.rank_devices, std::vector<std::string>(2, "cpu"));
  }
  std::mutex mutex;
  std::vector<std::string> messages;
  test::run_ranks(3, [&](const std::shared_ptr<Communicator>& comm) {
    const DatapointRange range = datapoint_range(kCols, comm->rank(), 3);
    const Matrix<double> block = block_of(phi, range.first, range.count);
    SolverOptions mine = options;
    mine.device = Device::gpu;
    mine.communicator = comm;
    try {
      solve(block.view(), nullptr, mine);
      ADD_FAILURE() << "rank " << comm->rank() << " solved without a GPU";
    } catch (const DeviceError& error) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.push_back(error.what());
    }
  });
  ASSERT_EQ(messages.size(), 3u);
  for (const std::string& message : messages) {
    EXPECT_EQ(message, messages[0]);
  }
  EXPECT_NE(messages[0].find("rank 0 of 3 has none usable"), std::string::npos) << messages[0];
}

// The all_to_all a transport gets without writing one (built on all_gather): every rank receives
// exactly what each rank addressed to it, empty parts and binary bytes included.
TEST(Communicator, AllToAllDeliversEachPartToItsRankInRankOrder) {
  const auto part = [](int from, int to) {
    std::string bytes(static_cast<std::size_t>((from * 7 + to * 3) % 5), '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<char>(from * 16 + to + static_cast<int>(i));
    }
    return bytes;
  };
  for (int ranks = 1; ranks <= 4; ++ranks) {
    test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
      std::vector<std::string> to_each;
      for (int q = 0; q < ranks; ++q) {
        to_each.push_back(part(comm->rank(), q));
      }
      const std::vector<std::string> received = comm->all_to_all(to_each);
      ASSERT_EQ(received.size(), static_cast<std::size_t>(ranks));
      for (int from = 0; from < ranks; ++from) {
        EXPECT_EQ(received[static_cast<std::size_t>(from)], part(from, comm->rank()))
            << "from rank " << from << " to rank " << comm->rank() << " of " << ranks;
      }
      EXPECT_THROW(comm->all_to_all(std::vector<std::string>(static_cast<std::size_t>(ranks) + 1)),
                   InvalidArgument);
    });
  }
}

TEST(Communicator, ByDefaultEveryRankSharesOneMachine) {
  test::run_ranks(3, [](const std::shared_ptr<Communicator>& comm) {
    EXPECT_EQ(comm->node_rank(), comm->rank());
  });
}

TEST(DatapointRange, SplitsWholeBlocksInRankOrderCoveringEveryPoint) {
  for (const index_t n : {index_t{0}, index_t{1}, index_t{255}, index_t{256}, index_t{257},
                          index_t{10'000}, index_t{1} << 40}) {
    for (int ranks = 1; ranks <= 7; ++ranks) {
      index_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const DatapointRange range = datapoint_range(n, r, ranks);
        EXPECT_EQ(range.first, next) << n << " " << r << "/" << ranks;
        EXPECT_TRUE(range.count == 0 || range.first % kReductionBlock == 0);
        EXPECT_GE(range.count, 0);
        next = range.first + range.count;
      }
      EXPECT_EQ(next, n);
      // As even as whole blocks allow: no two ranks differ by more than one block.
      const index_t most = datapoint_range(n, 0, ranks).count;
      const index_t least = datapoint_range(n, ranks - 1, ranks).count;
      EXPECT_LE(most - least, kReductionBlock) << n << " over " << ranks;
    }
  }
  EXPECT_THROW(datapoint_range(10, 2, 2), InvalidArgument);
}

// What every rank of 4 throws when each rank's step does `fail` (rank -> nothing, or a throw).
std::vector<std::string> agreed_errors(const std::function<void(int rank)>& fail) {
  std::vector<std::string> seen(4);
  test::run_ranks(4, [&](const std::shared_ptr<Communicator>& comm) {
    try {
      on_every_rank(comm.get(), [&] { fail(comm->rank()); });
      seen[static_cast<std::size_t>(comm->rank())] = "(nothing)";
    } catch (const InputError& error) {
      seen[static_cast<std::size_t>(comm->rank())] = "InputError " + std::string(error.what());
    } catch (const Error& error) {
      seen[static_cast<std::size_t>(comm->rank())] = error.what();
    }
  });
  return seen;
}

// Ranks that hold blocks of a file's columns (a CSV Phi) each find their own first bad cell: every
// rank reports the earliest line, then column, that any found, as one process reading the whole
// file does, not the lowest rank's. A failure of another kind, or in another file, on a lower rank
// is still the lowest rank's.
TEST(OnEveryRank, TheEarliestBadPlaceInAFileIsWhatEveryRankReports) {
  const std::vector<std::string> cells = agreed_errors([](int rank) {
    const index_t line[] = {9, 0, 4, 4};
    const index_t column[] = {2, 0, 1000, 900};
    if (line[rank] > 0) {
      throw InputError("phi.csv", "bad cell", line[rank], column[rank]);
    }
  });
  for (const std::string& error : cells) {
    EXPECT_EQ(error, "InputError phi.csv:4:900: bad cell (rank 3 of 4)");
  }
  const std::vector<std::string> kinds = agreed_errors([](int rank) {
    if (rank == 1) {
      throw InvalidArgument("bad option");
    }
    if (rank == 2) {
      throw InputError("phi.csv", "bad cell", 1, 1);
    }
  });
  for (const std::string& error : kinds) {
    EXPECT_EQ(error, "bad option (rank 1 of 4)");
  }
  const std::vector<std::string> files = agreed_errors([](int rank) {
    if (rank >= 2) {
      throw InputError(rank == 2 ? "a.csv" : "b.csv", "bad cell", 10 - rank, 1);
    }
  });
  for (const std::string& error : files) {
    EXPECT_EQ(error, "InputError a.csv:8:1: bad cell (rank 2 of 4)");
  }
}

// What the command reports once instead of aborting the job: what on_every_rank raised on every
// rank (named by its rank at the very end) and an agreed stop; nothing else.
TEST(ThrownOnEveryRank, RecognisesOnlyTheMarksOfAnErrorEveryRankThrew) {
  EXPECT_TRUE(thrown_on_every_rank("data.csv:1100:1: bad cell (rank 2 of 4)"));
  EXPECT_TRUE(thrown_on_every_rank("x (rank 0 of 1)"));
  EXPECT_TRUE(thrown_on_every_rank(kStoppedOnEveryRank));
  EXPECT_TRUE(thrown_on_every_rank(std::string(kStoppedOnEveryRank) + " (rank 0 of 3)"));
  EXPECT_FALSE(thrown_on_every_rank("stopped on request"));
  EXPECT_FALSE(thrown_on_every_rank("bad cell (rank 2 of 4) in data.csv"));
  EXPECT_FALSE(thrown_on_every_rank("bad cell (rank two of 4)"));
  EXPECT_FALSE(thrown_on_every_rank("bad cell (rank 2 of )"));
  EXPECT_FALSE(thrown_on_every_rank("bad cell (rank 2 of 4))"));
  EXPECT_FALSE(thrown_on_every_rank(""));
}

}  // namespace
}  // namespace coreset
