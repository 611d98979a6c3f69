// Output destinations are checked before any expensive work, so a run that could never save
// its result fails in a second, not after the solve.
#pragma once

#include <string>
#include <vector>

namespace coreset::cli {

/// Throws OutputError when `path` (if not empty) could never be written: a folder, a folder that
/// does not exist or is not writable, or a device that is not writable. `option` names the
/// command-line option in the message.
void check_writable_destination(const std::string& path, const char* option);

/// A file named on the command line: the option and its value (empty: not given).
struct FileArgument {
  const char* option;
  std::string path;
};

/// Throws InvalidArgument when two of `outputs`, or an output and one of `inputs`, are the same
/// file (the same path, or one file through links): the later rename would overwrite the other
/// output, or the input the run read. Outputs written into (devices, FIFOs) may repeat.
void check_distinct_files(const std::vector<FileArgument>& outputs,
                          const std::vector<FileArgument>& inputs);

/// For an output folder (experiment, sweep): throws OutputError, naming `option`, when the
/// folder could never be created or written (its nearest existing ancestor is not a writable
/// folder), or when one of the `files` the run will write there (names inside it) is already a
/// folder. Called before any expensive work.
void check_output_folder(const std::string& folder, const char* option,
                         const std::vector<std::string>& files = {});

/// Creates the folder and its parents (OutputError naming `option` on failure).
void create_output_folder(const std::string& folder, const char* option);

}  // namespace coreset::cli
