// Host memory, checked before a large allocation: a job that cannot fit should say so, with the
// sizes, before it spends minutes on the stages that precede the allocation or is killed by the
// operating system half-way through writing its outputs.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <limits>
#include <string>

#include "coreset/error.hpp"

namespace coreset::support {

/// Bytes of physical memory, or the largest int64 when the system does not say.
inline std::int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return static_cast<std::int64_t>(pages) * page_size;
}

inline std::string mebibytes(double bytes) {
  return std::to_string(static_cast<long long>(bytes / (1024.0 * 1024.0))) + " MiB";
}

/// Throws InvalidArgument, naming `what`, the bytes it needs and the limit, unless `count`
/// elements of `element_bytes` each fit in `limit` bytes (count <= 0 always fits). Computed in
/// double, so a count that would overflow a 64-bit byte size is refused too. `advice` ends the
/// message (what the user can change).
inline void check_host_fits(double count, double element_bytes, std::int64_t limit,
                            const std::string& what, const std::string& advice) {
  const double bytes = count * element_bytes;
  if (bytes > static_cast<double>(limit)) {
    throw InvalidArgument(what + " needs " + mebibytes(bytes) + " of memory but this machine has " +
                          mebibytes(static_cast<double>(limit)) + "; " + advice);
  }
}

}  // namespace coreset::support
