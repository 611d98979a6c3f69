// mpi_world() over MPI (built with CORESET_ENABLE_MPI): MPI_COMM_WORLD behind the Communicator
// interface. Every MPI call is checked; a failing one is an Error naming the call.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {
namespace {

void check(int status, const char* call) {
  if (status != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw Error(std::string(call) +
                " failed: " + std::string(text, static_cast<std::size_t>(length)));
  }
}

// Finalizes MPI at exit when this library initialised it.
struct Finalizer {
  ~Finalizer() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      MPI_Finalize();
    }
  }
};

class MpiWorld final : public Communicator {
 public:
  MpiWorld() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    check(MPI_Get_library_version(version, &length), "MPI_Get_library_version");
    library_ = std::string(version, static_cast<std::size_t>(length));
    library_ = library_.substr(0, library_.find_first_of(",\n"));
    // The ranks that share this machine's memory, in world rank order: this rank's place there.
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    check(MPI_Comm_rank(node, &node_rank_), "MPI_Comm_rank");
    check(MPI_Comm_free(&node), "MPI_Comm_free");
    // A smaller round for the tests, which run whole jobs with many rounds per gather.
    if (const char* bytes = std::getenv("CORESET_MPI_GATHER_ROUND_BYTES")) {
      round_bytes_ = std::clamp<std::int64_t>(std::atoll(bytes), 1, kRoundBytes);
    }
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int node_rank() const override { return node_rank_; }
  void sum(std::int64_t* values, std::size_t count) const override {
    // In slices that an int count can hold.
    constexpr std::size_t kSlice = std::size_t{1} << 30;
    for (std::size_t at = 0; at < count; at += kSlice) {
      const int n = static_cast<int>(std::min(kSlice, count - at));
      check(MPI_Allreduce(MPI_IN_PLACE, values + at, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
    }
  }
  /// In rounds, so that MPI's int counts and displacements hold any size: each rank sends at
  /// most round_bytes_ / size() of its bytes per round. The sizes are gathered first (as 64-bit
  /// integers), so every rank knows every round's counts.
  std::vector<std::string> all_gather(const std::string& bytes) const override {
    const auto mine = static_cast<std::int64_t>(bytes.size());
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD),
          "MPI_Allgather");
    const std::int64_t slice = std::max<std::int64_t>(1, round_bytes_ / size_);
    const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
    std::vector<std::string> parts(sizes.size());
    std::vector<int> counts(sizes.size());
    std::vector<int> offsets(sizes.size());
    std::string round;
    for (std::int64_t at = 0; at < largest; at += slice) {
      int total = 0;
      for (std::size_t r = 0; r < sizes.size(); ++r) {
        counts[r] = static_cast<int>(std::clamp<std::int64_t>(sizes[r] - at, 0, slice));
        offsets[r] = total;
        total += counts[r];
      }
      round.resize(static_cast<std::size_t>(total));
      check(MPI_Allgatherv(bytes.data() + std::min(at, mine),
                           counts[static_cast<std::size_t>(rank_)], MPI_BYTE, round.data(),
                           counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
            "MPI_Allgatherv");
      for (std::size_t r = 0; r < sizes.size(); ++r) {
        parts[r].append(round, static_cast<std::size_t>(offsets[r]),
                        static_cast<std::size_t>(counts[r]));
      }
    }
    return parts;
  }
  /// In rounds, as all_gather: each pair of ranks moves at most round_bytes_ / size() bytes per
  /// round, so a rank receives at most round_bytes_ in one. The sizes go first (64-bit), and the
  /// ranks agree on the round count (the largest part anywhere).
  std::vector<std::string> all_to_all(const std::vector<std::string>& to_each) const override {
    const auto ranks = static_cast<std::size_t>(size_);
    if (to_each.size() != ranks) {
      return Communicator::all_to_all(to_each);  // its InvalidArgument
    }
    std::vector<std::int64_t> send_sizes(ranks);
    for (std::size_t q = 0; q < ranks; ++q) {
      send_sizes[q] = static_cast<std::int64_t>(to_each[q].size());
    }
    std::vector<std::int64_t> receive_sizes(ranks);
    check(MPI_Alltoall(send_sizes.data(), 1, MPI_INT64_T, receive_sizes.data(), 1, MPI_INT64_T,
                       MPI_COMM_WORLD),
          "MPI_Alltoall");
    std::int64_t largest = 0;
    for (std::size_t q = 0; q < ranks; ++q) {
      largest = std::max({largest, send_sizes[q], receive_sizes[q]});
    }
    check(MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
          "MPI_Allreduce");
    const std::int64_t slice = std::max<std::int64_t>(1, round_bytes_ / size_);
    std::vector<std::string> received(ranks);
    std::vector<int> send_counts(ranks), send_offsets(ranks), receive_counts(ranks),
        receive_offsets(ranks);
    std::string out;
    std::string in;
    for (std::int64_t at = 0; at < largest; at += slice) {
      int sent = 0;
      int got = 0;
      out.clear();
      for (std::size_t q = 0; q < ranks; ++q) {
        send_counts[q] = static_cast<int>(std::clamp<std::int64_t>(send_sizes[q] - at, 0, slice));
        send_offsets[q] = sent;
        sent += send_counts[q];
        out.append(to_each[q], static_cast<std::size_t>(std::min(at, send_sizes[q])),
                   static_cast<std::size_t>(send_counts[q]));
        receive_counts[q] =
            static_cast<int>(std::clamp<std::int64_t>(receive_sizes[q] - at, 0, slice));
        receive_offsets[q] = got;
        got += receive_counts[q];
      }
      in.resize(static_cast<std::size_t>(got));
      check(MPI_Alltoallv(out.data(), send_counts.data(), send_offsets.data(), MPI_BYTE, in.data(),
                          receive_counts.data(), receive_offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
            "MPI_Alltoallv");
      for (std::size_t q = 0; q < ranks; ++q) {
        received[q].append(in, static_cast<std::size_t>(receive_offsets[q]),
                           static_cast<std::size_t>(receive_counts[q]));
      }
    }
    return received;
  }
  std::string description() const override {
    return "MPI: " + library_ + ", " + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks");
  }

 private:
  // The most bytes of one all_gather round from all ranks together: far below 2^31.
  static constexpr std::int64_t kRoundBytes = std::int64_t{1} << 30;
  int rank_ = 0;
  int size_ = 1;
  int node_rank_ = 0;
  std::int64_t round_bytes_ = kRoundBytes;
  std::string library_;
};

}  // namespace

bool mpi_compiled() noexcept {
  return true;
}

std::shared_ptr<const Communicator> mpi_world() {
  static const std::shared_ptr<const Communicator> world = [] {
    int initialized = 0;
    check(MPI_Initialized(&initialized), "MPI_Initialized");
    if (!initialized) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      static Finalizer finalizer;
    }
    return std::make_shared<const MpiWorld>();
  }();
  return world;
}

void mpi_abort(int exit_code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
  std::exit(exit_code);
}

}  // namespace coreset
