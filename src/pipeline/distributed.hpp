// What a distributed solve checks before its collectives (coreset/distributed.hpp, which also
// has on_every_rank): the layout of the ranks' column blocks, and inputs every rank must share.
#pragma once

#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"

namespace coreset::pipeline {

/// Where each rank's columns lie among all n, from each rank's own count.
struct ColumnLayout {
  index_t first = 0;            ///< this rank's first global column
  index_t columns = 0;          ///< n, all ranks together
  std::vector<index_t> counts;  ///< the columns of each rank, in rank order
};

/// Gathers every rank's `local_columns` and `rows`; InvalidArgument (on every rank) when the
/// ranks disagree on the row count or a non-empty block does not start at a multiple of
/// kReductionBlock. A collective.
ColumnLayout column_layout(const Communicator& comm, index_t local_columns, index_t rows);

/// The device a job runs on: the requested one in one process. Under solver.communicator every
/// rank runs on the same kind of device: automatic means the GPU when every rank has a usable
/// one, else the CPU; gpu fails with DeviceError (on every rank alike) naming the first rank
/// without one. A collective under a communicator, unless the CPU was asked for.
Device job_device(const SolverSettings& solver);

/// The GPU a rank of a GPU job uses: its node_rank() modulo the machine's GPU count, so the ranks
/// on one machine spread over its GPUs (and share them round-robin when there are more ranks).
int rank_gpu(const Communicator& comm);

/// InvalidArgument (on every rank) unless `bytes` is the same on every rank (e.g. y, or the
/// options): what the ranks must agree on. A collective.
void check_same_on_every_rank(const Communicator& comm, const std::string& bytes,
                              const std::string& what);

}  // namespace coreset::pipeline
