#include "support/cgroup_limits.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "support/kernel_files.hpp"

namespace coreset::support {

namespace {

namespace fs = std::filesystem;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string_view::npos;
       at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

bool lists(std::string_view comma_separated, std::string_view item) {
  const std::vector<std::string_view> items = split(comma_separated, ',');
  return std::find(items.begin(), items.end(), item) != items.end();
}

// mountinfo writes a space, tab, newline or backslash in a path as a backslash and three octal
// digits.
std::string unescape_octal(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const bool escape =
        field[i] == '\\' && i + 3 < field.size() &&
        field.substr(i + 1, 3).find_first_not_of("01234567") == std::string_view::npos;
    if (escape) {
      out.push_back(static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                                      (field[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(field[i]);
    }
  }
  return out;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// quota / period, when both are positive; nothing for "no limit" or anything unreadable.
std::optional<double> ratio(std::optional<std::int64_t> quota, std::optional<std::int64_t> period) {
  if (!quota || !period || *quota <= 0 || *period <= 0) {
    return std::nullopt;
  }
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

// The CPU limit one group sets by itself.
std::optional<double> cpu_limit_of_group(const fs::path& group, bool v1) {
  if (v1) {
    return ratio(parse_integer(first_line(group / "cpu.cfs_quota_us")),
                 parse_integer(first_line(group / "cpu.cfs_period_us")));
  }
  const std::string line = first_line(group / "cpu.max");
  const std::vector<std::string_view> fields = split(line, ' ');
  if (fields.size() != 2 || fields[0] == "max") {
    return std::nullopt;
  }
  return ratio(parse_integer(fields[0]), parse_integer(fields[1]));
}

// v1 writes "no limit" as the largest page-aligned count its counters hold, just under 2^63
// (9223372036854771712 with 4 KiB pages); no machine has 2^62 bytes.
constexpr std::int64_t kV1NoMemoryLimit = std::int64_t{1} << 62;

// The memory limit one group sets by itself.
std::optional<std::int64_t> memory_limit_of_group(const fs::path& group, bool v1) {
  const std::string line = first_line(group / (v1 ? "memory.limit_in_bytes" : "memory.max"));
  const std::optional<std::int64_t> bytes = parse_integer(line);  // v2's "max" is no number
  if (!bytes || *bytes <= 0 || (v1 && *bytes >= kV1NoMemoryLimit)) {
    return std::nullopt;
  }
  return bytes;
}

// The process's group in the hierarchy of `controller`: the v1 hierarchy that lists it, or else
// the v2 one ("0::path"). `v1` says which.
struct Group {
  bool v1 = false;
  std::string path;
};

std::optional<Group> group_of_process(const fs::path& root, std::string_view controller) {
  std::optional<Group> v1;
  std::optional<Group> v2;
  for (const std::string& line : lines_of(root / "proc/self/cgroup")) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) {
      continue;
    }
    const std::string_view id = std::string_view(line).substr(0, first);
    const std::string_view controllers =
        std::string_view(line).substr(first + 1, second - first - 1);
    if (id == "0" && controllers.empty()) {
      v2 = Group{false, line.substr(second + 1)};
    } else if (lists(controllers, controller)) {
      v1 = Group{true, line.substr(second + 1)};
    }
  }
  return v1 ? v1 : v2;
}

// One line of /proc/self/mountinfo, the fields used here.
struct MountEntry {
  std::string root_group;  // the group (or folder) mounted: the fourth field
  std::string point;       // where: the fifth
  std::string type;        // the file system type, after " - "
  std::string options;     // its super options
};

std::vector<MountEntry> mount_entries(const fs::path& root) {
  std::vector<MountEntry> entries;
  for (const std::string& line : lines_of(root / "proc/self/mountinfo")) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) {
      continue;
    }
    const std::vector<std::string_view> before = split(std::string_view(line).substr(0, dash), ' ');
    const std::vector<std::string_view> after = split(std::string_view(line).substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) {
      continue;
    }
    entries.push_back({unescape_octal(before[3]), unescape_octal(before[4]), std::string(after[0]),
                       std::string(after[2])});
  }
  return entries;
}

// Whether `path` is `ancestor` or lies below it, component by component ("/docker/ab" does not
// hold "/docker/abc").
bool holds(const std::string& ancestor, const std::string& path) {
  if (ancestor == "/") {
    return true;
  }
  return path.compare(0, ancestor.size(), ancestor) == 0 &&
         (path.size() == ancestor.size() || path[ancestor.size()] == '/');
}

// Where the hierarchy holding `group` is mounted (below `root`), and the group at the mount's
// root: a cgroup mount with `controller` among its options (v1) or a cgroup2 mount, whose root
// is the group or one of its parents, and which no later mount covers (a later mount at the
// same point or above it hides it: the host's /sys/fs/cgroup mounted into a container over the
// runtime's own). The last such mount is taken. Nothing when none is mounted.
struct Mount {
  fs::path point;
  std::string root_group;
};

std::optional<Mount> find_mount(const fs::path& root, std::string_view controller,
                                const Group& group) {
  const std::vector<MountEntry> entries = mount_entries(root);
  for (std::size_t i = entries.size(); i-- > 0;) {
    const MountEntry& entry = entries[i];
    const bool matches = group.v1 ? entry.type == "cgroup" && lists(entry.options, controller)
                                  : entry.type == "cgroup2";
    if (!matches || !holds(entry.root_group, group.path)) {
      continue;
    }
    const bool covered =
        std::any_of(entries.begin() + static_cast<std::ptrdiff_t>(i) + 1, entries.end(),
                    [&](const MountEntry& later) { return holds(later.point, entry.point); });
    if (!covered) {
      return Mount{root / fs::path(entry.point).relative_path(), entry.root_group};
    }
  }
  return std::nullopt;
}

// The folders of the process's group and of its parents up to the mount's root group, lowest
// first, in the hierarchy of `controller`; `v1` says which version's files they hold. Nothing
// when the group cannot be found or lies outside the namespace's view ("/.." paths).
struct GroupFolders {
  bool v1 = false;
  std::vector<fs::path> folders;
};

std::optional<GroupFolders> group_folders(const fs::path& root, std::string_view controller) {
  const std::optional<Group> group = group_of_process(root, controller);
  if (!group) {
    return std::nullopt;
  }
  const std::optional<Mount> mount = find_mount(root, controller, *group);
  if (!mount) {
    return std::nullopt;
  }
  const std::string relative =
      mount->root_group == "/" ? group->path : group->path.substr(mount->root_group.size());
  fs::path folder = mount->point;
  for (const fs::path& part : fs::path(relative).relative_path()) {
    if (part == "..") {
      return std::nullopt;  // a group outside the namespace's view: its limits cannot be read
    }
    folder /= part;
  }
  GroupFolders result{group->v1, {}};
  for (;;) {
    result.folders.push_back(folder);
    if (folder == mount->point || !folder.has_parent_path()) {
      return result;
    }
    folder = folder.parent_path();
  }
}

// The smallest of the limits that the groups from the process's up to the mount set.
template <class Limit, class ReadLimit>
std::optional<Limit> smallest_limit(const fs::path& root, std::string_view controller,
                                    ReadLimit read_limit) {
  const std::optional<GroupFolders> groups = group_folders(root, controller);
  if (!groups) {
    return std::nullopt;
  }
  std::optional<Limit> smallest;
  for (const fs::path& folder : groups->folders) {
    if (const std::optional<Limit> limit = read_limit(folder, groups->v1)) {
      smallest = smallest ? std::min(*smallest, *limit) : *limit;
    }
  }
  return smallest;
}

// Reads a process's limit once, never throwing: an allocation failure while reading /proc
// leaves no limit known.
template <class Limit, class Read>
std::optional<Limit> read_once_quietly(Read read) noexcept {
  try {
    return read();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<double> cgroup_cpu_limit(const fs::path& root) {
  return smallest_limit<double>(root, "cpu", cpu_limit_of_group);
}

std::optional<std::int64_t> cgroup_memory_limit(const fs::path& root) {
  return smallest_limit<std::int64_t>(root, "memory", memory_limit_of_group);
}

std::optional<double> process_cpu_limit() noexcept {
  static const std::optional<double> limit =
      read_once_quietly<double>([] { return cgroup_cpu_limit("/"); });
  return limit;
}

std::optional<std::int64_t> process_memory_limit() noexcept {
  static const std::optional<std::int64_t> limit =
      read_once_quietly<std::int64_t>([] { return cgroup_memory_limit("/"); });
  return limit;
}

int local_ranks_from(const char* open_mpi_local_size, const char* mpich_local_ranks) noexcept {
  const char* text = open_mpi_local_size != nullptr ? open_mpi_local_size : mpich_local_ranks;
  if (text == nullptr || *text == '\0') {
    return 1;
  }
  long long ranks = 0;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || ranks > 1'000'000) {
      return 1;
    }
    ranks = 10 * ranks + (*c - '0');
  }
  return ranks >= 1 && ranks <= 1'000'000 ? static_cast<int>(ranks) : 1;
}

int process_local_ranks() noexcept {
  static const int ranks =
      local_ranks_from(std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"), std::getenv("MPI_LOCALNRANKS"));
  return ranks;
}

std::optional<double> process_cpu_share() noexcept {
  const std::optional<double> limit = process_cpu_limit();
  if (!limit) {
    return std::nullopt;
  }
  return *limit / process_local_ranks();
}

int threads_within_limit(int openmp_threads, std::optional<double> cpu_limit,
                         bool omp_num_threads_set) noexcept {
  const int offered = std::max(1, openmp_threads);
  if (omp_num_threads_set || !cpu_limit) {
    return offered;
  }
  const double whole_cpus = std::max(1.0, std::round(*cpu_limit));
  return whole_cpus >= offered ? offered : static_cast<int>(whole_cpus);
}

}  // namespace coreset::support
