#include "cli/mpi_run.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/terminal.hpp"
#include "coreset/error.hpp"

namespace coreset::cli {
namespace {

std::shared_ptr<const Communicator>& job_communicator() {
  static std::shared_ptr<const Communicator> comm;
  return comm;
}

}  // namespace

std::shared_ptr<const Communicator> distributed_run() {
  if (!launched_by_mpi()) {
    return nullptr;
  }
  if (!mpi_compiled()) {
    throw InvalidArgument(
        "started by an MPI launcher (mpirun, srun), but this coreset was built without MPI: "
        "install Open MPI (libopenmpi-dev) and rebuild, or run it as one process");
  }
  job_communicator() = mpi_world();
  return job_communicator();
}

DeviceChoice choose_run_device(const DeviceArguments& args) {
  const std::shared_ptr<const Communicator> comm = distributed_run();
  if (comm == nullptr) {
    return choose_device(args);
  }
  DeviceArguments resolved = args;
  if (args.device == "auto") {
    // Every rank takes the same device: the GPU only where every rank has one.
    std::string why;
    const std::vector<std::string> all =
        comm->all_gather(gpu_usable(&why) ? std::string() : "!" + why);
    const auto lacking = std::find_if(all.begin(), all.end(),
                                      [](const std::string& reason) { return !reason.empty(); });
    resolved.device = lacking == all.end() ? "gpu" : "cpu";
    if (lacking != all.end() && comm->rank() == 0 && !quiet()) {
      std::fprintf(stderr,
                   "coreset: notice: rank %d has no usable GPU (%s); every rank runs on the CPU\n",
                   static_cast<int>(lacking - all.begin()), lacking->c_str() + 1);
    }
  }
  DeviceChoice choice;
  on_every_rank(comm.get(), [&] { choice = choose_device(resolved); });
  return choice;
}

int report_shared_failure(int code, const std::string& label, const std::string& what) {
  const std::shared_ptr<const Communicator>& comm = job_communicator();
  if (comm == nullptr || comm->rank() == 0) {
    std::fprintf(stderr, "coreset: %s: %s\n", label.c_str(), what.c_str());
  }
  return code;
}

int report_failure(int code, const std::string& label, const std::string& what) {
  const std::shared_ptr<const Communicator>& comm = job_communicator();
  if (comm == nullptr || comm->size() == 1 || thrown_on_every_rank(what)) {
    return report_shared_failure(code, label, what);
  }
  std::fprintf(stderr, "coreset: rank %d of %d: %s: %s\n", comm->rank(), comm->size(),
               label.c_str(), what.c_str());
  std::fflush(stderr);
  mpi_abort(code);
  return code;  // not reached
}

}  // namespace coreset::cli
