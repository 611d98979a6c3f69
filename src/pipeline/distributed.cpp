#include "pipeline/distributed.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

#include "coreset/error.hpp"
#include "coreset/version.hpp"
#include "cuda/solve_cuda.hpp"
#include "support/collectives.hpp"

namespace coreset {

bool launched_by_mpi() noexcept {
  // Open MPI's mpirun, MPICH/Hydra and Slurm's srun (PMI and PMIx) set these in every process.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(name) != nullptr) {
      return true;
    }
  }
  return false;
}

namespace pipeline {

ColumnLayout column_layout(const Communicator& comm, index_t local_columns, index_t rows) {
  struct Block {
    std::int64_t columns;
    std::int64_t rows;
  };
  const std::vector<Block> all =
      support::all_gather_values(comm, std::vector<Block>{{local_columns, rows}});
  ColumnLayout layout;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Block& theirs = all[r];
    if (theirs.rows != rows) {
      throw InvalidArgument("the ranks disagree on Phi's row count S: rank " + std::to_string(r) +
                            " has " + std::to_string(theirs.rows) + ", rank " +
                            std::to_string(comm.rank()) + " has " + std::to_string(rows));
    }
    if (theirs.columns > 0 && layout.columns % kReductionBlock != 0) {
      throw InvalidArgument("rank " + std::to_string(r) + "'s columns start at " +
                            std::to_string(layout.columns) + ", not a multiple of " +
                            std::to_string(kReductionBlock) +
                            " (kReductionBlock): split the columns with datapoint_range()");
    }
    if (static_cast<int>(r) == comm.rank()) {
      layout.first = layout.columns;
    }
    layout.counts.push_back(theirs.columns);
    layout.columns += theirs.columns;
  }
  return layout;
}

Device job_device(const SolverSettings& solver) {
  const Communicator* comm = solver.communicator.get();
  if (comm == nullptr) {
    return solver.device;
  }
  if (solver.device == Device::cpu) {
    return Device::cpu;
  }
  // Every rank's answer, so that all take the same device or fail alike.
  std::string why;
  const bool mine = cuda::gpu_available(&why);
  const std::vector<std::string> all = comm->all_gather(mine ? std::string() : "!" + why);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) {
      continue;
    }
    if (solver.device == Device::gpu) {
      throw DeviceError("the GPU was requested but rank " + std::to_string(r) + " of " +
                        std::to_string(all.size()) + " has none usable: " + all[r].substr(1) +
                        " (use the CPU device instead)");
    }
    return Device::cpu;  // automatic: the GPU only where every rank has one
  }
  return Device::gpu;
}

int rank_gpu(const Communicator& comm) {
  const auto devices = list_devices();
  return devices.empty() ? 0 : comm.node_rank() % static_cast<int>(devices.size());
}

void check_same_on_every_rank(const Communicator& comm, const std::string& bytes,
                              const std::string& what) {
  const std::vector<std::string> all = comm.all_gather(bytes);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      throw InvalidArgument("the ranks disagree on " + what + ": rank " + std::to_string(r) +
                            "'s differs from rank 0's (every rank must pass the same)");
    }
  }
}

}  // namespace pipeline
}  // namespace coreset
