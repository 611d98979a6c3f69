// bench_iteration: seconds per iteration of A-IHT and A-IHT II against the floor of one streaming
// read of Phi, measured in one run on one buffer.
//
// Every iteration makes exactly one dense pass Phi^T r over the S x n matrix; everything else
// touches at most 3k columns or O(n) values. At large n an iteration therefore cannot be faster
// than reading Phi's bytes once from memory, and the goal (the issue's) is to be within 1.5x of
// that read. The floor is measured, not taken from a datasheet: a parallel sum over the very
// buffer the solver then reads.
//
// Per-iteration time goes through the public API only: (T(1 + m) - T(1)) / m with tolerance 0,
// which cancels every per-solve cost (validation pass over Phi, setup, result assembly) and the
// first iteration (z = 0), leaving the steady-state iterations 2 .. 1 + m.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>
#include <unistd.h>

#include "bench_machine.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "coreset/version.hpp"

#ifndef CORESET_BENCH_CXX_FLAGS
#define CORESET_BENCH_CXX_FLAGS "unknown"
#endif

namespace {

using coreset::index_t;
using namespace coreset::bench;  // machine description, interference, median (bench_machine.hpp)

constexpr double kGoalRatio = 1.5;  // the target: iteration time / one read of Phi
constexpr double kBytesPerGB = 1e9;

struct Config {
  std::vector<double> sizes{1e4, 1e5, 1e6};
  index_t rows = 500;
  index_t k = 100;
  int repeats = 5;
  int threads = 0;
  double min_seconds = 0.3;
  std::uint64_t seed = 20240601;
  std::string precision = "double";
  std::string json_path;
  std::string commit;
};

// ---- Phi ----

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

template <class T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;

// Uninitialised on purpose: the fill below is the first touch, done by the threads that later
// read each range, and it avoids a second 4 GB write pass that std::vector's zero-fill would cost.
template <class T>
Buffer<T> allocate(index_t count) {
  constexpr std::size_t kAlign = 64;
  const std::size_t bytes =
      (static_cast<std::size_t>(count) * sizeof(T) + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, bytes);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return Buffer<T>(static_cast<T*>(p));
}

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Entry (i, j) is a pure function of (seed, i, j), so the fill parallelises over columns and the
// float and double matrices hold the same numbers up to rounding. Entries are uniform in
// [-1, 1] / sqrt(S), then each column is centred over its S rows as the real Phi is.
template <class T>
void fill_phi(T* phi, index_t rows, index_t cols, std::uint64_t seed, int threads) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(rows));
  const std::uint64_t base = splitmix64(seed);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (index_t j = 0; j < cols; ++j) {
    T* column = phi + j * rows;
    double sum = 0.0;
    for (index_t i = 0; i < rows; ++i) {
      const std::uint64_t h = splitmix64(base ^ static_cast<std::uint64_t>(j * rows + i));
      const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
      column[i] = static_cast<T>((2.0 * unit - 1.0) * scale);
      sum += static_cast<double>(column[i]);
    }
    const T mean = static_cast<T>(sum / static_cast<double>(rows));
    for (index_t i = 0; i < rows; ++i) {
      column[i] -= mean;
    }
  }
}

// y = Phi 1 over the leading `cols` columns, summed in double; computed once per n so the solver
// is handed an explicit y and does not recompute it inside the timed region.
template <class T>
std::vector<T> column_sums(const T* phi, index_t rows, index_t cols, int threads) {
  std::vector<double> total(static_cast<std::size_t>(rows), 0.0);
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> partial(static_cast<std::size_t>(rows), 0.0);
#pragma omp for schedule(static) nowait
    for (index_t j = 0; j < cols; ++j) {
      const T* column = phi + j * rows;
      for (index_t i = 0; i < rows; ++i) {
        partial[static_cast<std::size_t>(i)] += static_cast<double>(column[i]);
      }
    }
#pragma omp critical
    for (index_t i = 0; i < rows; ++i) {
      total[static_cast<std::size_t>(i)] += partial[static_cast<std::size_t>(i)];
    }
  }
  return std::vector<T>(total.begin(), total.end());
}

// ---- the floor: one streaming read ----

// Sums `count` values with every thread reading one contiguous range (what the hardware
// prefetchers stream best). Sixteen independent accumulators per thread, which the compiler keeps
// in vector registers, so the loop is bound by memory bandwidth and not by the latency of one
// dependent add chain. The sum is returned so the reads cannot be optimised away.
template <class T>
double read_once(const T* data, index_t count, int threads) {
  constexpr index_t kLanes = 16;
  double total = 0.0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : total)
  for (int part = 0; part < threads; ++part) {
    const index_t lo = count * part / threads;
    const index_t hi = count * (part + 1) / threads;
    T acc[kLanes] = {};
    index_t i = lo;
    for (; i + kLanes <= hi; i += kLanes) {
      for (index_t lane = 0; lane < kLanes; ++lane) {
        acc[lane] += data[i + lane];
      }
    }
    for (; i < hi; ++i) {
      acc[0] += data[i];
    }
    double sum = 0.0;
    for (const T value : acc) {
      sum += static_cast<double>(value);
    }
    total += sum;
  }
  return total;
}

// Where sums of reads go that nothing else consumes, so the reads cannot be optimised away.
volatile double g_sink = 0.0;

struct BandwidthSample {
  std::vector<double> gb_per_s;
  double checksum = 0.0;
  Interference interference;
};

template <class T>
BandwidthSample measure_bandwidth(const T* data, index_t count, int repeats, int threads) {
  BandwidthSample result;
  const CpuSample before = sample_cpu();
  const double bytes = static_cast<double>(count) * static_cast<double>(sizeof(T));
  result.checksum = read_once(data, count, threads);  // warm-up: page tables, thread team
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    result.checksum += read_once(data, count, threads);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.gb_per_s.push_back(bytes / seconds / kBytesPerGB);
  }
  result.interference = interference(before, sample_cpu());
  return result;
}

// The floor is measured before and after the iteration timings and taken as the median of both
// sets: a VM's memory bandwidth drifts with its neighbours, and pooling keeps one lucky or
// unlucky moment from deciding every ratio. Both sets are reported, so drift stays visible.
struct Bandwidth {
  std::int64_t bytes = 0;
  BandwidthSample before;
  BandwidthSample after;
  double median_gb_per_s = 0.0;
};

nlohmann::json to_json(const BandwidthSample& sample) {
  return {{"gb_per_s_per_repeat", sample.gb_per_s},
          {"median_gb_per_s", median(sample.gb_per_s)},
          {"checksum", sample.checksum},
          {"interference", to_json(sample.interference)}};
}

// ---- per-iteration time ----

struct Timed {
  double seconds = 0.0;
  coreset::SolveResult result;
};

template <class T>
Timed timed_solve(coreset::MatrixView<T> phi, const std::vector<T>& y,
                  coreset::SolverOptions options, int iterations) {
  options.max_iterations = iterations;
  Timed timed;
  const auto start = Clock::now();
  timed.result = coreset::solve(phi, y.data(), options);
  timed.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return timed;
}

struct Record {
  std::string precision;
  std::string algorithm;
  index_t n = 0;
  index_t rows = 0;
  index_t k = 0;
  std::int64_t bytes = 0;
  int m = 0;
  int calibration_m = 0;
  int iterations_small = 0;
  int iterations_large = 0;
  std::string stop_reason_large;
  bool stopped_early = false;
  std::vector<double> t_small;
  std::vector<double> t_large;
  std::vector<double> per_iteration;  // one estimate per repeat
  double seconds_per_iteration = 0.0;
  int adjacent_reads = 0;
  std::vector<double> adjacent_read;   // seconds per read of this view, one per repeat
  std::vector<double> adjacent_ratio;  // per-iteration time / adjacent read, one per repeat
  double floor_seconds = 0.0;
  double ratio = 0.0;
  double bandwidth_gb_per_s = 0.0;
  double relative_error = 0.0;
  Interference interference;
};

template <class T>
Record measure_iteration(coreset::MatrixView<T> phi, coreset::Algorithm algorithm,
                         const Config& config, int threads, const char* precision) {
  const CpuSample before = sample_cpu();
  const std::vector<T> y = column_sums(phi.data, phi.rows, phi.cols, threads);
  coreset::SolverOptions options;
  options.algorithm = algorithm;
  options.k = config.k;
  options.tolerance = 0.0;  // only the cap (or an exact fixed point) may stop the solver
  options.step_rule = coreset::StepRule::exact;
  options.threads = threads;

  Record record;
  record.precision = precision;
  record.algorithm = coreset::to_string(algorithm);
  record.n = phi.cols;
  record.rows = phi.rows;
  record.k = config.k;
  record.bytes = phi.rows * phi.cols * static_cast<index_t>(sizeof(T));

  // Warm-up doubling as calibration: m = 10 is enough at n = 1e6 (each iteration reads GBs);
  // smaller n gets the m that makes T(1 + m) - T(1) last at least min_seconds.
  record.calibration_m = 10;
  {
    const Timed small = timed_solve(phi, y, options, 1);
    const Timed large = timed_solve(phi, y, options, 1 + record.calibration_m);
    const int extra = large.result.iterations - small.result.iterations;
    const double estimate = extra > 0 ? (large.seconds - small.seconds) / extra
                                      : large.seconds / std::max(1, large.result.iterations);
    const double wanted = estimate > 0.0 ? std::ceil(config.min_seconds / estimate) : 1e6;
    record.m = static_cast<int>(std::clamp(wanted, 10.0, 1e6));
  }
  // A second, local floor: reads of exactly this view's bytes, timed right after each repeat's
  // solves. The global floor divides by one bandwidth for the whole run, but on a VM the
  // bandwidth drifts by ~10% within minutes; pairing each repeat with its own read tells solver
  // overhead apart from that drift.
  const index_t view_count = phi.rows * phi.cols;  // contiguous: every view has ld == rows
  {
    g_sink = g_sink + read_once(phi.data, view_count, threads);
    const auto start = Clock::now();
    g_sink = g_sink + read_once(phi.data, view_count, threads);
    const double once = std::chrono::duration<double>(Clock::now() - start).count();
    const double wanted = once > 0.0 ? std::ceil(config.min_seconds / once) : 1.0;
    record.adjacent_reads = static_cast<int>(std::clamp(wanted, 2.0, 1e6));
  }

  for (int r = 0; r < config.repeats; ++r) {
    // Alternate the two runs so slow drift (turbo, other load) hits both alike.
    const Timed small = timed_solve(phi, y, options, 1);
    const Timed large = timed_solve(phi, y, options, 1 + record.m);
    record.t_small.push_back(small.seconds);
    record.t_large.push_back(large.seconds);
    record.iterations_small = small.result.iterations;
    record.iterations_large = large.result.iterations;
    record.stop_reason_large = coreset::to_string(large.result.stop_reason);
    record.relative_error = large.result.relative_error;
    const int extra = large.result.iterations - small.result.iterations;
    if (large.result.iterations != 1 + record.m) {
      record.stopped_early = true;  // divide by the iterations actually run
    }
    const auto start = Clock::now();
    for (int read = 0; read < record.adjacent_reads; ++read) {
      g_sink = g_sink + read_once(phi.data, view_count, threads);
    }
    const double read_seconds =
        std::chrono::duration<double>(Clock::now() - start).count() / record.adjacent_reads;
    record.adjacent_read.push_back(read_seconds);
    if (extra > 0) {
      record.per_iteration.push_back((large.seconds - small.seconds) / extra);
      record.adjacent_ratio.push_back(record.per_iteration.back() / read_seconds);
    }
  }
  record.seconds_per_iteration = median(record.per_iteration);
  record.interference = interference(before, sample_cpu());
  return record;
}

// ---- output ----

nlohmann::json to_json(const Record& r) {
  return {{"precision", r.precision},
          {"algorithm", r.algorithm},
          {"step_rule", "exact"},
          {"n", r.n},
          {"rows", r.rows},
          {"k", r.k},
          {"phi_bytes", r.bytes},
          {"m", r.m},
          {"calibration_m", r.calibration_m},
          {"iterations_small", r.iterations_small},
          {"iterations_large", r.iterations_large},
          {"stop_reason_large", r.stop_reason_large},
          {"stopped_early", r.stopped_early},
          {"t_small_seconds", r.t_small},
          {"t_large_seconds", r.t_large},
          {"t_small_median_seconds", median(r.t_small)},
          {"t_large_median_seconds", median(r.t_large)},
          {"seconds_per_iteration_per_repeat", r.per_iteration},
          {"seconds_per_iteration", r.seconds_per_iteration},
          {"bandwidth_gb_per_s", r.bandwidth_gb_per_s},
          {"floor_seconds", r.floor_seconds},
          {"ratio_to_floor", r.ratio},
          {"adjacent_reads_per_repeat", r.adjacent_reads},
          {"adjacent_read_seconds_per_repeat", r.adjacent_read},
          {"adjacent_read_seconds", median(r.adjacent_read)},
          {"ratio_to_adjacent_read_per_repeat", r.adjacent_ratio},
          {"ratio_to_adjacent_read", median(r.adjacent_ratio)},
          {"goal_ratio", kGoalRatio},
          {"meets_goal", r.ratio <= kGoalRatio},
          {"relative_error_after_large", r.relative_error},
          {"interference", to_json(r.interference)}};
}

void print_table(const std::vector<Record>& records, const std::string& precision,
                 const Bandwidth& bandwidth) {
  const auto mark = [](const BandwidthSample& sample) {
    return disturbed(sample.interference) ? " DISTURBED" : "";
  };
  std::printf(
      "\n%s precision: read bandwidth %.2f GB/s over %.2f GB (median of %zu reads; before the "
      "iterations %.2f GB/s, other CPU %s%s; after %.2f GB/s, other CPU %s%s)\n",
      precision.c_str(), bandwidth.median_gb_per_s,
      static_cast<double>(bandwidth.bytes) / kBytesPerGB,
      bandwidth.before.gb_per_s.size() + bandwidth.after.gb_per_s.size(),
      median(bandwidth.before.gb_per_s),
      format_share(bandwidth.before.interference.foreign_share).c_str(), mark(bandwidth.before),
      median(bandwidth.after.gb_per_s),
      format_share(bandwidth.after.interference.foreign_share).c_str(), mark(bandwidth.after));
  std::printf("%-8s %9s %7s %7s %13s %13s %8s  %-11s %9s %10s\n", "algo", "n", "m", "iters",
              "s/iteration", "floor s", "ratio", "goal <= 1.5", "vs adj.", "other CPU");
  for (const Record& r : records) {
    if (r.precision != precision) {
      continue;
    }
    std::printf("%-8s %9lld %7d %7d %13.6f %13.6f %8.2f  %-11s %9.2f %10s%s%s\n",
                r.algorithm.c_str(), static_cast<long long>(r.n), r.m,
                r.iterations_large - r.iterations_small, r.seconds_per_iteration, r.floor_seconds,
                r.ratio, r.ratio <= kGoalRatio ? "met" : "MISSED", median(r.adjacent_ratio),
                format_share(r.interference.foreign_share).c_str(),
                disturbed(r.interference) ? " DISTURBED" : "",
                r.stopped_early ? " (stopped early: divided by iterations run)" : "");
  }
  std::fflush(stdout);
}

template <class T>
void run_precision(const Config& config, const std::vector<index_t>& sizes, int threads,
                   const char* precision, std::vector<Record>& records, nlohmann::json& bw_json) {
  const index_t max_n = *std::max_element(sizes.begin(), sizes.end());
  const index_t count = config.rows * max_n;
  std::fprintf(stderr, "[%s] allocating and filling Phi: %lld x %lld (%.2f GB)\n", precision,
               static_cast<long long>(config.rows), static_cast<long long>(max_n),
               static_cast<double>(count) * sizeof(T) / kBytesPerGB);
  Buffer<T> phi = allocate<T>(count);
  fill_phi(phi.get(), config.rows, max_n, config.seed, threads);

  const int bandwidth_repeats = std::max(5, config.repeats);
  Bandwidth bandwidth;
  bandwidth.bytes = count * static_cast<index_t>(sizeof(T));
  std::fprintf(stderr, "[%s] measuring read bandwidth\n", precision);
  bandwidth.before = measure_bandwidth(phi.get(), count, bandwidth_repeats, threads);

  const std::size_t first = records.size();
  for (const index_t n : sizes) {
    // The leading n columns of the one buffer: column-major, so ld = S and no copy is needed.
    const coreset::MatrixView<T> view{phi.get(), config.rows, n, config.rows};
    for (const coreset::Algorithm algorithm :
         {coreset::Algorithm::aiht, coreset::Algorithm::aiht2}) {
      std::fprintf(stderr, "[%s] %s n=%lld\n", precision, coreset::to_string(algorithm).c_str(),
                   static_cast<long long>(n));
      records.push_back(measure_iteration(view, algorithm, config, threads, precision));
    }
  }

  std::fprintf(stderr, "[%s] measuring read bandwidth again\n", precision);
  bandwidth.after = measure_bandwidth(phi.get(), count, bandwidth_repeats, threads);
  std::vector<double> pooled = bandwidth.before.gb_per_s;
  pooled.insert(pooled.end(), bandwidth.after.gb_per_s.begin(), bandwidth.after.gb_per_s.end());
  bandwidth.median_gb_per_s = median(pooled);
  for (std::size_t i = first; i < records.size(); ++i) {
    Record& record = records[i];
    record.bandwidth_gb_per_s = bandwidth.median_gb_per_s;
    record.floor_seconds =
        static_cast<double>(record.bytes) / (bandwidth.median_gb_per_s * kBytesPerGB);
    record.ratio = record.seconds_per_iteration / record.floor_seconds;
  }
  bw_json.push_back({{"precision", precision},
                     {"bytes", bandwidth.bytes},
                     {"median_gb_per_s", bandwidth.median_gb_per_s},
                     {"before_iterations", to_json(bandwidth.before)},
                     {"after_iterations", to_json(bandwidth.after)}});
  print_table(records, precision, bandwidth);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"bench_iteration: seconds per A-IHT / A-IHT II iteration vs one read of Phi"};
  app.add_option("--sizes", config.sizes, "comma-separated n values (e.g. 1e4,1e5,1e6)")
      ->delimiter(',');
  app.add_option("--rows", config.rows, "S, the number of rows of Phi")->check(CLI::PositiveNumber);
  app.add_option("--k", config.k, "sparsity budget")->check(CLI::PositiveNumber);
  app.add_option("--repeats", config.repeats, "timed repeats per measurement (>= 3)")
      ->check(CLI::Range(3, 1000));
  app.add_option("--threads", config.threads, "threads, 0 = all")->check(CLI::NonNegativeNumber);
  app.add_option("--min-seconds", config.min_seconds,
                 "smallest T(1+m) - T(1) the choice of m aims for")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", config.seed, "seed of Phi's generator");
  app.add_option("--precision", config.precision, "float, double or both")
      ->check(CLI::IsMember({"float", "double", "both"}));
  app.add_option("--json", config.json_path, "write the results as JSON to this file");
  app.add_option("--commit", config.commit, "git commit being measured (recorded in the JSON)");
  CLI11_PARSE(app, argc, argv);

  std::vector<index_t> sizes;
  if (const auto parsed = parse_sizes("bench_iteration", config.sizes)) {
    sizes = *parsed;
  } else {
    return 2;
  }
  const int threads = config.threads > 0 ? config.threads : omp_get_max_threads();
  const coreset::BuildInfo build = coreset::build_info();

  nlohmann::json out;
  out["benchmark"] = "bench_iteration";
  out["date_utc"] = utc_now();
  out["commit"] = config.commit.empty() ? nlohmann::json() : nlohmann::json(config.commit);
  out["machine"] = machine_json(threads);
  out["build"] = {{"coreset_version", build.version},
                  {"compiler", build.compiler},
                  {"build_type", build.build_type},
                  {"openmp", build.openmp},
                  {"cxx_flags", CORESET_BENCH_CXX_FLAGS}};
  out["config"] = {{"rows", config.rows},
                   {"k", config.k},
                   {"sizes", sizes},
                   {"repeats", config.repeats},
                   {"min_seconds", config.min_seconds},
                   {"seed", config.seed},
                   {"tolerance", 0.0},
                   {"step_rule", "exact"},
                   {"goal_ratio", kGoalRatio},
                   {"gb", "1e9 bytes"}};
  out["bandwidth"] = nlohmann::json::array();

  std::printf("bench_iteration: %s, %d threads, S=%lld, k=%lld, %s\n",
              out["machine"]["cpu_model"].get<std::string>().c_str(), threads,
              static_cast<long long>(config.rows), static_cast<long long>(config.k),
              build.compiler.c_str());
  std::vector<Record> records;
  try {
    // One precision at a time so at most one Phi (4 GB double at n = 1e6) is alive.
    if (config.precision != "float") {
      run_precision<double>(config, sizes, threads, "double", records, out["bandwidth"]);
    }
    if (config.precision != "double") {
      run_precision<float>(config, sizes, threads, "float", records, out["bandwidth"]);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_iteration: %s\n", error.what());
    return 1;
  }

  out["machine"]["load_average_at_end"] = load_average();
  out["records"] = nlohmann::json::array();
  for (const Record& record : records) {
    out["records"].push_back(to_json(record));
  }
  if (!config.json_path.empty()) {
    std::ofstream file(config.json_path);
    file << out.dump(2) << '\n';
    if (!file) {
      std::fprintf(stderr, "bench_iteration: cannot write %s\n", config.json_path.c_str());
      return 1;
    }
    std::printf("\nwrote %s\n", config.json_path.c_str());
  }
  return 0;
}
