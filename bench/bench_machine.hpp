// What every benchmark records beside its timings: the machine, the date, and how much of the
// machine other processes took during each measurement (on a 2-core VM one concurrent compile
// doubles a timing, and the load average reacts too slowly to tell which measurement it hit).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace coreset::bench {

using Clock = std::chrono::steady_clock;

/// Above this share of the machine's CPU time taken by other processes, a measurement is
/// marked as disturbed.
inline constexpr double kDisturbedShare = 0.05;

/// The value after "key:" on the first line of `path` that starts with `key` ("" if none).
inline std::string read_first_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) {
        continue;
      }
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? std::string() : line.substr(start);
    }
  }
  return {};
}

/// MemTotal in bytes ("MemTotal:       24609184 kB"), -1 when unknown.
inline std::int64_t mem_total_bytes() {
  const std::string value = read_first_field("/proc/meminfo", "MemTotal");
  return value.empty() ? -1 : std::int64_t{1024} * std::atoll(value.c_str());
}

inline std::vector<double> load_average() {
  std::ifstream in("/proc/loadavg");
  std::vector<double> load(3, -1.0);
  for (double& value : load) {
    in >> value;
  }
  return load;
}

inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

/// Median of `values` (NaN when empty).
inline double median(std::vector<double> values) {
  if (values.empty()) {
    return std::nan("");
  }
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

/// CPU time spent machine-wide and by this process at one instant.
struct CpuSample {
  double busy_seconds = 0.0;   // every CPU, user + system + irq, this process included
  double steal_seconds = 0.0;  // taken by the hypervisor
  double self_seconds = 0.0;   // this process, all threads
  Clock::time_point wall;
};

inline CpuSample sample_cpu() {
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  CpuSample sample;
  sample.wall = Clock::now();
  std::ifstream stat("/proc/stat");
  std::string label;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  sample.busy_seconds = static_cast<double>(user + nice + system + irq + softirq) / tick;
  sample.steal_seconds = static_cast<double>(steal) / tick;
  // /proc/self/stat: utime and stime are fields 14 and 15; the command name (field 2) may hold
  // spaces, so count from the ')' that closes it.
  std::ifstream self("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  long long utime = 0;
  long long stime = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) {
      utime = std::atoll(field.c_str());
    } else if (index == 15) {
      stime = std::atoll(field.c_str());
    }
  }
  sample.self_seconds = static_cast<double>(utime + stime) / tick;
  return sample;
}

struct Interference {
  double wall_seconds = 0.0;
  double foreign_cpu_seconds = 0.0;  // CPU time of other processes
  double steal_seconds = 0.0;
  double foreign_share = 0.0;  // foreign CPU time / (wall time x logical CPUs); NaN: too short
};

/// What other processes took between two samples.
inline Interference interference(const CpuSample& before, const CpuSample& after) {
  Interference result;
  result.wall_seconds = std::chrono::duration<double>(after.wall - before.wall).count();
  result.foreign_cpu_seconds = std::max(
      0.0, (after.busy_seconds - before.busy_seconds) - (after.self_seconds - before.self_seconds));
  result.steal_seconds = after.steal_seconds - before.steal_seconds;
  const double capacity = result.wall_seconds * std::max(1u, std::thread::hardware_concurrency());
  // /proc/stat counts in clock ticks (10 ms): over less CPU time than 40 ticks the share's
  // rounding error alone exceeds the 5% mark, so it is reported as unknown (NaN, null in JSON).
  const double resolution = 40.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  result.foreign_share =
      capacity >= resolution ? result.foreign_cpu_seconds / capacity : std::nan("");
  return result;
}

inline bool disturbed(const Interference& i) {
  return i.foreign_share > kDisturbedShare;
}

inline std::string format_share(double share) {
  if (std::isnan(share)) {
    return "n/a";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * share);
  return text;
}

inline nlohmann::json to_json(const Interference& i) {
  return {{"wall_seconds", i.wall_seconds},
          {"foreign_cpu_seconds", i.foreign_cpu_seconds},
          {"steal_seconds", i.steal_seconds},
          {"foreign_share", i.foreign_share},
          {"disturbed", disturbed(i)}};
}

/// The first line of `path` ("" when unreadable).
inline std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// The machine a benchmark ran on, as recorded in every results JSON.
inline nlohmann::json machine_json(int threads_used) {
  return {{"cpu_model", read_first_field("/proc/cpuinfo", "model name")},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"threads_used", threads_used},
          {"l3_cache", read_line("/sys/devices/system/cpu/cpu0/cache/index3/size")},
          {"mem_total_bytes", mem_total_bytes()},
          {"transparent_hugepage", read_line("/sys/kernel/mm/transparent_hugepage/enabled")},
          {"transparent_hugepage_defrag", read_line("/sys/kernel/mm/transparent_hugepage/defrag")},
          // The library's huge-page advice follows this when it is 1, on, yes or 0, off, no
          // (support/huge_pages.hpp; "" when unset). The benches that link the internals also
          // record the setting in force (huge_pages_record).
          {"coreset_huge_pages",
           std::getenv("CORESET_HUGE_PAGES") != nullptr ? std::getenv("CORESET_HUGE_PAGES") : ""},
          {"load_average_at_start", load_average()}};
}

/// --sizes given as doubles (so "1e6" works) as positive integers; prints why and returns
/// nothing when one is not a positive integer or none is given.
inline std::optional<std::vector<std::int64_t>> parse_sizes(const char* program,
                                                            const std::vector<double>& given) {
  std::vector<std::int64_t> sizes;
  for (const double size : given) {
    const double rounded = std::round(size);
    if (!(rounded >= 1.0) || rounded != size || rounded > 1e12) {
      std::fprintf(stderr, "%s: bad size %g (want a positive integer)\n", program, size);
      return std::nullopt;
    }
    sizes.push_back(static_cast<std::int64_t>(rounded));
  }
  if (sizes.empty()) {
    std::fprintf(stderr, "%s: --sizes is empty\n", program);
    return std::nullopt;
  }
  return sizes;
}

}  // namespace coreset::bench
