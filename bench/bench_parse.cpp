// bench_parse: reading a large dataset CSV with io::read_dataset_csv, against the floor of
// scanning the same bytes for newlines, measured in one run on one file.
//
// The reader makes two passes over the file, a 4 MiB chunk at a time: one counts the lines (a
// memchr scan), one parses them with std::from_chars. Neither can be faster than reading the
// bytes once from the page cache and finding the newlines, so that is the floor: the same file,
// read with read(2) in the same chunk size, every newline found with memchr. The file is read
// once, untimed, before anything is timed, so every timed read comes from the page cache (the
// benchmark measures parsing, not the disk). The ratio (reader / floor) says how far parsing is
// from the cost of merely touching the text.
//
// The file is generated here: a header x1..xD,y and N rows of D covariates and a 0/1 label,
// the covariates shortest round-trip doubles of a seeded N(0, 1) (about 19 characters each), so
// the cells look like the papers' files. It is written under --dir and deleted at the end.
//
// Peak memory (ru_maxrss) is reported before and after the reads: the reader should add the
// numbers (N x (D + 1) doubles) and one chunk, not a copy of the text.
//
// A second reference, taken after the memory figures: std::from_chars alone over the whole text
// held in memory (every cell, no I/O, no checks), i.e. the cost of the number conversions the
// reader cannot avoid. reader / from_chars says what the reader adds to them.
//
// The reader parses on every thread. Both the reader and the from_chars reference are measured
// on 1 thread and on each count of --threads (a list; default: every core), one file for all;
// the reference on T threads runs T from_chars loops over T shares of the text cut at line
// ends. MB/s per thread and the ratio at the same thread count say how well the reader scales
// against the conversions alone. The largest count is "all" in the summary and the JSON.
//
// Each reader run is also split by phase (io/read_phases.hpp: the first pass's line count, the
// reads of each block, the count of its lines, the parse and store; and the bench's own timing
// of the dataset's release, within the run), the mean over the repeats, so that a thread count
// where the reader stops scaling says which part stopped. On the H200 host at 4a3fc22 the rest
// outside those phases grew from 0.011 s at one thread to 0.052 s at 16.
#include <fcntl.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_machine.hpp"
#include "coreset/dataset.hpp"
#include "coreset/io.hpp"
#include "coreset/version.hpp"
#include "io/read_phases.hpp"

#ifndef CORESET_BENCH_CXX_FLAGS
#define CORESET_BENCH_CXX_FLAGS "unknown"
#endif

namespace {

using namespace coreset::bench;  // machine description, interference, median (bench_machine.hpp)
using coreset::index_t;

constexpr std::size_t kChunk = std::size_t{4} << 20;  // as LineReader::kDefaultChunkBytes

struct Config {
  double megabytes = 512;  // 1 MB = 1e6 bytes
  int columns = 10;        // D covariates
  int repeats = 3;
  std::uint64_t seed = 1;
  std::string dir = "/tmp";
  std::string json_path;
  std::string commit = "unknown";
  std::vector<int> threads = {0};  // the parallel measurements' thread counts; 0: every core
};

// Writes the CSV; returns its size in bytes and sets `rows`.
std::int64_t write_csv(const std::string& path, const Config& config, index_t& rows) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::string header;
  for (int j = 1; j <= config.columns; ++j) {
    header += "x" + std::to_string(j) + ",";
  }
  header += "y\n";
  std::fwrite(header.data(), 1, header.size(), file);
  std::mt19937_64 random(config.seed);
  std::normal_distribution<double> normal;
  const auto target = static_cast<std::int64_t>(config.megabytes * 1e6);
  std::int64_t bytes = static_cast<std::int64_t>(header.size());
  std::string block;
  char cell[32];
  rows = 0;
  while (bytes < target) {
    block.clear();
    for (int r = 0; r < 1024 && bytes + static_cast<std::int64_t>(block.size()) < target; ++r) {
      for (int j = 0; j < config.columns; ++j) {
        char* end = std::to_chars(cell, cell + sizeof cell, normal(random)).ptr;
        *end++ = ',';
        block.append(cell, end);
      }
      block += (random() & 1) ? "1\n" : "0\n";
      ++rows;
    }
    std::fwrite(block.data(), 1, block.size(), file);
    bytes += static_cast<std::int64_t>(block.size());
  }
  if (std::fclose(file) != 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  return bytes;
}

// The floor: read the file in kChunk pieces and find every newline. Returns the count.
std::int64_t scan_newlines(const std::string& path, std::vector<char>& buffer) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  std::int64_t count = 0;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got <= 0) {
      break;
    }
    const char* p = buffer.data();
    const char* const end = p + got;
    while (const void* hit = std::memchr(p, '\n', static_cast<std::size_t>(end - p))) {
      ++count;
      p = static_cast<const char*>(hit) + 1;
    }
  }
  ::close(fd);
  return count;
}

// std::from_chars over every cell of `text` (past its header line) on `threads` threads, each
// over one share cut at a line end; returns the sum of the values (so nothing is optimised out).
double convert_all(std::string_view text, int threads) {
  const std::size_t body = text.find('\n') + 1;
  std::vector<std::size_t> cuts(static_cast<std::size_t>(threads) + 1, text.size());
  cuts[0] = body;
  for (int t = 1; t < threads; ++t) {
    const std::size_t target = body + (text.size() - body) / static_cast<std::size_t>(threads) *
                                          static_cast<std::size_t>(t);
    const std::size_t newline = text.find('\n', std::max(target, cuts[t - 1]));
    cuts[static_cast<std::size_t>(t)] =
        newline == std::string_view::npos ? text.size() : newline + 1;
  }
  double total = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : total) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const char* p = text.data() + cuts[static_cast<std::size_t>(t)];
    const char* const end = text.data() + cuts[static_cast<std::size_t>(t) + 1];
    double sum = 0;
    while (p < end) {
      double value = 0;
      p = std::from_chars(p, end, value).ptr + 1;  // every cell ends in ',' or '\n'
      sum += value;
    }
    total += sum;
  }
  return total;
}

double max_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kB on Linux
}

struct Timing {
  double seconds = 0;
  Interference interference;
};

template <class Action>
Timing timed(Action&& action) {
  const CpuSample before = sample_cpu();
  const auto start = Clock::now();
  action();
  Timing t;
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  t.interference = interference(before, sample_cpu());
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app(
      "bench_parse: dataset CSV reading speed, on 1 thread and on all, against a newline scan of "
      "the same file and std::from_chars alone");
  app.add_option("--megabytes", config.megabytes, "size of the generated CSV (1 MB = 1e6 bytes)")
      ->check(CLI::PositiveNumber);
  app.add_option("--columns", config.columns, "covariates per row")->check(CLI::PositiveNumber);
  app.add_option("--repeats", config.repeats, "timed repeats of each measurement")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", config.seed, "seed of the generated values");
  app.add_option("--dir", config.dir, "folder for the generated file (deleted at the end)");
  app.add_option("--json", config.json_path, "write the results as JSON to this file");
  app.add_option("--commit", config.commit, "git commit being measured (recorded in the JSON)");
  app.add_option("--threads", config.threads,
                 "threads of the parallel measurements, a comma-separated list (0: every core); "
                 "1 thread is always measured")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  const std::string path =
      (std::filesystem::path(config.dir) / ("bench_parse_" + std::to_string(::getpid()) + ".csv"))
          .string();
  index_t rows = 0;
  const std::int64_t bytes = write_csv(path, config, rows);
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("file: %s, %.1f MB, %lld rows x %d covariates + label\n", path.c_str(), mb,
              static_cast<long long>(rows), config.columns);

  std::vector<char> buffer(kChunk);
  const std::int64_t newlines = scan_newlines(path, buffer);  // warm the page cache, untimed
  if (newlines != rows + 1) {
    std::fprintf(stderr, "expected %lld newlines, found %lld\n", static_cast<long long>(rows + 1),
                 static_cast<long long>(newlines));
    return 1;
  }
  const double rss_before = max_rss_mib();

  // 1, then every count asked for (0: every core), in increasing order, each once.
  std::vector<int> thread_counts = {1};
  for (const int asked : config.threads) {
    thread_counts.push_back(asked > 0 ? asked : std::max(1, omp_get_max_threads()));
  }
  std::sort(thread_counts.begin(), thread_counts.end());
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());
  const int all_threads = thread_counts.back();
  // Each measurement's repeats, by thread count.
  std::map<int, std::vector<Timing>> parse_by_threads;
  using coreset::io::detail::ReadPhaseTotals;
  std::map<int, std::vector<ReadPhaseTotals>> phases_by_threads;  // each run's, by thread count
  std::map<int, std::vector<double>> releases_by_threads;  // each run's dataset release, seconds
  std::map<int, std::vector<Timing>> conversions_by_threads;
  std::vector<Timing> floor;
  for (int r = 0; r < config.repeats; ++r) {
    floor.push_back(timed([&] { scan_newlines(path, buffer); }));
    for (const int threads : thread_counts) {
      const ReadPhaseTotals before = coreset::io::detail::read_phase_totals();
      double release_seconds = 0.0;
      parse_by_threads[threads].push_back(timed([&] {
        std::optional<coreset::Dataset> data =
            coreset::io::read_dataset_csv(path, "", true, 0, threads);
        if (data->rows() != rows || data->dims() != config.columns) {
          std::fprintf(stderr, "read %lld x %lld, expected %lld x %d\n",
                       static_cast<long long>(data->rows()), static_cast<long long>(data->dims()),
                       static_cast<long long>(rows), config.columns);
          std::exit(1);
        }
        // Freeing the dataset, within the run's time as before, but apart: pages first touched
        // by many threads may cost the release more (each thread's core's TLB to flush).
        const auto release_start = Clock::now();
        data.reset();
        release_seconds = std::chrono::duration<double>(Clock::now() - release_start).count();
      }));
      const ReadPhaseTotals after = coreset::io::detail::read_phase_totals();
      phases_by_threads[threads].push_back(
          {after.line_count_ns - before.line_count_ns, after.reading_ns - before.reading_ns,
           after.counting_ns - before.counting_ns, after.parsing_ns - before.parsing_ns,
           after.blocks - before.blocks});
      releases_by_threads[threads].push_back(release_seconds);
    }
  }
  const double rss_after = max_rss_mib();

  // The conversions alone, over the text in memory.
  std::string text(static_cast<std::size_t>(bytes), '\0');
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t got = ::read(fd, text.data() + done, text.size() - done);
      if (got <= 0) {
        break;
      }
      done += static_cast<std::size_t>(got);
    }
    ::close(fd);
  }
  std::filesystem::remove(path);
  double checksum = 0;
  for (int r = 0; r < config.repeats; ++r) {
    for (const int threads : thread_counts) {
      conversions_by_threads[threads].push_back(
          timed([&] { checksum = convert_all(text, threads); }));
    }
  }
  const std::vector<Timing>& parse = parse_by_threads[all_threads];
  const std::vector<Timing>& parse_one = parse_by_threads[1];
  const std::vector<Timing>& conversions = conversions_by_threads[all_threads];

  auto seconds = [](const std::vector<Timing>& timings) {
    std::vector<double> values;
    for (const Timing& t : timings) {
      values.push_back(t.seconds);
    }
    return median(values);
  };
  const double floor_seconds = seconds(floor);
  const double parse_seconds = seconds(parse);
  const double conversion_seconds = seconds(conversions);
  const double parse_one_seconds = seconds(parse_one);
  const double numbers_mib =
      static_cast<double>(rows) * (config.columns + 1) * sizeof(double) / (1024.0 * 1024.0);

  std::printf("%-28s %10s %10s  %s\n", "measurement", "seconds", "MB/s", "other CPU per repeat");
  auto row = [&](const char* name, const std::vector<Timing>& timings, double median_seconds) {
    std::string shares;
    for (const Timing& t : timings) {
      shares += format_share(t.interference.foreign_share) +
                (disturbed(t.interference) ? " DISTURBED " : " ");
    }
    std::printf("%-28s %10.3f %10.1f  %s\n", name, median_seconds, mb / median_seconds,
                shares.c_str());
  };
  const auto label = [](const char* what, int threads) {
    return std::string(what) + ", " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads");
  };
  row("floor: read + memchr '\\n'", floor, floor_seconds);
  for (const int threads : thread_counts) {
    row(label("read_dataset_csv", threads).c_str(), parse_by_threads[threads],
        seconds(parse_by_threads[threads]));
  }
  for (const int threads : thread_counts) {
    row(label("from_chars only", threads).c_str(), conversions_by_threads[threads],
        seconds(conversions_by_threads[threads]));
  }
  std::printf("ratio read_dataset_csv (%d threads) / floor: %.2f\n", all_threads,
              parse_seconds / floor_seconds);
  std::printf("%-10s %14s %20s %24s\n", "threads", "reader MB/s/thr", "from_chars MB/s/thr",
              "reader / from_chars");
  for (const int threads : thread_counts) {
    const double reader = seconds(parse_by_threads[threads]);
    const double reference = seconds(conversions_by_threads[threads]);
    std::printf("%-10d %14.1f %20.1f %24.2f   (reader speed-up over 1 thread: %.2f)\n", threads,
                mb / reader / threads, mb / reference / threads, reader / reference,
                parse_one_seconds / reader);
  }
  // The mean of each phase over a thread count's runs, in seconds, and the rest of the run.
  struct Phases {
    double line_count, reading, counting, parsing, release, other, blocks;
  };
  const auto mean_phases = [&](int threads) {
    Phases mean{};
    const std::vector<ReadPhaseTotals>& runs = phases_by_threads[threads];
    for (const ReadPhaseTotals& run : runs) {
      mean.line_count += 1e-9 * static_cast<double>(run.line_count_ns);
      mean.reading += 1e-9 * static_cast<double>(run.reading_ns);
      mean.counting += 1e-9 * static_cast<double>(run.counting_ns);
      mean.parsing += 1e-9 * static_cast<double>(run.parsing_ns);
      mean.blocks += static_cast<double>(run.blocks);
    }
    for (const double release_seconds : releases_by_threads[threads]) {
      mean.release += release_seconds;
    }
    double total = 0.0;
    for (const Timing& t : parse_by_threads[threads]) {
      total += t.seconds;
    }
    const double count = static_cast<double>(std::max<std::size_t>(runs.size(), 1));
    mean.line_count /= count;
    mean.reading /= count;
    mean.counting /= count;
    mean.parsing /= count;
    mean.blocks /= count;
    mean.release /= count;
    mean.other = total / count - mean.line_count - mean.reading - mean.counting - mean.parsing -
                 mean.release;
    return mean;
  };
  std::printf("the reader by phase, mean of the repeats in seconds (io/read_phases.hpp)\n");
  std::printf("%-10s %11s %9s %9s %9s %9s %9s %7s\n", "threads", "line count", "reading",
              "counting", "parsing", "release", "other", "blocks");
  for (const int threads : thread_counts) {
    const Phases p = mean_phases(threads);
    std::printf("%-10d %11.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.0f\n", threads, p.line_count,
                p.reading, p.counting, p.parsing, p.release, p.other, p.blocks);
  }
  std::printf("speed-up of the reader, %d threads over 1: %.2f (checksum %g)\n", all_threads,
              parse_one_seconds / parse_seconds, checksum);
  std::printf(
      "peak RSS: %.0f MiB before the reads, %.0f MiB after (the numbers: %.0f MiB; the "
      "text: %.0f MiB)\n",
      rss_before, rss_after, numbers_mib, static_cast<double>(bytes) / (1024.0 * 1024.0));

  if (!config.json_path.empty()) {
    auto timings_json = [](const std::vector<Timing>& timings) {
      nlohmann::json list = nlohmann::json::array();
      for (const Timing& t : timings) {
        list.push_back({{"seconds", t.seconds}, {"interference", to_json(t.interference)}});
      }
      return list;
    };
    nlohmann::json out;
    out["benchmark"] = "bench_parse";
    out["date"] = utc_now();
    out["commit"] = config.commit;
    out["version"] = coreset::version();
    out["cxx_flags"] = CORESET_BENCH_CXX_FLAGS;
    out["machine"] = machine_json(all_threads);
    out["file"] = {
        {"bytes", bytes}, {"rows", rows}, {"covariates", config.columns}, {"seed", config.seed}};
    out["floor"] = {{"what", "read(2) in 4 MiB chunks + memchr for every newline, page cache warm"},
                    {"median_seconds", floor_seconds},
                    {"megabytes_per_second", mb / floor_seconds},
                    {"repeats", timings_json(floor)}};
    out["read_dataset_csv"] = {{"threads", all_threads},
                               {"median_seconds", parse_seconds},
                               {"megabytes_per_second", mb / parse_seconds},
                               {"repeats", timings_json(parse)}};
    out["from_chars_only"] = {
        {"what", "std::from_chars over every cell of the text held in memory, no I/O or checks"},
        {"threads", all_threads},
        {"median_seconds", conversion_seconds},
        {"megabytes_per_second", mb / conversion_seconds},
        {"repeats", timings_json(conversions)}};
    out["ratio_to_floor"] = parse_seconds / floor_seconds;
    out["ratio_to_from_chars_only"] = parse_seconds / conversion_seconds;
    // Per thread count: the reader and the reference on the same number of threads.
    nlohmann::json per_thread = nlohmann::json::array();
    for (const int threads : thread_counts) {
      const double reader = seconds(parse_by_threads[threads]);
      const double reference = seconds(conversions_by_threads[threads]);
      per_thread.push_back({{"threads", threads},
                            {"read_dataset_csv",
                             {{"median_seconds", reader},
                              {"megabytes_per_second", mb / reader},
                              {"megabytes_per_second_per_thread", mb / reader / threads},
                              {"repeats", timings_json(parse_by_threads[threads])}}},
                            {"from_chars_only",
                             {{"median_seconds", reference},
                              {"megabytes_per_second", mb / reference},
                              {"megabytes_per_second_per_thread", mb / reference / threads},
                              {"repeats", timings_json(conversions_by_threads[threads])}}},
                            {"read_dataset_csv_phases_mean_seconds",
                             [&] {
                               const Phases p = mean_phases(threads);
                               return nlohmann::json{
                                   {"line_count", p.line_count}, {"reading", p.reading},
                                   {"counting", p.counting},     {"parsing", p.parsing},
                                   {"release", p.release},       {"other", p.other},
                                   {"blocks", p.blocks}};
                             }()},
                            {"ratio_to_from_chars_only", reader / reference},
                            {"speedup_over_one_thread", parse_one_seconds / reader}});
    }
    out["per_thread_count"] = per_thread;
    out["speedup_all_threads_over_one"] = parse_one_seconds / parse_seconds;
    out["peak_rss_mib"] = {{"before_reads", rss_before},
                           {"after_reads", rss_after},
                           {"numbers", numbers_mib},
                           {"text", static_cast<double>(bytes) / (1024.0 * 1024.0)}};
    std::ofstream(config.json_path) << out.dump(2) << "\n";
  }
  return 0;
}
