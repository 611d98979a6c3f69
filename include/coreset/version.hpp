// Version and build description of the library a program is linked against.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace coreset {

/// "MAJOR.MINOR.PATCH" of the linked libcoreset.
const char* version() noexcept;

/// Build facts: compiler, build type, OpenMP, whether CUDA support is compiled in.
struct BuildInfo {
  std::string version;
  std::string compiler;
  std::string build_type;
  bool openmp = false;
  int threads = 1;  ///< CPU threads the solvers use by default (every core)
  bool cuda = false;
  std::string cuda_runtime_version;  ///< "13.0" etc., empty without CUDA
};
BuildInfo build_info();

/// A GPU visible to the CUDA runtime.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

/// The usable GPUs; empty without CUDA support, without a driver, or without a device.
/// `why_none` (optional) receives the reason when the list is empty.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

}  // namespace coreset
