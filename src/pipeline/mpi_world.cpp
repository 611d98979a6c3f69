// mpi_world() over MPI (built with CORESET_ENABLE_MPI): MPI_COMM_WORLD behind the Communicator
// interface. Every MPI call is checked; a failing one is an Error naming the call.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
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
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(std::int64_t* values, std::size_t count) const override {
    // In slices that an int count can hold.
    constexpr std::size_t kSlice = std::size_t{1} << 30;
    for (std::size_t at = 0; at < count; at += kSlice) {
      const int n = static_cast<int>(std::min(kSlice, count - at));
      check(MPI_Allreduce(MPI_IN_PLACE, values + at, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
    }
  }
  std::vector<std::string> all_gather(const std::string& bytes) const override {
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw Error("all_gather: " + std::to_string(bytes.size()) +
                  " bytes from one rank, more than MPI's int count holds");
    }
    const int mine = static_cast<int>(bytes.size());
    std::vector<int> counts(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Allgather");
    std::vector<int> offsets(counts.size());
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += counts[r];
      if (total > std::numeric_limits<int>::max()) {  // MPI_Allgatherv's displacements are ints
        throw Error("all_gather: more than 2^31 bytes from all ranks together");
      }
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Allgatherv(bytes.data(), mine, MPI_BYTE, all.data(), counts.data(), offsets.data(),
                         MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      parts.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(counts[r])));
    }
    return parts;
  }
  std::string description() const override {
    return "MPI: " + library_ + ", " + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks");
  }

 private:
  int rank_ = 0;
  int size_ = 1;
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
