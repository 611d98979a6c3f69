// Options given as enums from C++ can hold any integer (Algorithm(99)); the library's names
// table (to_string, "unknown" off the table) is the one list of the values each takes.
#pragma once

#include <string>

#include "coreset/error.hpp"

namespace coreset::support {

/// InvalidArgument naming `what` unless `value` is one of its enum's values.
template <class Enum>
void check_enum_value(Enum value, const char* what) {
  if (to_string(value) == "unknown") {
    throw InvalidArgument(std::string(what) + ": " +
                          std::to_string(static_cast<long long>(value)) +  // NOLINT(runtime/int)
                          " is not one of its values");
  }
}

}  // namespace coreset::support
