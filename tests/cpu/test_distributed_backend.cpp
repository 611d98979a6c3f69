// cpu::DistributedCpuBackend's once-per-solve primitives against the one-process CpuBackend, on
// ranks that are threads (helpers/thread_communicator.hpp). The solves themselves are compared in
// tests/pipeline/test_distributed_solve.cpp.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/distributed_backend.hpp"
#include "helpers/random_problem.hpp"
#include "helpers/thread_communicator.hpp"

namespace coreset {
namespace {

TEST(DistributedCpuBackend, FindsTheOneProcessDuplicatesWhereverTheCopiesLie) {
  // 3 blocks and a bit; copies within a block, across blocks, and a group of 40 copies of one
  // column spread over every rank (each must cost one comparison, and all be found).
  constexpr index_t n = 3 * kReductionBlock + 30;
  Matrix<double> phi = test::gaussian_matrix(12, n, 3);
  const auto copy = [&](index_t to, index_t from) {
    for (index_t i = 0; i < phi.rows(); ++i) {
      phi(i, to) = phi(i, from);
    }
  };
  copy(5, 2);
  copy(400, 7);
  copy(n - 1, 300);
  for (index_t c = 0; c < 40; ++c) {
    copy(21 + 19 * c, 10);
  }
  // -0.0 and 0.0 differ bit for bit: a column that differs from another only so is no copy.
  copy(700, 600);
  phi(0, 600) = 0.0;
  phi(0, 700) = -0.0;
  const std::vector<index_t> expected = cpu::CpuBackend<double>(phi.view(), 1).duplicate_columns();
  ASSERT_EQ(expected.size(), 43u);

  // Also with the hashes gathered in rounds of few columns (about 100 per round), where a group
  // of copies must still meet in one round; and with hashes of 3 bits, where about a hundred
  // distinct columns share each hash, so that a copy of a column other than its group's first is
  // found only by the comparisons that a collision takes (and a distinct one must not be taken
  // for a copy).
  struct Case {
    std::size_t round_bytes;
    int hash_bits;
  };
  for (const Case c : {Case{std::size_t{256} << 20, 64}, Case{1600, 64}, Case{1600, 3},
                       Case{std::size_t{256} << 20, 3}}) {
    for (int ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(std::to_string(c.round_bytes) + " bytes a round, " +
                   std::to_string(c.hash_bits) + "-bit hashes, " + std::to_string(ranks) +
                   " ranks");
      std::mutex mutex;
      std::vector<std::vector<index_t>> found;
      test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& comm) {
        const DatapointRange range = datapoint_range(n, comm->rank(), ranks);
        Matrix<double> block(phi.rows(), range.count);
        for (index_t j = 0; j < range.count; ++j) {
          for (index_t i = 0; i < phi.rows(); ++i) {
            block(i, j) = phi(i, range.first + j);
          }
        }
        cpu::DistributedCpuBackend<double> backend(block.view(), range.first, n, *comm, 1);
        backend.set_hash_gather_bytes(c.round_bytes);
        backend.set_hash_bits(c.hash_bits);
        const std::vector<index_t> duplicates = backend.duplicate_columns();
        std::lock_guard<std::mutex> lock(mutex);
        found.push_back(duplicates);
      });
      ASSERT_EQ(found.size(), static_cast<std::size_t>(ranks));
      for (const auto& duplicates : found) {
        EXPECT_EQ(duplicates, expected) << ranks << " ranks";
      }
    }
  }
}

}  // namespace
}  // namespace coreset
