// list_devices for a build without CUDA support.
#include <string>
#include <vector>

#include "coreset/version.hpp"

namespace coreset {

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  if (why_none != nullptr) {
    *why_none = "built without CUDA support";
  }
  return {};
}

}  // namespace coreset
