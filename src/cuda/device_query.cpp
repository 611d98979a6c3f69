// GPU discovery through the CUDA runtime. On a machine without a driver every runtime call fails
// (cudaErrorInsufficientDriver); that is reported as "no devices", never as an error.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "coreset/version.hpp"

namespace coreset {

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  std::vector<DeviceInfo> devices;
  int count = 0;  // cudaGetDeviceCount leaves it untouched on failure
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why_none != nullptr) {
      *why_none = std::string("CUDA runtime: ") + cudaGetErrorString(status);
    }
    return devices;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) {
      continue;
    }
    DeviceInfo device;
    device.ordinal = ordinal;
    device.name = properties.name;
    device.total_memory_bytes = properties.totalGlobalMem;
    device.compute_major = properties.major;
    device.compute_minor = properties.minor;
    devices.push_back(device);
  }
  if (devices.empty() && why_none != nullptr) {
    *why_none = "the CUDA runtime found no device";
  }
  return devices;
}

}  // namespace coreset
