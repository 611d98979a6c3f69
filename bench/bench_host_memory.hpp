// Where a large host allocation's pages come from, for the benchmarks whose set-up time moves
// between runs on like hosts: the N = 1e8 GPU build's model set-up (16.8 GB of design, first
// touched there) took 1.00 s on an H200 host at 373e1ae and 2.48 s on another at 816332d, with
// the same THP settings. Faulting fresh memory in 2 MiB pages or in 4 KiB ones is the likely
// difference, and these records tell which it was:
//  - system_memory_record(): the system's free and available memory, its anonymous memory in
//    huge pages, and how much of the free memory lies in free blocks of a huge page or more
//    (/proc/buddyinfo: the kernel can back a huge page at first touch only from such a block,
//    unless it compacts memory first);
//  - process_memory_record(): this process's resident memory and the part of it in anonymous
//    huge pages (/proc/self/smaps_rollup), taken while the large arrays are alive.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "bench_machine.hpp"

namespace coreset::bench {

/// "12345 kB" as bytes; -1 when empty.
inline std::int64_t kilobytes_field(const std::string& value) {
  return value.empty() ? -1 : std::int64_t{1024} * std::atoll(value.c_str());
}

/// The bytes of the free blocks of at least `least_bytes` in a /proc/buddyinfo text: each line
/// is "Node N, zone NAME c0 c1 ... c10", c_o free blocks of 2^o pages of `page_bytes`.
inline std::int64_t free_bytes_in_blocks_of_at_least(std::istream& buddyinfo,
                                                     std::int64_t page_bytes,
                                                     std::int64_t least_bytes) {
  std::int64_t total = 0;
  std::string line;
  while (std::getline(buddyinfo, line)) {
    const auto zone = line.find("zone");
    if (zone == std::string::npos) {
      continue;
    }
    std::istringstream fields(line.substr(zone + 4));
    std::string name;
    fields >> name;
    std::int64_t count = 0;
    std::int64_t block_bytes = page_bytes;
    while (fields >> count) {
      if (block_bytes >= least_bytes) {
        total += count * block_bytes;
      }
      block_bytes *= 2;
    }
  }
  return total;
}

inline nlohmann::json system_memory_record() {
  constexpr std::int64_t kHugePage = std::int64_t{2} << 20;
  std::ifstream buddyinfo("/proc/buddyinfo");
  const std::int64_t page = sysconf(_SC_PAGESIZE);
  return {
      {"mem_free_bytes", kilobytes_field(read_first_field("/proc/meminfo", "MemFree"))},
      {"mem_available_bytes", kilobytes_field(read_first_field("/proc/meminfo", "MemAvailable"))},
      {"anon_huge_pages_bytes",
       kilobytes_field(read_first_field("/proc/meminfo", "AnonHugePages"))},
      {"free_in_blocks_of_a_huge_page_or_more_bytes",
       buddyinfo ? free_bytes_in_blocks_of_at_least(buddyinfo, page, kHugePage) : -1},
  };
}

inline nlohmann::json process_memory_record() {
  return {
      {"rss_bytes", kilobytes_field(read_first_field("/proc/self/smaps_rollup", "Rss"))},
      {"anon_huge_pages_bytes",
       kilobytes_field(read_first_field("/proc/self/smaps_rollup", "AnonHugePages"))},
  };
}

}  // namespace coreset::bench
