// One solve over many processes (MPI ranks): the datapoints, the columns of Phi, are split into
// contiguous blocks, one per rank, in rank order; each rank keeps its block where it computes and
// every iteration exchanges only S- and k-sized messages (sums of S-vectors, the ranks' top-k
// candidates).
//
// The same answer as one process: every sum over datapoints is exact (an integer superaccumulator
// rounded once, support/exact_sum.hpp inside the library), so the order in which ranks and threads
// add their parts cannot change a bit; the dense sums over all of Phi (y = Phi 1, the power
// iteration of iht) add exact sums of fixed blocks of kReductionBlock datapoints, so a rank's
// block must start at a multiple of kReductionBlock (datapoint_range() gives such blocks). The
// CPU backend then gives the coreset of one process bit for bit, whatever the number of ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coreset/export.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// The ranks of one job and the collective operations the engine needs. Every rank calls
/// each operation in the same order (they are collectives); each call returns on every rank.
/// The library provides mpi_world(); a caller may wrap its own transport (tests use threads).
class CORESET_API Communicator {
 public:
  virtual ~Communicator();
  virtual int rank() const = 0;  ///< 0 ... size() - 1
  virtual int size() const = 0;  ///< >= 1
  /// values[i] summed over the ranks, the result on every rank. Integers, so exact in any order.
  virtual void sum(std::int64_t* values, std::size_t count) const = 0;
  /// Every rank's `bytes` (any length, also none), in rank order, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& bytes) const = 0;
  /// to_each[q] (one entry per rank, any length) goes to rank q; returns what every rank sent to
  /// this one, in rank order. The default builds it from all_gather (every rank then receives
  /// every part, a transport written for two operations still works); mpi_world() sends each
  /// part to its rank alone (MPI_Alltoallv). InvalidArgument unless to_each has size() entries.
  virtual std::vector<std::string> all_to_all(const std::vector<std::string>& to_each) const;
  /// What it is, for reports and `coreset info` (e.g. "MPI: Open MPI v4.1.4, 4 ranks").
  virtual std::string description() const = 0;
  /// This rank's index among the ranks on its machine (0 ... ranks there - 1): a GPU job's rank
  /// uses GPU node_rank() mod (the machine's GPU count). The default, rank(), holds for ranks
  /// that share one machine (threads); mpi_world() asks MPI which ranks share memory.
  virtual int node_rank() const { return rank(); }
};

/// A rank's block of a distributed solve must start at a multiple of this many datapoints (or
/// hold none): the fixed blocks of the dense sums (see above).
inline constexpr index_t kReductionBlock = 256;

/// The datapoints first ... first + count - 1 that rank `rank` of `ranks` owns out of n: whole
/// kReductionBlock blocks split as evenly as they go (the last block may be short), in rank
/// order; with fewer blocks than ranks some ranks own none (rank r owns blocks
/// floor(b r / R) ... floor(b (r + 1) / R) - 1 of b). InvalidArgument for a rank outside 0 ...
/// ranks - 1.
struct CORESET_API DatapointRange {
  index_t first = 0;
  index_t count = 0;
};
CORESET_API DatapointRange datapoint_range(index_t n, int rank, int ranks);

/// Runs `step` on this rank; then, when `comm` is not null, every rank learns whether any rank's
/// step threw, and every rank throws the error of the lowest such rank (or, when that is an
/// InputError at a line of a file, the earliest line and column of that file any rank found: the
/// error one process reading the whole file reports first): the same type (a coreset::Error
/// subclass; anything else becomes an Error) and message, with " (rank r of R)" appended. A bad
/// file on one rank thus stops all of them alike instead of leaving the others waiting in the next
/// collective. An error that every rank already threw alike (thrown_on_every_rank: a collective
/// inside the step agreed on it, as read_dataset with a communicator does) is passed on as it is,
/// its rank named once. A collective itself.
CORESET_API void on_every_rank(const Communicator* comm, const std::function<void()>& step);

/// The message of the coreset::Cancelled that every rank of a distributed job throws at once when
/// any rank's ProgressObserver asked to stop (coreset/progress.hpp).
inline constexpr const char* kStoppedOnEveryRank = "stopped on request (every rank)";

/// Whether `message` is that of an error every rank of a job threw alike: one on_every_rank
/// raised (it ends in " (rank r of R)") or an agreed stop (kStoppedOnEveryRank). What a program
/// under mpirun needs to know to report a failure once (rank 0) instead of aborting the job.
CORESET_API bool thrown_on_every_rank(const std::string& message);

/// Whether this libcoreset was built with MPI (CMake option CORESET_ENABLE_MPI).
CORESET_API bool mpi_compiled() noexcept;

/// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun): read from the
/// environment those set, without initialising MPI.
CORESET_API bool launched_by_mpi() noexcept;

/// The communicator of all processes of the MPI job (MPI_COMM_WORLD). The first call initialises
/// MPI (MPI_Init_thread, funneled) unless the program already did, and MPI is finalized at exit
/// when the library initialised it. InvalidArgument when the library was built without MPI.
CORESET_API std::shared_ptr<const Communicator> mpi_world();

/// Stops every process of the MPI job with `exit_code` (MPI_Abort): for a failure on one rank
/// that the others, waiting in a collective, cannot learn of. Plain std::exit without MPI.
CORESET_API void mpi_abort(int exit_code);  // does not return

}  // namespace coreset
