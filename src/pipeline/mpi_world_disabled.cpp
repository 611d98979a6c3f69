// mpi_world() in a build without MPI (CORESET_ENABLE_MPI off or no MPI found): it says so.
#include <cstdlib>
#include <memory>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {

bool mpi_compiled() noexcept {
  return false;
}

std::shared_ptr<const Communicator> mpi_world() {
  throw InvalidArgument(
      "this libcoreset was built without MPI: install Open MPI (libopenmpi-dev) and configure "
      "with -DCORESET_ENABLE_MPI=ON to run across processes");
}

void mpi_abort(int exit_code) {
  std::exit(exit_code);
}

}  // namespace coreset
