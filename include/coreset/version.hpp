// Version and build description of the library a program is linked against (which may differ from
// the headers it was compiled with: compare version() with what you expect at start-up).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coreset/export.hpp"

namespace coreset {

/// "MAJOR.MINOR.PATCH" of the linked libcoreset, e.g. "0.2.0": a static string, never null.
/// Never throws; thread-safe.
CORESET_API const char* version() noexcept;

/// Build facts of the linked library, as `coreset info` prints them.
struct CORESET_API BuildInfo {
  std::string version;     ///< as version()
  std::string compiler;    ///< "gcc 12.2.0", "clang ...", or "unknown"
  std::string build_type;  ///< CMAKE_BUILD_TYPE: "Release", "Debug", ...
  bool openmp = false;     ///< whether the CPU passes are parallel (OpenMP compiled in)
  /// CPU threads the library uses when SolverOptions::threads is 0: OpenMP's maximum
  /// (omp_get_max_threads(), so OMP_NUM_THREADS sets it) at the time of the call, capped at
  /// this process's share of cpu_limit (over local_ranks) rounded to the nearest whole CPU (at
  /// least 1) unless OMP_NUM_THREADS is set; 1 without OpenMP.
  int threads = 1;
  /// The CPUs' worth of time that the process's control group allows it (`docker run --cpus`,
  /// Kubernetes' CPU limits, systemd's CPUQuota=), read once per process; 0 when none is set or
  /// it cannot be read.
  double cpu_limit = 0.0;
  /// The bytes of memory that the process's control group allows it (`docker run --memory`,
  /// systemd's MemoryMax=), read once per process; 0 when none is set or it cannot be read. The
  /// checks before Phi and the samples are allocated use it where it is below the machine's.
  std::int64_t memory_limit_bytes = 0;
  /// The ranks of this process's MPI job on its node, which share cpu_limit, memory_limit_bytes
  /// and the machine's memory equally, as the launcher says (Open MPI's
  /// OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS); 1 without one.
  int local_ranks = 1;
  /// The instruction set of the CPU projection's link and centring kernels on this machine:
  /// "avx512", "avx2" or "baseline" (chosen at start-up; the environment variable CORESET_ISA
  /// can lower it). The CPU backend's results depend on it (README, "Reproducibility").
  std::string cpu_kernels;
  bool cuda = false;                 ///< CUDA support compiled in (list_devices works)
  std::string cuda_runtime_version;  ///< "13.0" etc., empty without CUDA
};
/// Fills a BuildInfo. Throws only std::bad_alloc; thread-safe.
CORESET_API BuildInfo build_info();

/// A GPU visible to the CUDA runtime.
struct CORESET_API DeviceInfo {
  int ordinal = 0;                     ///< the CUDA device number, 0-based
  std::string name;                    ///< as the driver reports it, e.g. "NVIDIA H200"
  std::size_t total_memory_bytes = 0;  ///< global memory, in bytes
  int compute_major = 0;               ///< compute capability, major
  int compute_minor = 0;               ///< compute capability, minor
};

/// The usable GPUs, in CUDA ordinal order; empty without CUDA support, without a driver, or
/// without a device. `why_none` (optional, may be null) receives the reason when the list is
/// empty and is left untouched otherwise. A missing or too old driver is not an error: the list
/// is empty and `why_none` says why. Throws only std::bad_alloc. Thread-safe (the CUDA runtime
/// calls it makes are); the first call may take a second or more while the CUDA runtime starts.
CORESET_API std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

}  // namespace coreset
