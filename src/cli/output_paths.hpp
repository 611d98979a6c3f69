// Output destinations are checked before any expensive work, so a run that could never save
// its result fails in a second, not after the solve.
#pragma once

#include <string>

namespace coreset::cli {

/// Throws OutputError when `path` (if not empty) is a folder or its folder does not exist.
/// `option` names the command-line option in the message.
void check_writable_destination(const std::string& path, const char* option);

}  // namespace coreset::cli
