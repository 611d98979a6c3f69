// An environment variable's on/off value, as the library's switches read them
// (CORESET_HUGE_PAGES, CORESET_GPU_WARM_UP).
#pragma once

#include <cstring>
#include <optional>

namespace coreset::support {

/// 1, on, yes: true; 0, off, no: false; unset (nullptr) or anything else: nothing.
inline std::optional<bool> parse_switch_value(const char* value) noexcept {
  if (value == nullptr) {
    return std::nullopt;
  }
  for (const char* off : {"0", "off", "no"}) {
    if (std::strcmp(value, off) == 0) {
      return false;
    }
  }
  for (const char* on : {"1", "on", "yes"}) {
    if (std::strcmp(value, on) == 0) {
      return true;
    }
  }
  return std::nullopt;
}

}  // namespace coreset::support
