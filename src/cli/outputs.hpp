// All of a command's output files, or none of them. Each file is first written in full to a
// staging file beside its target (through the library's own atomic writers); only when every one
// is staged are they renamed into place, one after the other, with a second Ctrl-C deferred. A
// failure or an interrupt before that point leaves no new file and no temporary file; a failure
// of a later rename (only possible if the folder changes under the run) removes the outputs this
// run already renamed and puts back the files they replaced, so a coreset never appears without
// the report asked for with it. A symbolic link is written through (the file it names is
// replaced, the link stays); a device or a FIFO (/dev/null) is written into, after the renames,
// and never replaced.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace coreset::cli {

class Outputs {
 public:
  /// `write(staging_path)` must write the whole file at staging_path (e.g. io::write_file_atomic)
  /// and throw on failure. An empty `path` is ignored (the option was not given).
  void add(const std::string& path, std::function<void(const std::string&)> write);
  /// Stages every file, then renames them into place. Throws Cancelled (a signal arrived before
  /// the renames; nothing is written) or OutputError.
  void commit();

 private:
  struct Entry {
    std::string path;
    std::function<void(const std::string&)> write;
  };
  std::vector<Entry> entries_;
};

}  // namespace coreset::cli
