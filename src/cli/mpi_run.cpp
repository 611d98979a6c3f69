#include "cli/mpi_run.hpp"

#include <cstdio>
#include <regex>

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

int report_failure(int code, const std::string& label, const std::string& what) {
  const std::shared_ptr<const Communicator>& comm = job_communicator();
  if (comm == nullptr || comm->size() == 1) {
    std::fprintf(stderr, "coreset: %s: %s\n", label.c_str(), what.c_str());
    return code;
  }
  static const std::regex shared(R"( \(rank [0-9]+ of [0-9]+\)$)");
  if (std::regex_search(what, shared)) {
    if (comm->rank() == 0) {
      std::fprintf(stderr, "coreset: %s: %s\n", label.c_str(), what.c_str());
    }
    return code;
  }
  std::fprintf(stderr, "coreset: rank %d of %d: %s: %s\n", comm->rank(), comm->size(),
               label.c_str(), what.c_str());
  std::fflush(stderr);
  mpi_abort(code);
  return code;  // not reached
}

}  // namespace coreset::cli
