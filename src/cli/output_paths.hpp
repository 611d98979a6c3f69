// Output destinations are checked before any expensive work, so a run that could never save
// its result fails in a second, not after the solve.
#pragma once

#include <string>

namespace coreset::cli {

/// Throws OutputError when `path` (if not empty) is a folder or its folder does not exist.
/// `option` names the command-line option in the message.
void check_writable_destination(const std::string& path, const char* option);

/// For an output folder (experiment, sweep): throws OutputError, naming `option`, when the
/// folder could never be created or written (its nearest existing ancestor is not a writable
/// folder). Called before any expensive work.
void check_output_folder(const std::string& folder, const char* option);

/// Creates the folder and its parents (OutputError naming `option` on failure).
void create_output_folder(const std::string& folder, const char* option);

}  // namespace coreset::cli
