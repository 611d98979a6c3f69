// Host memory, checked before a large allocation: a job that cannot fit should say so, with the
// sizes, before it spends minutes on the stages that precede the allocation or is killed by the
// operating system half-way through writing its outputs.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "coreset/error.hpp"
#include "support/cgroup_limits.hpp"

namespace coreset::support {

/// The memory this process may hold: the machine's physical memory, or less where a control
/// group limits it (a container's --memory; support/cgroup_limits.hpp), divided among the MPI
/// ranks on the node, which share it.
struct HostMemoryLimit {
  std::int64_t bytes = std::numeric_limits<std::int64_t>::max();  ///< the largest when unknown
  bool set_by_control_group = false;
  int sharing_ranks = 1;  ///< the ranks whose equal shares of the memory `bytes` is one of
};

/// Bytes of physical memory, or the largest int64 when the system does not say.
inline std::int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return static_cast<std::int64_t>(pages) * page_size;
}

/// The smaller of physical_memory() and this process's control group limit, over
/// process_local_ranks().
inline HostMemoryLimit host_memory_limit() {
  const std::int64_t machine = physical_memory();
  const std::optional<std::int64_t> group = process_memory_limit();
  HostMemoryLimit limit;
  limit.set_by_control_group = group && *group < machine;
  limit.bytes = limit.set_by_control_group ? *group : machine;
  limit.sharing_ranks = process_local_ranks();
  limit.bytes /= limit.sharing_ranks;
  return limit;
}

inline std::string mebibytes(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024.0))) + " MiB";
}

/// Throws InvalidArgument, naming `what`, the bytes it needs and the limit, unless `count`
/// elements of `element_bytes` each fit in `limit` (count <= 0 always fits). Computed in
/// double, so a count that would overflow a 64-bit byte size is refused too. `advice` ends the
/// message (what the user can change).
inline void check_host_fits(double count, double element_bytes, const HostMemoryLimit& limit,
                            const std::string& what, const std::string& advice) {
  const double bytes = count * element_bytes;
  if (bytes > static_cast<double>(limit.bytes)) {
    const std::string holder = limit.set_by_control_group
                                   ? "this process's control group (a container's memory limit) "
                                     "allows "
                                   : "this machine has ";
    const std::string share = limit.sharing_ranks > 1
                                  ? " for each of the " + std::to_string(limit.sharing_ranks) +
                                        " MPI ranks on this node, which share it"
                                  : std::string();
    throw InvalidArgument(what + " needs " + mebibytes(bytes) + " of memory but " + holder +
                          mebibytes(static_cast<double>(limit.bytes)) + share + "; " + advice);
  }
}

}  // namespace coreset::support
