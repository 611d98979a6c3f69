// cpu::DistributedCpuBackend's once-per-solve primitives against the one-process CpuBackend, on
// ranks that are threads (helpers/thread_communicator.hpp). The solves themselves are compared in
// tests/pipeline/test_distributed_solve.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
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
  // column spread over every rank (each must cost one comparison, and all be found); -0.0 and
  // 0.0 differ bit for bit, so a column that differs from another only so is no copy.
  const Matrix<double> phi = test::matrix_with_copies();
  const index_t n = phi.cols();
  const std::vector<index_t> expected = cpu::CpuBackend<double>(phi.view(), 1).duplicate_columns();
  ASSERT_EQ(expected.size(), 43u);

  // Also with the hashes sent in rounds of few columns (about 100 per rank a round), where a group
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
        const Matrix<double> block = test::columns_of(phi, range);
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

// The bytes its rank receives, around another communicator (the threads' here).
class CountingCommunicator final : public Communicator {
 public:
  explicit CountingCommunicator(std::shared_ptr<Communicator> inner) : inner_(std::move(inner)) {}
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  void sum(std::int64_t* values, std::size_t count) const override { inner_->sum(values, count); }
  std::vector<std::string> all_gather(const std::string& bytes) const override {
    return counted(inner_->all_gather(bytes));
  }
  std::vector<std::string> all_to_all(const std::vector<std::string>& to_each) const override {
    return counted(inner_->all_to_all(to_each));
  }
  std::string description() const override { return inner_->description(); }
  std::size_t received() const { return received_; }

 private:
  std::vector<std::string> counted(std::vector<std::string> parts) const {
    for (const std::string& part : parts) {
      received_ += part.size();
    }
    return parts;
  }
  std::shared_ptr<Communicator> inner_;
  mutable std::size_t received_ = 0;
};

// No rank receives all n column hashes: each gets its buckets' (about 16 n / R bytes), plus a
// few small lists.
TEST(DistributedCpuBackend, EachRankReceivesAboutItsShareOfTheColumnHashes) {
  constexpr index_t n = 64 * kReductionBlock;
  const Matrix<double> phi = test::gaussian_matrix(4, n, 9);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::vector<std::size_t> received(static_cast<std::size_t>(ranks));
    test::run_ranks(ranks, [&](const std::shared_ptr<Communicator>& threads) {
      const CountingCommunicator comm(threads);
      const DatapointRange range = datapoint_range(n, comm.rank(), ranks);
      const Matrix<double> block = test::columns_of(phi, range);
      cpu::DistributedCpuBackend<double> backend(block.view(), range.first, n, comm, 1);
      EXPECT_TRUE(backend.duplicate_columns().empty());
      received[static_cast<std::size_t>(comm.rank())] = comm.received();
    });
    const std::size_t share = 16 * static_cast<std::size_t>(n) / static_cast<std::size_t>(ranks);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_LE(received[static_cast<std::size_t>(r)], share * 5 / 4 + 1024)
          << "rank " << r << " of " << ranks;
    }
  }
}

}  // namespace
}  // namespace coreset
