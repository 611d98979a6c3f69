// bench_build_stages: the wall time of each stage of building a coreset (the Laplace fit of the
// weighting distribution, the S samples, the log-likelihood matrix Phi, the solve) for the
// synthetic logistic problem, and the projection against its floor, measured in the same run.
//
// The floor (the issue's): the matrix product samples * design^T that Phi is built on, plus one
// write of Phi's S x n doubles. The goal is projection <= 1.5 x floor, compared like for like:
// the library's projection_into an S x n Phi already in memory against a write to memory already
// mapped, and a fresh projection (as `coreset build` makes it) against a fresh Phi's allocation and
// first-touch write; all of them timed in interleaved rounds, each round giving both ratios.
//
// Every stage is timed through the library's own functions (posterior::laplace,
// posterior::draw_samples, cpu::projection<double>, coreset::solve), and once more end to end
// through build_coreset. The floor and the diagnostics that explain the projection's time run on
// a buffer of the benchmark's own with the library's blocking (cpu::projection_block_width)
// and threading: the product with the link, with the centring, with both (a replica of the
// library's loop, checked bit for bit against its Phi), and the link with each instruction set
// the CPU supports. Before every measurement and round the benchmark waits for other processes to
// go quiet, and it repeats one during which they used more than 5% of the CPUs.
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_huge_pages.hpp"
#include "bench_machine.hpp"
#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/matrix.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"
#include "coreset/version.hpp"
#include "cpu/projection.hpp"
#include "cpu/simd/columns.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "models/simd/log_sigmoid.hpp"
#include "models/simd/row_block.hpp"
#include "posterior/posterior.hpp"
#include "support/huge_pages.hpp"
#include "support/isa.hpp"
#include "support/random.hpp"

#ifndef CORESET_BENCH_CXX_FLAGS
#define CORESET_BENCH_CXX_FLAGS "unknown"
#endif

namespace {

using coreset::index_t;
using namespace coreset::bench;  // machine description, interference, median (bench_machine.hpp)

constexpr double kGoalRatio = 1.5;  // the target: projection / (product + one write)
constexpr double kBytesPerGB = 1e9;

struct Config {
  std::vector<double> sizes{1e4, 1e5, 1e6};
  index_t samples = 500;
  index_t covariates = 9;  // plus the intercept: d = 10 parameters
  index_t k = 100;
  int max_iterations = 300;
  double tolerance = 1e-5;
  int repeats = 3;
  int rounds = 7;  // interleaved rounds of the floor against the projection
  double min_seconds = 0.3;
  double solve_seconds = 20.0;
  int threads = 0;
  std::uint64_t seed = 20240601;
  bool end_to_end = true;
  double max_wait = 900.0;
  int retries = 2;
  std::string json_path;
  std::string commit;
};

// ---- waiting for a quiet machine ----

// Waits until other processes use at most 5% of the machine over a 0.5 s probe, or until
// `max_wait` seconds have passed (the measurement then goes ahead and is marked if disturbed).
// Returns the seconds spent waiting beyond the first probe.
double wait_for_quiet(const Config& config, const std::string& what) {
  const auto start = Clock::now();
  bool announced = false;
  for (;;) {
    const CpuSample before = sample_cpu();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const Interference probe = interference(before, sample_cpu());
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (!disturbed(probe) || elapsed >= config.max_wait) {
      if (announced) {
        std::fprintf(stderr, "  quiet again after %.0f s (other CPU %s)\n", elapsed,
                     format_share(probe.foreign_share).c_str());
      }
      return std::max(0.0, elapsed - 0.5);
    }
    if (!announced) {
      std::fprintf(stderr, "  [%s] other processes use %s of the CPUs: waiting\n", what.c_str(),
                   format_share(probe.foreign_share).c_str());
      announced = true;
    }
    std::this_thread::sleep_for(std::chrono::seconds(5));
  }
}

// ---- timing ----

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// How often a measurement runs: `warmups` untimed runs, then timed runs until at least
// `min_repeats` have run and they add up to `min_seconds`, but never more than `max_repeats`,
// and no further run once the timed runs add up to `max_seconds`.
struct Plan {
  int warmups = 1;
  int min_repeats = 3;
  int max_repeats = 1000;
  double min_seconds = 0.3;
  double max_seconds = std::numeric_limits<double>::infinity();
};

struct Measurement {
  std::string name;
  std::vector<double> seconds;  // timed runs of the last attempt
  double median = std::nan("");
  int warmups = 0;
  int attempts = 0;  // > 1: earlier attempts were disturbed and repeated
  double waited_seconds = 0.0;
  Interference interference;  // over the last attempt, warm-ups included
};

nlohmann::json to_json(const Measurement& m) {
  return {{"seconds_per_repeat", m.seconds},
          {"median_seconds", m.median},
          {"repeats", m.seconds.size()},
          {"warmups", m.warmups},
          {"attempts", m.attempts},
          {"waited_for_quiet_seconds", m.waited_seconds},
          {"interference", to_json(m.interference)}};
}

// `body()` runs once and returns the seconds of its timed part (so it can leave out work such as
// freeing the previous run's result). A disturbed attempt is repeated, after waiting for quiet,
// up to `config.retries` times.
template <class Body>
Measurement measure(const std::string& name, const Plan& plan, const Config& config, Body&& body) {
  Measurement m;
  m.name = name;
  m.warmups = plan.warmups;
  for (int attempt = 1;; ++attempt) {
    m.waited_seconds += wait_for_quiet(config, name);
    m.seconds.clear();
    const CpuSample before = sample_cpu();
    for (int w = 0; w < plan.warmups; ++w) {
      body();
    }
    double total = 0.0;
    for (;;) {
      m.seconds.push_back(body());
      total += m.seconds.back();
      const int count = static_cast<int>(m.seconds.size());
      if (count >= plan.max_repeats || total >= plan.max_seconds ||
          (count >= plan.min_repeats && total >= plan.min_seconds)) {
        break;
      }
    }
    m.interference = interference(before, sample_cpu());
    m.attempts = attempt;
    if (!disturbed(m.interference) || attempt > config.retries) {
      break;
    }
    std::fprintf(stderr, "  [%s] disturbed (other CPU %s): measuring again\n", name.c_str(),
                 format_share(m.interference.foreign_share).c_str());
  }
  m.median = median(m.seconds);
  std::fprintf(stderr, "  %-34s %12.6f s  (%zu runs, other CPU %s%s)\n", name.c_str(), m.median,
               m.seconds.size(), format_share(m.interference.foreign_share).c_str(),
               disturbed(m.interference) ? " DISTURBED" : "");
  return m;
}

// Where values nothing else consumes go, so the work producing them is not optimised away.
volatile double g_sink = 0.0;
// The value the write floor stores: read at run time, so the compiler cannot turn the store loop
// into a memset (which glibc may do with non-temporal stores; that variant is timed separately).
volatile double g_fill = 0.25;

// ---- the dataset ----

// The synthetic logistic problem with `covariates` covariates: x_n ~ N(0, I), theta alternating
// +-2/sqrt(D) (so ||theta|| = 2 and z . theta ~ N(0, 4): neither class dominates), intercept 0,
// y_n = 1 with probability sigma(x_n . theta), else -1. Deterministic in the seed.
coreset::Dataset synthetic_dataset(index_t rows, index_t covariates, std::uint64_t seed,
                                   std::vector<double>& theta) {
  theta.assign(static_cast<std::size_t>(covariates), 0.0);
  const double scale = 2.0 / std::sqrt(static_cast<double>(covariates));
  for (index_t c = 0; c < covariates; ++c) {
    theta[static_cast<std::size_t>(c)] = (c % 2 == 0 ? scale : -scale);
  }
  coreset::Dataset data;
  data.covariates = coreset::Matrix<double>(rows, covariates);
  data.response.resize(static_cast<std::size_t>(rows));
  coreset::support::NormalGenerator random(seed);
  for (index_t i = 0; i < rows; ++i) {
    double predictor = 0.0;
    for (index_t c = 0; c < covariates; ++c) {
      const double x = random();
      data.covariates(i, c) = x;
      predictor += x * theta[static_cast<std::size_t>(c)];
    }
    data.response[static_cast<std::size_t>(i)] =
        random.uniform() < coreset::models::sigmoid(predictor) ? 1.0 : -1.0;
  }
  for (index_t c = 0; c < covariates; ++c) {
    data.covariate_names.push_back("x" + std::to_string(c + 1));
  }
  data.response_name = "y";
  data.source = "bench_build_stages synthetic logistic data";
  return data;
}

// ---- the floor and the diagnostics, on the benchmark's own S x n buffer ----

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
using Buffer = std::unique_ptr<double[], FreeDeleter>;

// Uninitialised, `align`-aligned; with `huge_pages`, 2 MiB-aligned and advised to the kernel as
// transparent huge pages (MADV_HUGEPAGE), so that first touch faults once per 2 MiB, not 4 KiB.
Buffer allocate(index_t count, bool huge_pages = false) {
  const std::size_t align = huge_pages ? std::size_t{2} << 20 : 64;
  const std::size_t bytes =
      (static_cast<std::size_t>(count) * sizeof(double) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, bytes);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  if (huge_pages) {
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure leaves ordinary pages
  }
  return Buffer(static_cast<double*>(p));
}

// AnonHugePages of this process, in bytes: whether the huge-page advice was followed.
std::int64_t anon_huge_bytes() {
  const std::string value = read_first_field("/proc/self/smaps_rollup", "AnonHugePages");
  return value.empty() ? -1 : std::int64_t{1024} * std::atoll(value.c_str());
}

// One write of `count` doubles, every thread storing one contiguous range with ordinary stores.
void write_store(double* out, index_t count, int team) {
  const double value = g_fill;
#pragma omp parallel for num_threads(team) schedule(static)
  for (int part = 0; part < team; ++part) {
    const index_t lo = count * part / team;
    const index_t hi = count * (part + 1) / team;
    for (index_t i = lo; i < hi; ++i) {
      out[i] = value;
    }
  }
}

// The same with glibc's memset, which for large ranges may use non-temporal stores.
void write_memset(double* out, index_t count, int team) {
#pragma omp parallel for num_threads(team) schedule(static)
  for (int part = 0; part < team; ++part) {
    const index_t lo = count * part / team;
    const index_t hi = count * (part + 1) / team;
    std::memset(out + lo, 0, static_cast<std::size_t>(hi - lo) * sizeof(double));
  }
}

// What is done to each block after its product.
enum class Pass {
  product,      // nothing: the matrix product alone (the floor's blocked product)
  link,         // the link's value (labels folded into the rows, as the library does) and the
                // column means (as the library takes them), with the given ISA
  link_centre,  // ... and the centring: a replica of cpu::projection's loop (logistic)
  centre,       // the centring alone, on the raw product
};

// cpu::projection<double>'s loop for the logistic model on a preallocated buffer: blocks of
// cpu::projection_block_width(S) datapoints split statically over `team` threads, Eigen's
// product single-threaded inside the region, then the per-column pass selected by `pass`.
// Returns the number of columns whose sum was not finite.
index_t blocked_pass(const coreset::models::Model& model, const Eigen::MatrixXd& samples,
                     double* phi, int team, Pass pass,
                     coreset::support::Isa isa = coreset::support::active_isa()) {
  using ColumnMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  const index_t s = samples.rows();
  const index_t n = model.rows();
  const index_t width_max = coreset::cpu::projection_block_width(s);
  const index_t blocks = (n + width_max - 1) / width_max;
  const double scale = coreset::cpu::simd::centring_scale(s);
  index_t bad = 0;
#pragma omp parallel num_threads(team) reduction(+ : bad)
  {
    omp_set_num_threads(1);
    Eigen::MatrixXd rows;
    std::vector<double> means(static_cast<std::size_t>(width_max));
#pragma omp for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      const index_t first = b * width_max;
      const index_t width = std::min(width_max, n - first);
      double* out = phi + first * s;
      Eigen::Map<ColumnMajor> block(out, s, width);
      // As the library does: the block's rows copied with the intercept's ones.
      model.design.copy_rows(first, width, rows);
      if (pass == Pass::product || pass == Pass::centre) {
        block.noalias() = samples * rows.transpose();
      } else {
        // As the library does: the labels folded into the rows, then the link once over the
        // whole block.
        rows.array().colwise() *= model.response.segment(first, width).array();
        block.noalias() = samples * rows.transpose();
        coreset::models::simd::log_sigmoid(isa, out, out, s * width);
      }
      if (pass == Pass::product) {
        continue;
      }
      // The library's centring pass: the column means (which the link pass keeps, as the library
      // takes them), then the means subtracted and the scale applied.
      coreset::cpu::simd::column_means(out, s, width, means.data());
      for (index_t i = 0; i < width; ++i) {
        if (!std::isfinite(means[static_cast<std::size_t>(i)])) {
          ++bad;
        }
      }
      if (pass != Pass::link) {
        coreset::cpu::simd::subtract_and_scale(out, s, width, means.data(), scale, out);
      }
    }
  }
  return bad;
}

// The plain full product samples * design^T, threaded by Eigen itself (`design`: the model's,
// dense).
void full_product(const Eigen::MatrixXd& design, const Eigen::MatrixXd& samples, double* phi,
                  int team) {
  Eigen::setNbThreads(team);
  Eigen::Map<Eigen::MatrixXd> out(phi, samples.rows(), design.rows());
  out.noalias() = samples * design.transpose();
}

// ---- the floor and the projection, in interleaved rounds ----

// What every round times, once each, in this order. Interleaving (rather than timing each item
// several times in a row) makes each round's ratios compare runs made seconds apart: this VM's
// speed drifts by tens of percent over minutes, and so would ratios of medians taken minutes
// apart.
enum Item {
  kProductBlocked,      // the floor's product with the library's blocks
  kProductFull,         // ... or one Eigen product threaded by Eigen: the faster one counts
  kWriteStores,         // one write of Phi into memory already mapped, plain stores
  kWriteMemset,         // ... or glibc memset: the faster one counts
  kProjectionResident,  // cpu::projection_into an S x n Phi already in memory
  kFreshWrite,          // a new Phi (Matrix::uninitialized) and its parallel first-touch write
  kProjectionFresh,     // cpu::projection, which makes a new Phi, as `coreset build` does
  kItems
};
const char* const kItemNames[kItems] = {"product_blocked",     "product_full",
                                        "write_stores",        "write_memset",
                                        "projection_resident", "fresh_phi_allocate_and_write",
                                        "projection_fresh"};

struct Round {
  double seconds[kItems] = {};
  Interference interference;  // over the whole round
  int attempts = 0;           // > 1: earlier attempts were disturbed and repeated

  double product() const { return std::min(seconds[kProductBlocked], seconds[kProductFull]); }
  double write() const { return std::min(seconds[kWriteStores], seconds[kWriteMemset]); }
  /// Like for like: resident against resident, fresh against fresh.
  double ratio() const { return seconds[kProjectionResident] / (product() + write()); }
  double ratio_fresh() const {
    return seconds[kProjectionFresh] / (product() + seconds[kFreshWrite]);
  }
};

struct Spread {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
};

template <class Value>
Spread spread_over(const std::vector<Round>& rounds, Value value) {
  std::vector<double> values;
  for (const Round& round : rounds) {
    values.push_back(value(round));
  }
  return {median(values), *std::min_element(values.begin(), values.end()),
          *std::max_element(values.begin(), values.end())};
}

nlohmann::json to_json(const Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

struct Record {
  index_t n = 0;
  index_t d = 0;
  index_t samples = 0;
  double positive_fraction = 0.0;
  double generate_seconds = 0.0;
  // make_model as build_coreset calls it (the covariates read in place), and as a PreparedProblem
  // that outlives its dataset does (copied).
  Measurement model_setup;
  Measurement model_setup_copied;
  // The first make_model at this n, before the repeats: for the first n, the process's first,
  // which is what `coreset build` pays, on memory the process has not used yet (first touch),
  // where the repeats reuse freed memory; later sizes follow earlier sizes' models.
  double model_setup_first = 0.0;
  bool first_in_process = false;
  Measurement model_release;  // the model's destruction (its design and n-vectors unmapped)
  Measurement laplace;
  // The fit again with the blocks' sums not prefetching the next block (models::row_sums_prefetch):
  // what the prefetching gives where the reads and the arithmetic would otherwise add up.
  Measurement laplace_no_prefetch;
  // One pass over the design in the Laplace fit's own row blocks (models/row_sums.hpp): the
  // linear predictors z_n . theta, the least any Newton step must do. The fit's strict floor is
  // one such pass per Newton iteration; its own floor, one per pass it takes (the start, each
  // step, the polish, the line search's shorter steps: LaplaceFit's evaluation counts).
  Measurement design_pass;
  int laplace_iterations = 0;
  int laplace_passes = 0;
  double laplace_gradient_norm = 0.0;
  std::vector<double> laplace_mean;
  Measurement sampling;
  Measurement projection;     // the stage: a fresh Phi each time, as `coreset build` makes it
  std::vector<Round> rounds;  // the floor against the projection, interleaved
  Measurement product_link;
  Measurement product_centre;
  Measurement replica;
  bool replica_matches = false;
  // product + link with each ISA's kernel: baseline (scalar libm), avx2, avx512 (-1 = unsupported)
  std::vector<std::pair<std::string, Measurement>> link_by_isa;
  std::int64_t huge_bytes = 0;  // AnonHugePages while a fresh Phi was alive (last round)
  Measurement solve;
  coreset::SolveResult solve_result;
  bool end_to_end_run = false;
  Measurement end_to_end;
  coreset::StageSeconds end_to_end_stages;
  int end_to_end_iterations = 0;
  // Derived from the rounds: medians (and extremes) over rounds of each item and ratio.
  Spread item[kItems];
  Spread floor;        // product + write into memory already mapped
  Spread ratio;        // projection_into a resident Phi / floor
  Spread floor_fresh;  // product + a fresh Phi's allocation and first-touch write
  Spread ratio_fresh;  // projection into a fresh Phi / floor_fresh
  std::int64_t phi_bytes = 0;
};

// One untimed round, then `config.rounds` timed ones. A round during which other processes used
// more than 5% of the CPUs is run again (after waiting for quiet), up to `config.retries` times.
std::vector<Round> measure_rounds(const coreset::models::Model& model,
                                  const Eigen::MatrixXd& samples, double* buffer,
                                  coreset::Matrix<double>& resident, int team, const Config& config,
                                  std::int64_t& huge_bytes) {
  const index_t count = samples.rows() * model.rows();
  // The fastest of runs that add up to at least `config.min_seconds` (one run when it is longer):
  // within a round the minimum is what this item costs when nothing interferes, for the floor and
  // the projection alike. `setup` runs before each run, outside the timing.
  const auto time = [&](auto&& body, auto&& setup) {
    double best = std::numeric_limits<double>::infinity();
    for (double total = 0.0; total < config.min_seconds;) {
      setup();
      const auto start = Clock::now();
      body();
      const double seconds = seconds_since(start);
      best = std::min(best, seconds);
      total += seconds;
    }
    return best;
  };
  const auto nothing = [] {};
  const Eigen::MatrixXd dense_design = model.design.dense();  // full_product's operand
  const auto run_round = [&] {
    Round round;
    round.seconds[kProductBlocked] =
        time([&] { blocked_pass(model, samples, buffer, team, Pass::product); }, nothing);
    round.seconds[kProductFull] =
        time([&] { full_product(dense_design, samples, buffer, team); }, nothing);
    round.seconds[kWriteStores] = time([&] { write_store(buffer, count, team); }, nothing);
    round.seconds[kWriteMemset] = time([&] { write_memset(buffer, count, team); }, nothing);
    g_sink = g_sink + buffer[count - 1];
    round.seconds[kProjectionResident] =
        time([&] { coreset::cpu::projection_into(model, samples, team, resident); }, nothing);
    // A fresh Phi each run: the previous one is freed in `setup`, outside the timing.
    coreset::Matrix<double> fresh;
    const auto free_fresh = [&] { fresh = coreset::Matrix<double>(); };
    round.seconds[kFreshWrite] = time(
        [&] {
          fresh = coreset::Matrix<double>::uninitialized(samples.rows(), model.rows());
          write_store(fresh.data(), count, team);
        },
        free_fresh);
    huge_bytes = anon_huge_bytes();
    g_sink = g_sink + fresh.data()[count - 1];
    round.seconds[kProjectionFresh] =
        time([&] { fresh = coreset::cpu::projection<double>(model, samples, team); }, free_fresh);
    return round;
  };
  std::fprintf(stderr, "  rounds of the floor and the projection (one untimed)\n");
  run_round();
  std::vector<Round> rounds;
  for (int r = 0; r < config.rounds; ++r) {
    Round round;
    for (int attempt = 1;; ++attempt) {
      wait_for_quiet(config, "round");
      const CpuSample before = sample_cpu();
      round = run_round();
      round.interference = interference(before, sample_cpu());
      round.attempts = attempt;
      if (!disturbed(round.interference) || attempt > config.retries) {
        break;
      }
      std::fprintf(stderr, "  round %d disturbed (other CPU %s): running it again\n", r + 1,
                   format_share(round.interference.foreign_share).c_str());
    }
    std::fprintf(stderr,
                 "  round %d: product %.4f, write %.4f, projection_into %.4f (ratio %.3f); fresh "
                 "write %.4f, fresh projection %.4f (ratio %.3f); other CPU %s%s\n",
                 r + 1, round.product(), round.write(), round.seconds[kProjectionResident],
                 round.ratio(), round.seconds[kFreshWrite], round.seconds[kProjectionFresh],
                 round.ratio_fresh(), format_share(round.interference.foreign_share).c_str(),
                 disturbed(round.interference) ? " DISTURBED" : "");
    rounds.push_back(round);
  }
  return rounds;
}

// ---- one size ----

Record run_size(index_t n, const Config& config, int team, bool first_size) {
  Record r;
  r.n = n;
  std::fprintf(stderr, "\nn = %lld: generating the data\n", static_cast<long long>(n));
  auto start = Clock::now();
  std::vector<double> theta;
  const coreset::Dataset data = synthetic_dataset(n, config.covariates, config.seed, theta);
  r.generate_seconds = seconds_since(start);
  r.positive_fraction =
      static_cast<double>(std::count(data.response.begin(), data.response.end(), 1.0)) /
      static_cast<double>(n);

  coreset::ModelOptions model_options;  // logistic, intercept, prior N(0, I)
  coreset::models::Model model;
  const Plan stage_plan{1, config.repeats, 100000, config.min_seconds};
  constexpr auto kInPlace = coreset::models::CovariateStorage::borrowed;
  constexpr auto kCopied = coreset::models::CovariateStorage::copied;
  start = Clock::now();
  model = coreset::models::make_model(data, model_options, config.seed, {}, kInPlace);
  r.model_setup_first = seconds_since(start);
  r.first_in_process = first_size;
  std::fprintf(stderr, "  %-34s %12.6f s  (once)\n",
               first_size ? "model setup, first in the process" : "model setup, first at this n",
               r.model_setup_first);
  // Each run builds a model untimed, so the repeats are counted, not timed to min_seconds.
  const Plan release_plan{0, config.repeats, config.repeats, 0.0};
  r.model_release = measure("model release (destructor)", release_plan, config, [&] {
    model = coreset::models::make_model(data, model_options, config.seed, {}, kInPlace);
    const auto t = Clock::now();
    model = coreset::models::Model();
    return seconds_since(t);
  });
  const auto time_setup = [&](coreset::models::CovariateStorage storage) {
    model = coreset::models::Model();
    const auto t = Clock::now();
    model = coreset::models::make_model(data, model_options, config.seed, {}, storage);
    return seconds_since(t);
  };
  r.model_setup_copied = measure("model setup (covariates copied)", stage_plan, config,
                                 [&] { return time_setup(kCopied); });
  r.model_setup = measure("model setup (covariates in place)", stage_plan, config,
                          [&] { return time_setup(kInPlace); });
  r.d = model.dim();
  r.samples = config.samples;

  coreset::posterior::LaplaceFit fit;
  r.laplace = measure("laplace fit", stage_plan, config, [&] {
    const auto t = Clock::now();
    fit = coreset::posterior::laplace(model, nullptr);
    return seconds_since(t);
  });
  {
    // Off for this measurement alone, back on however it ends.
    struct PrefetchOff {
      PrefetchOff() { coreset::models::row_sums_prefetch() = false; }
      ~PrefetchOff() { coreset::models::row_sums_prefetch() = true; }
    } prefetch_off;
    coreset::posterior::LaplaceFit plain;
    r.laplace_no_prefetch = measure("laplace fit, no prefetch", stage_plan, config, [&] {
      const auto t = Clock::now();
      plain = coreset::posterior::laplace(model, nullptr);
      return seconds_since(t);
    });
    // Prefetching moves no data: the same fit to the bit, or the measurement is of a fault.
    if (plain.posterior.mean != fit.posterior.mean ||
        plain.posterior.covariance != fit.posterior.covariance) {
      throw std::runtime_error("the fit without prefetching differs from the fit with it");
    }
  }
  r.laplace_iterations = fit.iterations;
  r.laplace_passes = fit.full_evaluations + fit.value_evaluations;
  r.laplace_gradient_norm = fit.gradient_norm;
  r.design_pass = measure("one pass over the design", stage_plan, config, [&] {
    const Eigen::VectorXd mode = fit.posterior.mean;
    const auto t = Clock::now();
    const coreset::models::RowSums sums = coreset::models::sum_over_rows(
        model.design, false, false,
        [&](index_t, const coreset::models::simd::RowBlock& block, Eigen::VectorXd& g,
            Eigen::VectorXd&) {
          // The predictors into g (the block's own scratch).
          coreset::models::simd::linear_predictors(block, mode.data(), g.data());
          return g.sum();
        });
    const double elapsed = seconds_since(t);
    if (!std::isfinite(sums.value)) {
      throw std::runtime_error("the pass over the design gave a non-finite sum");
    }
    return elapsed;
  });
  r.laplace_mean.assign(fit.posterior.mean.data(),
                        fit.posterior.mean.data() + fit.posterior.mean.size());

  Eigen::MatrixXd samples;
  r.sampling = measure("sampling (S draws)", stage_plan, config, [&] {
    const auto t = Clock::now();
    samples = coreset::posterior::draw_samples(fit.posterior, config.samples, config.seed);
    return seconds_since(t);
  });

  const index_t count = config.samples * n;
  r.phi_bytes = count * static_cast<index_t>(sizeof(double));
  // Huge pages as the library's Phi has them (support::huge_pages_enabled()).
  Buffer buffer = allocate(count, coreset::support::huge_pages_enabled());
  write_store(buffer.get(), count, team);  // first touch, by the threads that write it later

  coreset::Matrix<double> phi;
  r.projection = measure("projection (library)", stage_plan, config, [&] {
    phi = coreset::Matrix<double>();  // free the previous run's Phi outside the timing
    const auto t = Clock::now();
    phi = coreset::cpu::projection<double>(model, samples, team);
    return seconds_since(t);
  });
  r.rounds = measure_rounds(model, samples, buffer.get(), phi, team, config, r.huge_bytes);

  // Where the projection's time goes, on the same buffer (already touched).
  r.product_link = measure("diag: product + link", stage_plan, config, [&] {
    const auto t = Clock::now();
    blocked_pass(model, samples, buffer.get(), team, Pass::link);
    return seconds_since(t);
  });
  r.product_centre = measure("diag: product + centring", stage_plan, config, [&] {
    const auto t = Clock::now();
    blocked_pass(model, samples, buffer.get(), team, Pass::centre);
    return seconds_since(t);
  });
  r.replica = measure("diag: replica (no allocation)", stage_plan, config, [&] {
    const auto t = Clock::now();
    blocked_pass(model, samples, buffer.get(), team, Pass::link_centre);
    return seconds_since(t);
  });
  r.replica_matches =
      std::memcmp(buffer.get(), phi.data(), static_cast<std::size_t>(count) * sizeof(double)) == 0;
  using coreset::support::Isa;
  for (Isa isa : {Isa::baseline, Isa::avx2, Isa::avx512}) {
    if (!coreset::support::supported(isa)) {
      continue;
    }
    const std::string name = coreset::support::isa_name(isa);
    r.link_by_isa.emplace_back(
        name, measure(("diag: product + link, " + name).c_str(), stage_plan, config, [&] {
          const auto t = Clock::now();
          blocked_pass(model, samples, buffer.get(), team, Pass::link, isa);
          return seconds_since(t);
        }));
  }
  buffer.reset();
  phi = coreset::Matrix<double>();
  phi = coreset::cpu::projection<double>(model, samples, team);  // for the solve

  coreset::SolverOptions solver;
  solver.algorithm = coreset::Algorithm::aiht2;
  solver.k = config.k;
  solver.max_iterations = config.max_iterations;
  solver.tolerance = config.tolerance;
  solver.threads = team;
  const Plan solve_plan{0, 3, 3, 0.0, config.solve_seconds};
  r.solve = measure("solve (a-iht-2)", solve_plan, config, [&] {
    const auto t = Clock::now();
    r.solve_result = coreset::solve(phi.view(), nullptr, solver);
    return seconds_since(t);
  });
  phi = coreset::Matrix<double>();

  if (config.end_to_end) {
    coreset::BuildOptions options;
    options.model = model_options;
    static_cast<coreset::SolverSettings&>(options.solver) = solver;  // the solve timed above
    options.solver.algorithm = coreset::to_build_algorithm(solver.algorithm);
    options.samples = config.samples;
    options.pihat = coreset::Pihat::laplace;
    options.seed = config.seed;
    const Plan once{0, 1, 1, 0.0};
    r.end_to_end = measure("end to end (build_coreset)", once, config, [&] {
      const auto t = Clock::now();
      const coreset::BuildResult result = coreset::build_coreset(data, options);
      const double seconds = seconds_since(t);
      r.end_to_end_stages = result.seconds;
      r.end_to_end_iterations = result.solve.iterations;
      return seconds;
    });
    r.end_to_end_run = true;
  }

  // The floor: the faster product and the faster write, each the median of the runs before and
  // after the projection together.
  for (int i = 0; i < kItems; ++i) {
    r.item[i] = spread_over(r.rounds, [i](const Round& round) { return round.seconds[i]; });
  }
  r.floor =
      spread_over(r.rounds, [](const Round& round) { return round.product() + round.write(); });
  r.ratio = spread_over(r.rounds, [](const Round& round) { return round.ratio(); });
  r.floor_fresh = spread_over(
      r.rounds, [](const Round& round) { return round.product() + round.seconds[kFreshWrite]; });
  r.ratio_fresh = spread_over(r.rounds, [](const Round& round) { return round.ratio_fresh(); });
  return r;
}

// ---- output ----

nlohmann::json to_json(const Round& round) {
  nlohmann::json seconds = nlohmann::json::object();
  for (int i = 0; i < kItems; ++i) {
    seconds[kItemNames[i]] = round.seconds[i];
  }
  return {{"seconds", seconds},
          {"ratio", round.ratio()},
          {"ratio_fresh", round.ratio_fresh()},
          {"attempts", round.attempts},
          {"interference", to_json(round.interference)}};
}

nlohmann::json to_json(const Record& r, const Config& config) {
  nlohmann::json link_json = nlohmann::json::object();
  for (const auto& [name, measurement] : r.link_by_isa) {
    link_json[name] = to_json(measurement);
  }
  const double gb = static_cast<double>(r.phi_bytes) / kBytesPerGB;
  nlohmann::json stages = {
      {"model_setup", to_json(r.model_setup)},
      {"model_setup_copied", to_json(r.model_setup_copied)},
      {"model_setup_first", r.model_setup_first},
      {"model_setup_first_in_process", r.first_in_process},
      {"model_release", to_json(r.model_release)},
      {"laplace",
       {{"timing", to_json(r.laplace)},
        {"design_pass", to_json(r.design_pass)},
        {"floor_seconds", r.laplace_iterations * r.design_pass.median},
        {"vs_floor", r.laplace.median / (r.laplace_iterations * r.design_pass.median)},
        {"newton_iterations", r.laplace_iterations},
        {"passes", r.laplace_passes},
        {"floor_seconds_its_passes", r.laplace_passes * r.design_pass.median},
        {"vs_floor_its_passes", r.laplace.median / (r.laplace_passes * r.design_pass.median)},
        {"no_prefetch", to_json(r.laplace_no_prefetch)},
        {"no_prefetch_vs_floor_its_passes",
         r.laplace_no_prefetch.median / (r.laplace_passes * r.design_pass.median)},
        {"gradient_norm", r.laplace_gradient_norm},
        {"mean", r.laplace_mean}}},
      {"sampling", to_json(r.sampling)},
      {"projection", to_json(r.projection)},
      {"solve",
       {{"timing", to_json(r.solve)},
        {"algorithm", "a-iht-2"},
        {"k", config.k},
        {"max_iterations", config.max_iterations},
        {"tolerance", config.tolerance},
        {"iterations", r.solve_result.iterations},
        {"stop_reason", coreset::to_string(r.solve_result.stop_reason)},
        {"converged", r.solve_result.converged},
        {"relative_error", r.solve_result.relative_error},
        {"coreset_size", r.solve_result.coreset.size()},
        {"seconds_per_iteration",
         r.solve_result.iterations > 0 ? r.solve.median / r.solve_result.iterations : 0.0}}}};
  nlohmann::json rounds = nlohmann::json::array();
  for (const Round& round : r.rounds) {
    rounds.push_back(to_json(round));
  }
  nlohmann::json items = nlohmann::json::object();
  for (int i = 0; i < kItems; ++i) {
    items[kItemNames[i]] = to_json(r.item[i]);
  }
  const bool met = r.ratio.median <= kGoalRatio && r.ratio_fresh.median <= kGoalRatio;
  const nlohmann::json floor_json = {{"rounds", rounds},
                                     {"seconds_over_rounds", items},
                                     {"write_stores_gb_per_s", gb / r.item[kWriteStores].median},
                                     {"write_memset_gb_per_s", gb / r.item[kWriteMemset].median},
                                     {"fresh_write_gb_per_s", gb / r.item[kFreshWrite].median},
                                     {"floor_seconds", to_json(r.floor)},
                                     {"ratio", to_json(r.ratio)},
                                     {"floor_fresh_seconds", to_json(r.floor_fresh)},
                                     {"ratio_fresh", to_json(r.ratio_fresh)},
                                     {"goal_ratio", kGoalRatio},
                                     {"meets_goal", met}};
  nlohmann::json out = {
      {"n", r.n},
      {"d", r.d},
      {"samples", config.samples},
      {"phi_bytes", r.phi_bytes},
      {"positive_label_fraction", r.positive_fraction},
      {"data_generation_seconds", r.generate_seconds},
      {"stages", stages},
      {"floor", floor_json},
      {"diagnostics",
       {{"product_plus_link", to_json(r.product_link)},
        {"product_plus_centring", to_json(r.product_centre)},
        {"replica_without_allocation", to_json(r.replica)},
        {"replica_matches_library_bitwise", r.replica_matches},
        {"anon_huge_page_bytes_with_a_fresh_phi", r.huge_bytes},
        {"link_isa_active", coreset::support::isa_name(coreset::support::active_isa())},
        {"product_plus_link_by_isa", link_json},
        {"link_seconds_estimate", r.product_link.median - r.item[kProductBlocked].median},
        {"link_evaluations_per_second",
         static_cast<double>(r.n * config.samples) /
             std::max(1e-12, r.product_link.median - r.item[kProductBlocked].median)}}}};
  if (r.end_to_end_run) {
    out["end_to_end"] = {{"timing", to_json(r.end_to_end)},
                         {"stage_seconds",
                          {{"setup", r.end_to_end_stages.setup},
                           {"pihat", r.end_to_end_stages.pihat},
                           {"sampling", r.end_to_end_stages.sampling},
                           {"projection", r.end_to_end_stages.projection},
                           {"solve", r.end_to_end_stages.solve},
                           {"evaluation", r.end_to_end_stages.evaluation},
                           {"total", r.end_to_end_stages.total()}}},
                         {"solve_iterations", r.end_to_end_iterations}};
  }
  return out;
}

const char* mark(const Measurement& m) {
  return disturbed(m.interference) ? "!" : "";
}

void print_tables(const std::vector<Record>& records) {
  std::printf("\nStages (median seconds; ! = other processes used > 5%% of the CPUs: DISTURBED)\n");
  std::printf("%9s %11s %11s %11s %11s %7s %9s %9s\n", "n", "laplace", "sampling", "projection",
              "solve", "iters", "stop", "e2e");
  for (const Record& r : records) {
    char e2e[32] = "-";
    if (r.end_to_end_run) {
      std::snprintf(e2e, sizeof e2e, "%.3f%s", r.end_to_end.median, mark(r.end_to_end));
    }
    std::printf("%9lld %10.4f%1s %10.6f%1s %10.4f%1s %10.3f%1s %7d %9s %9s\n",
                static_cast<long long>(r.n), r.laplace.median, mark(r.laplace), r.sampling.median,
                mark(r.sampling), r.projection.median, mark(r.projection), r.solve.median,
                mark(r.solve), r.solve_result.iterations,
                coreset::to_string(r.solve_result.stop_reason).c_str(), e2e);
  }
  std::printf(
      "\nLaplace vs floor = one pass over the design per Newton iteration (goal <= 2), and per "
      "pass the fit takes\n");
  std::printf("%9s %11s %11s %7s %9s %7s %9s %13s %9s\n", "n", "laplace", "pass", "iters", "ratio",
              "passes", "ratio", "no prefetch", "ratio");
  for (const Record& r : records) {
    const double its_passes = r.laplace_passes * r.design_pass.median;
    std::printf("%9lld %11.4f %11.5f %7d %9.2f %7d %9.2f %13.4f %9.2f\n",
                static_cast<long long>(r.n), r.laplace.median, r.design_pass.median,
                r.laplace_iterations,
                r.laplace.median / (r.laplace_iterations * r.design_pass.median), r.laplace_passes,
                r.laplace.median / its_passes, r.laplace_no_prefetch.median,
                r.laplace_no_prefetch.median / its_passes);
  }
  std::printf(
      "\nProjection vs floor = product + one write of Phi (goal <= %.1f), like for like, in "
      "interleaved rounds (median seconds over rounds; ratio: median over rounds [min, max])\n",
      kGoalRatio);
  std::printf("%9s %9s %9s %9s %9s %7s %9s %11s %s\n", "n", "prod blk", "prod full", "write st",
              "write ms", "GB/s", "floor", "proj_into", "ratio (resident)");
  for (const Record& r : records) {
    const double gb = static_cast<double>(r.phi_bytes) / kBytesPerGB;
    std::printf("%9lld %9.4f %9.4f %9.4f %9.4f %7.2f %9.4f %11.4f %.2f [%.2f, %.2f] %s\n",
                static_cast<long long>(r.n), r.item[kProductBlocked].median,
                r.item[kProductFull].median, r.item[kWriteStores].median,
                r.item[kWriteMemset].median, gb / r.item[kWriteStores].median, r.floor.median,
                r.item[kProjectionResident].median, r.ratio.median, r.ratio.min, r.ratio.max,
                r.ratio.median <= kGoalRatio ? "met" : "MISSED");
  }
  std::printf("%9s %9s %9s %9s %11s %s\n", "n", "product", "fresh wr", "floor", "projection",
              "ratio (fresh)");
  for (const Record& r : records) {
    std::printf("%9lld %9.4f %9.4f %9.4f %11.4f %.2f [%.2f, %.2f] %s\n",
                static_cast<long long>(r.n),
                std::min(r.item[kProductBlocked].median, r.item[kProductFull].median),
                r.item[kFreshWrite].median, r.floor_fresh.median, r.item[kProjectionFresh].median,
                r.ratio_fresh.median, r.ratio_fresh.min, r.ratio_fresh.max,
                r.ratio_fresh.median <= kGoalRatio ? "met" : "MISSED");
  }
  std::printf(
      "\nWhere the projection's time goes (median seconds): blocked passes over the preallocated "
      "buffer, each product + the named work, and the allocation of a fresh Phi\n");
  std::printf("%9s %9s %9s %9s %9s %9s %9s %10s\n", "n", "product", "+link", "+centre", "+link+ctr",
              "alloc", "sum", "projection");
  for (const Record& r : records) {
    std::printf("%9lld %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %10.4f %s\n",
                static_cast<long long>(r.n), r.item[kProductBlocked].median, r.product_link.median,
                r.product_centre.median, r.replica.median, r.item[kFreshWrite].median,
                r.replica.median + r.item[kFreshWrite].median, r.projection.median,
                r.replica_matches ? "" : "(the +link+ctr replica differs from the library's Phi)");
  }
  std::printf("\nThe link by instruction set, each product + link (median seconds; active: %s)\n",
              coreset::support::isa_name(coreset::support::active_isa()));
  for (const Record& r : records) {
    std::printf("%9lld", static_cast<long long>(r.n));
    for (const auto& [name, measurement] : r.link_by_isa) {
      std::printf("  %s %.4f%s (%.3g evals/s)", name.c_str(), measurement.median, mark(measurement),
                  static_cast<double>(r.n * r.samples) /
                      std::max(1e-12, measurement.median - r.item[kProductBlocked].median));
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

std::vector<const Measurement*> all_measurements(const Record& r) {
  std::vector<const Measurement*> list = {
      &r.model_setup,
      &r.model_setup_copied,
      &r.model_release,
      &r.laplace,
      &r.laplace_no_prefetch,
      &r.sampling,
      &r.projection,
      &r.product_link,
      &r.product_centre,
      &r.replica,
      &r.solve,
  };
  for (const auto& entry : r.link_by_isa) {
    list.push_back(&entry.second);
  }
  if (r.end_to_end_run) {
    list.push_back(&r.end_to_end);
  }
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"bench_build_stages: seconds per stage of build_coreset, synthetic logistic data"};
  app.add_option("--sizes", config.sizes, "comma-separated n values (e.g. 1e4,1e5,1e6)")
      ->delimiter(',');
  app.add_option("--samples", config.samples, "S, the number of posterior samples")
      ->check(CLI::Range(2, 100000));
  app.add_option("--covariates", config.covariates, "D covariates (d = D + 1 with the intercept)")
      ->check(CLI::PositiveNumber);
  app.add_option("--k", config.k, "coreset size")->check(CLI::PositiveNumber);
  app.add_option("--max-iter", config.max_iterations, "solver iteration cap")
      ->check(CLI::PositiveNumber);
  app.add_option("--tolerance", config.tolerance, "solver tolerance")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--rounds", config.rounds,
                 "interleaved rounds of the floor against the projection (>= 1)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--repeats", config.repeats, "least timed repeats per measurement (>= 3)")
      ->check(CLI::Range(3, 1000));
  app.add_option("--min-seconds", config.min_seconds,
                 "repeat short measurements until their timed runs add up to this")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--solve-seconds", config.solve_seconds,
                 "up to 3 timed solves, none started once they add up to this")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", config.threads, "threads, 0 = all")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", config.seed, "seed of the data and of the samples");
  app.add_flag("!--no-end-to-end", config.end_to_end, "skip the build_coreset run per n");
  app.add_option("--max-wait", config.max_wait,
                 "seconds to wait for other processes to go quiet before a measurement")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--retries", config.retries, "re-measurements of a disturbed measurement")
      ->check(CLI::Range(0, 100));
  app.add_option("--json", config.json_path, "write the results as JSON to this file");
  app.add_option("--commit", config.commit, "git commit being measured (recorded in the JSON)");
  CLI11_PARSE(app, argc, argv);

  std::vector<index_t> sizes;
  const auto parsed = parse_sizes("bench_build_stages", config.sizes);
  if (!parsed) {
    return 2;
  }
  for (const index_t size : *parsed) {
    if (size < config.k) {
      std::fprintf(stderr, "bench_build_stages: n = %lld is smaller than k\n",
                   static_cast<long long>(size));
      return 2;
    }
    sizes.push_back(size);
  }
  const int team = config.threads > 0 ? config.threads : omp_get_max_threads();
  const coreset::BuildInfo build = coreset::build_info();

  nlohmann::json out;
  out["benchmark"] = "bench_build_stages";
  out["date_utc"] = utc_now();
  out["commit"] = config.commit.empty() ? nlohmann::json() : nlohmann::json(config.commit);
  out["machine"] = machine_json(team);
  out["machine"]["huge_pages"] = coreset::bench::huge_pages_record();
  out["build"] = {{"coreset_version", build.version},
                  {"compiler", build.compiler},
                  {"build_type", build.build_type},
                  {"openmp", build.openmp},
                  {"eigen_version", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                        std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                        std::to_string(EIGEN_MINOR_VERSION)},
                  {"cxx_flags", CORESET_BENCH_CXX_FLAGS}};
  out["config"] = {{"problem",
                    "synthetic logistic: x ~ N(0, I_D), theta alternating +-2/sqrt(D), intercept "
                    "0, labels drawn from the model"},
                   {"covariates", config.covariates},
                   {"parameters", config.covariates + 1},
                   {"samples", config.samples},
                   {"sizes", sizes},
                   {"pihat", "laplace"},
                   {"prior_sd", 1.0},
                   {"algorithm", "a-iht-2"},
                   {"k", config.k},
                   {"max_iterations", config.max_iterations},
                   {"tolerance", config.tolerance},
                   {"repeats", config.repeats},
                   {"rounds", config.rounds},
                   {"min_seconds", config.min_seconds},
                   {"solve_seconds", config.solve_seconds},
                   {"seed", config.seed},
                   {"library_block", coreset::cpu::projection_block_width(config.samples)},
                   {"disturbed_share", kDisturbedShare},
                   {"retries", config.retries},
                   {"max_wait_seconds", config.max_wait},
                   {"goal_ratio", kGoalRatio},
                   {"gb", "1e9 bytes"}};

  std::printf(
      "bench_build_stages: %s, %d threads, D=%lld covariates + intercept (d=%lld), S=%lld, "
      "k=%lld, a-iht-2 (max %d iterations, tol %g), %s\n",
      out["machine"]["cpu_model"].get<std::string>().c_str(), team,
      static_cast<long long>(config.covariates), static_cast<long long>(config.covariates + 1),
      static_cast<long long>(config.samples), static_cast<long long>(config.k),
      config.max_iterations, config.tolerance, build.compiler.c_str());
  std::fflush(stdout);

  std::vector<Record> records;
  try {
    for (const index_t n : sizes) {
      records.push_back(run_size(n, config, team, records.empty()));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_build_stages: %s\n", error.what());
    return 1;
  }
  print_tables(records);

  int disturbed_count = 0;
  int unknown_count = 0;
  for (const Record& r : records) {
    for (const Measurement* m : all_measurements(r)) {
      if (disturbed(m->interference)) {
        ++disturbed_count;
        std::printf("DISTURBED: n=%lld %s (other CPU %s)\n", static_cast<long long>(r.n),
                    m->name.c_str(), format_share(m->interference.foreign_share).c_str());
      } else if (std::isnan(m->interference.foreign_share)) {
        ++unknown_count;
      }
    }
    for (std::size_t i = 0; i < r.rounds.size(); ++i) {
      const Interference& seen = r.rounds[i].interference;
      if (disturbed(seen)) {
        ++disturbed_count;
        std::printf("DISTURBED: n=%lld round %zu (other CPU %s)\n", static_cast<long long>(r.n),
                    i + 1, format_share(seen.foreign_share).c_str());
      } else if (std::isnan(seen.foreign_share)) {
        ++unknown_count;
      }
    }
  }
  if (disturbed_count == 0) {
    std::printf(
        "\nclean: no measurement had other processes above %.0f%% of the CPUs (%d too short to "
        "tell)\n",
        100.0 * kDisturbedShare, unknown_count);
  } else {
    std::printf("\nNOT CLEAN: %d measurement(s) disturbed; do not report them as clean\n",
                disturbed_count);
  }

  out["machine"]["load_average_at_end"] = load_average();
  out["clean"] = disturbed_count == 0;
  out["disturbed_measurements"] = disturbed_count;
  out["too_short_to_tell"] = unknown_count;
  out["records"] = nlohmann::json::array();
  for (const Record& record : records) {
    out["records"].push_back(to_json(record, config));
  }
  if (!config.json_path.empty()) {
    std::ofstream file(config.json_path);
    file << out.dump(2) << '\n';
    if (!file) {
      std::fprintf(stderr, "bench_build_stages: cannot write %s\n", config.json_path.c_str());
      return 1;
    }
    std::printf("wrote %s\n", config.json_path.c_str());
  }
  return 0;
}
