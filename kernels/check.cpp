#include "kernels/check.hpp"

#include <string>

namespace coreset::kernels {

void throw_call_error(const char* call, const std::string& reason, const char* file, int line) {
  throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                    " failed: " + reason);
}

}  // namespace coreset::kernels
