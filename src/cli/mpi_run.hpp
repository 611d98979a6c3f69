// The command under an MPI launcher (mpirun -np R coreset solve ...): every process is one rank
// of a distributed solve (coreset/distributed.hpp); rank 0 alone shows progress, prints the
// summary and writes the outputs.
#pragma once

#include <memory>
#include <string>

#include "cli/device_choice.hpp"
#include "coreset/distributed.hpp"

namespace coreset::cli {

/// The job's communicator when started by an MPI launcher, else null (one process).
/// InvalidArgument when started by one but built without MPI.
std::shared_ptr<const Communicator> distributed_run();

/// choose_device() for a command that may run under an MPI launcher. There every rank takes
/// the same device, a GPU per rank or the CPU: auto means the GPU only when every rank has one
/// (else rank 0 prints one notice), and gpu fails (DeviceError, exit code 7) on a rank without
/// one, stopping all alike.
DeviceChoice choose_run_device(const DeviceArguments& args);

/// Prints the failure `label: what` on stderr and returns `code`. Under MPI with several ranks:
/// a failure every rank shares (coreset::thrown_on_every_rank) is printed by rank 0 alone and
/// the ranks exit normally; any other is printed with its rank and stops the
/// whole job (MPI_Abort), since the other ranks may be waiting for this one in a collective.
int report_failure(int code, const std::string& label, const std::string& what);

/// report_failure() for a failure that every rank is known to share (each found it alike):
/// printed by rank 0 alone; returns `code`.
int report_shared_failure(int code, const std::string& label, const std::string& what);

}  // namespace coreset::cli
