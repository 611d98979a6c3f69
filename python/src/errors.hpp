// The library's exceptions as Python exceptions: each coreset::Error becomes the class of the same
// role in coreset.errors (which also derives from the matching built-in: InvalidArgumentError is a
// ValueError, DeviceError a RuntimeError, ...), with the library's message.
#pragma once

#include <string>

namespace coreset::python {

/// Registers the translator with pybind11; called once at import.
void register_error_translation();

/// Raises coreset.errors.<name>(message) from C++ (for errors the library reports by value, not
/// by exception: an unreachable k target).
[[noreturn]] void raise_error(const char* name, const std::string& message);

}  // namespace coreset::python
