// bench_row_blocks: what the Laplace fit's work on one 256-row block of the design costs, kernel
// by kernel and per instruction set (models/simd/row_block.hpp), on one thread, against what
// reading the block from memory costs. The fit's sums (models/row_sums.hpp) run these kernels on
// every block of every pass, so this says whether a pass is bound by the reads or by the
// arithmetic, and which kernel to work on.
//
// Each kernel is timed on one block that stays in the L1 cache (the arithmetic alone), the median
// of --repeats rounds of --calls calls. The read is the linear predictors of every block of an
// n x d design (n = --rows, larger than the caches), one thread, per block: the benchmark's floor
// for a pass, per block and core. The full pass is the fit's own pass over that design
// (models::exact_link_sums, one thread, the active instruction set), with and without the sums
// prefetching the next block: whether reading a block and working on it add up or overlap.
//
// Then the same work on 1, 2, 4, ... threads at once (--scaling, on by default): each thread's
// arithmetic on its own L1-resident block, the read and the fit's full pass over the design, per
// block and thread. Where one thread's time per block grows with the threads while the design
// stays in the caches, the threads share something other than memory: a core's execution units
// (vCPUs that are one core's hyperthreads) or its clock (a lower all-core frequency). The fit on
// the GPU hosts' 16 vCPUs took about twice one thread's time per block (bench/README.md), which
// one thread alone cannot tell. Other processes' share of the CPUs is reported beside each
// measurement (bench_machine.hpp).
#include <omp.h>

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_machine.hpp"
#include "coreset/types.hpp"
#include "models/model.hpp"
#include "models/row_offsets.hpp"
#include "models/row_sums.hpp"
#include "models/simd/row_block.hpp"
#include "support/exact_sum.hpp"
#include "support/isa.hpp"

namespace {

using coreset::index_t;
using coreset::bench::Clock;
using coreset::models::simd::RowBlock;
using coreset::support::Isa;

struct Config {
  index_t cols = 10;
  index_t rows = 1000000;
  int repeats = 15;
  int calls = 2000;
  bool scaling = true;
  std::string json;
};

struct Timing {
  double ns_per_block = 0.0;
  double other_cpu_share = 0.0;
};

/// The median over `repeats` rounds of the time of one of `calls` calls of f, in ns.
template <class F>
Timing time_calls(int repeats, int calls, F&& f) {
  std::vector<double> rounds;
  const coreset::bench::CpuSample before = coreset::bench::sample_cpu();
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    for (int c = 0; c < calls; ++c) {
      f();
    }
    rounds.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                     calls);
  }
  const coreset::bench::Interference load =
      coreset::bench::interference(before, coreset::bench::sample_cpu());
  return {coreset::bench::median(rounds), load.foreign_share};
}

std::vector<double> normal_values(index_t count, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& v : values) {
    v = normal(rng);
  }
  return values;
}

volatile double g_sink = 0.0;  // keeps the timed results alive

/// The team sizes of the scaling runs: 1, 2, 4, ... below `threads`, then `threads`.
std::vector<int> team_sizes(int threads) {
  std::vector<int> sizes;
  for (int t = 1; t < threads; t *= 2) {
    sizes.push_back(t);
  }
  sizes.push_back(threads);
  return sizes;
}

/// The larger of two other-CPU shares; NaN ("n/a") only where both are (too short to tell).
double larger_share(double a, double b) {
  return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
}

/// The read, the benchmark's floor: the linear predictors of every block of the n x d design
/// (one call per round), split over `teams` threads in runs of blocks; ns per block and thread.
Timing time_read(const Config& config, Isa isa, const std::vector<double>& design,
                 const std::vector<double>& theta, int teams) {
  const index_t rows = coreset::models::kRowSumBlock;
  const index_t n = config.rows;
  const index_t blocks = (n + rows - 1) / rows;
  Timing read = time_calls(config.repeats, 1, [&] {
    double sum = 0.0;
#pragma omp parallel num_threads(teams) reduction(+ : sum)
    {
      std::vector<double> a(static_cast<std::size_t>(rows));
#pragma omp for schedule(static)
      for (index_t b = 0; b < blocks; ++b) {
        const index_t start = b * rows;
        const RowBlock part{design.data() + start, n, std::min(rows, n - start), config.cols};
        coreset::models::simd::linear_predictors(isa, part, theta.data(), a.data());
        sum += a[0];
      }
    }
    g_sink = sum;
  });
  read.ns_per_block *= static_cast<double>(teams) / static_cast<double>(blocks);
  return read;
}

/// The fit's own full pass over the design (models::exact_link_sums, the active instruction
/// set) on `teams` threads; ns per block and thread.
Timing time_full_pass(const Config& config, const coreset::models::Model& model,
                      const Eigen::VectorXd& theta, int teams) {
  const index_t blocks =
      (config.rows + coreset::models::kRowSumBlock - 1) / coreset::models::kRowSumBlock;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(teams);
  Timing pass = time_calls(config.repeats, 1, [&] {
    g_sink = coreset::models::exact_link_sums(model, 0, config.rows, theta, true, true)[0].value();
  });
  omp_set_num_threads(threads);
  pass.ns_per_block *= static_cast<double>(teams) / static_cast<double>(blocks);
  return pass;
}

/// `teams` threads each call f(thread) `calls` times, all at once (they start together after a
/// barrier); the median over `repeats` rounds of the wall time per call, in ns: one thread's time
/// per call while the others run beside it.
template <class F>
Timing time_side_by_side(int teams, int repeats, int calls, F&& f) {
  std::vector<double> rounds;
  const coreset::bench::CpuSample before = coreset::bench::sample_cpu();
  for (int r = 0; r < repeats; ++r) {
    Clock::time_point start;
    Clock::time_point end;
#pragma omp parallel num_threads(teams)
    {
      const int thread = omp_get_thread_num();
#pragma omp barrier
#pragma omp master
      start = Clock::now();
      for (int c = 0; c < calls; ++c) {
        f(thread);
      }
#pragma omp barrier
#pragma omp master
      end = Clock::now();
    }
    rounds.push_back(std::chrono::duration<double, std::nano>(end - start).count() / calls);
  }
  const coreset::bench::Interference load =
      coreset::bench::interference(before, coreset::bench::sample_cpu());
  return {coreset::bench::median(rounds), load.foreign_share};
}

/// One thread's buffers for a block evaluation in the scaling runs: its own copy of the block
/// (L1-resident), the link's terms, the sums and the exact accumulators.
struct Workspace {
  Workspace(const std::vector<double>& block_values, index_t rows, index_t d)
      : block(block_values),
        a(rows),
        value(rows),
        first(rows),
        second(rows),
        vector(d),
        upper(d * (d + 1) / 2),
        exact(static_cast<std::size_t>(coreset::models::row_sum_accumulators(d, true, true))) {}
  std::vector<double> block, a, value, first, second, vector, upper;
  std::vector<coreset::support::ExactSum> exact;
};

/// The scaling runs (see the header): at each team size, one thread's time per block for the
/// whole evaluation of an L1-resident block (predictors, link, both sums, exact adds) on AVX2 and
/// AVX-512 (where supported), for the read of the design, and for the fit's full pass over it.
nlohmann::json thread_scaling(const Config& config, const coreset::models::Model& model,
                              const std::vector<double>& theta, const std::vector<double>& y,
                              const std::vector<double>& design) {
  namespace simd = coreset::models::simd;
  const index_t rows = coreset::models::kRowSumBlock;
  const index_t d = config.cols;
  const index_t n = config.rows;
  const std::vector<double> block_values = normal_values(rows * d, 1.0, 6);
  std::vector<Isa> isas;
  for (const Isa isa : {Isa::avx2, Isa::avx512}) {
    if (coreset::support::supported(isa)) {
      isas.push_back(isa);
    }
  }
  if (isas.empty()) {
    isas.push_back(Isa::baseline);
  }
  const Eigen::VectorXd theta_vector = Eigen::Map<const Eigen::VectorXd>(theta.data(), d);
  const int threads = omp_get_max_threads();
  std::printf(
      "\nThe same work on several threads at once: ns per block and thread (a thread's time per\n"
      "block while the others run beside it); the evaluation on one L1-resident block per thread,\n"
      "the read and the fit's full pass (%s) over the %lld-row design\n",
      coreset::support::isa_name(coreset::support::active_isa()), static_cast<long long>(n));
  std::printf("%8s", "threads");
  for (const Isa isa : isas) {
    std::printf(" %18s", (std::string("evaluation ") + coreset::support::isa_name(isa)).c_str());
  }
  std::printf(" %11s %11s %9s\n", "read", "full pass", "other CPU");
  nlohmann::json results = nlohmann::json::array();
  for (const int teams : team_sizes(threads)) {
    // Each thread's buffers made by that thread, so that they lie near it.
    std::vector<std::unique_ptr<Workspace>> spaces(static_cast<std::size_t>(teams));
#pragma omp parallel num_threads(teams)
    spaces[static_cast<std::size_t>(omp_get_thread_num())] =
        std::make_unique<Workspace>(block_values, rows, d);
    nlohmann::json row = {{"threads", teams}};
    std::printf("%8d", teams);
    double other = std::nan("");
    for (const Isa isa : isas) {
      const Timing evaluation = time_side_by_side(teams, config.repeats, config.calls, [&](int t) {
        Workspace& w = *spaces[static_cast<std::size_t>(t)];
        const RowBlock block{w.block.data(), rows, rows, d};
        simd::linear_predictors(isa, block, theta.data(), w.a.data());
        simd::logistic_link_terms(isa, w.a.data(), y.data(), rows, w.value.data(), w.first.data(),
                                  w.second.data());
        simd::weighted_row_sums(isa, block, w.first.data(), w.second.data(), w.vector.data(),
                                w.upper.data());
        for (std::size_t i = 0; i < w.exact.size(); ++i) {
          w.exact[i].add(w.upper[i % w.upper.size()]);
        }
      });
      other = larger_share(other, evaluation.other_cpu_share);
      std::printf(" %18.0f", evaluation.ns_per_block);
      row[std::string("evaluation_ns_") + coreset::support::isa_name(isa)] =
          evaluation.ns_per_block;
    }
    const Timing read = time_read(config, coreset::support::active_isa(), design, theta, teams);
    const Timing pass = time_full_pass(config, model, theta_vector, teams);
    other = larger_share(other, larger_share(read.other_cpu_share, pass.other_cpu_share));
    std::printf(" %11.0f %11.0f %9s\n", read.ns_per_block, pass.ns_per_block,
                coreset::bench::format_share(other).c_str());
    row["read_ns"] = read.ns_per_block;
    row["full_pass_ns"] = pass.ns_per_block;
    row["other_cpu_share"] = other;
    results.push_back(row);
  }
  return results;
}
}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"bench_row_blocks: the Laplace fit's kernels per 256-row block, one thread"};
  app.add_option("--cols", config.cols, "d, the design's columns")->check(CLI::PositiveNumber);
  app.add_option("--rows", config.rows, "n of the design read from memory")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", config.repeats, "rounds per measurement (median)")
      ->check(CLI::Range(3, 1000));
  app.add_option("--calls", config.calls, "calls per round")->check(CLI::Range(1, 1000000));
  app.add_option("--json", config.json, "write the results as JSON to this file");
  app.add_flag("!--no-scaling", config.scaling,
               "skip the same work on 1, 2, 4, ... threads at once");
  CLI11_PARSE(app, argc, argv);

  const index_t rows = coreset::models::kRowSumBlock;
  const index_t d = config.cols;
  const std::vector<double> block_data = normal_values(rows * d, 1.0, 1);
  const RowBlock block{block_data.data(), rows, rows, d};
  const std::vector<double> theta = normal_values(d, 0.3, 2);
  std::vector<double> y(static_cast<std::size_t>(rows));
  for (index_t j = 0; j < rows; ++j) {
    y[static_cast<std::size_t>(j)] = j % 3 == 0 ? -1.0 : 1.0;
  }
  std::vector<double> a(rows), value(rows), first(rows), second(rows), vector(d),
      upper(d * (d + 1) / 2);
  const std::vector<double> g = normal_values(rows, 1.0, 3);
  std::vector<double> c = normal_values(rows, 1.0, 4);
  for (double& x : c) {
    x = std::abs(x);
  }
  // The design read from memory: column-major n x d, larger than the caches.
  const index_t n = config.rows;
  const std::vector<double> design = normal_values(n * d, 1.0, 5);

  std::printf("bench_row_blocks: %s, one thread, d = %lld, blocks of %lld rows; ns per block\n",
              coreset::bench::read_first_field("/proc/cpuinfo", "model name").c_str(),
              static_cast<long long>(d), static_cast<long long>(rows));
  std::printf("%-9s %11s %11s %11s %11s %11s %11s %14s %9s\n", "isa", "predictors", "link", "g^T Z",
              "Z^T C Z", "both", "exact adds", "read (n rows)", "other CPU");
  nlohmann::json results = nlohmann::json::array();
  for (const Isa isa : {Isa::baseline, Isa::avx2, Isa::avx512}) {
    if (!coreset::support::supported(isa)) {
      continue;
    }
    namespace simd = coreset::models::simd;
    const Timing predictors = time_calls(config.repeats, config.calls, [&] {
      simd::linear_predictors(isa, block, theta.data(), a.data());
      g_sink = a[7];
    });
    const Timing link = time_calls(config.repeats, config.calls, [&] {
      simd::logistic_link_terms(isa, a.data(), y.data(), rows, value.data(), first.data(),
                                second.data());
      g_sink = second[7];
    });
    const Timing gradient = time_calls(config.repeats, config.calls, [&] {
      simd::weighted_row_sums(isa, block, g.data(), nullptr, vector.data(), nullptr);
      g_sink = vector[0];
    });
    const Timing hessian = time_calls(config.repeats, config.calls, [&] {
      simd::weighted_row_sums(isa, block, nullptr, c.data(), nullptr, upper.data());
      g_sink = upper[0];
    });
    // What a full evaluation asks for: both sums in one call (the Hessian's diagonal tiles take
    // the gradient from the columns they load).
    const Timing both = time_calls(config.repeats, config.calls, [&] {
      simd::weighted_row_sums(isa, block, g.data(), c.data(), vector.data(), upper.data());
      g_sink = upper[0] + vector[0];
    });
    // What the sums add exactly per block: the value, the gradient and the upper triangle.
    std::vector<coreset::support::ExactSum> accumulators(
        static_cast<std::size_t>(coreset::models::row_sum_accumulators(d, true, true)));
    const Timing exact = time_calls(config.repeats, config.calls, [&] {
      for (std::size_t i = 0; i < accumulators.size(); ++i) {
        accumulators[i].add(upper[i % upper.size()]);
      }
    });
    const Timing read = time_read(config, isa, design, theta, 1);
    // The largest share measured.
    double other = std::nan("");
    for (const double share : {predictors.other_cpu_share, link.other_cpu_share,
                               gradient.other_cpu_share, hessian.other_cpu_share,
                               both.other_cpu_share, exact.other_cpu_share, read.other_cpu_share}) {
      other = larger_share(other, share);
    }
    std::printf("%-9s %11.0f %11.0f %11.0f %11.0f %11.0f %11.0f %14.0f %9s\n",
                coreset::support::isa_name(isa), predictors.ns_per_block, link.ns_per_block,
                gradient.ns_per_block, hessian.ns_per_block, both.ns_per_block, exact.ns_per_block,
                read.ns_per_block, coreset::bench::format_share(other).c_str());
    results.push_back({{"isa", coreset::support::isa_name(isa)},
                       {"predictors_ns", predictors.ns_per_block},
                       {"logistic_link_ns", link.ns_per_block},
                       {"gradient_sums_ns", gradient.ns_per_block},
                       {"hessian_sums_ns", hessian.ns_per_block},
                       {"both_sums_ns", both.ns_per_block},
                       {"exact_adds_ns", exact.ns_per_block},
                       {"read_ns_per_block", read.ns_per_block},
                       {"other_cpu_share", other}});
  }
  // A full evaluation's pass over the whole design as one thread of the fit takes it: the
  // library's own sums over the rows (models::exact_link_sums, on a logistic model of that design,
  // with the active instruction set), without and with the sums prefetching the next block
  // (models::row_sums_prefetch). Near the read plus the arithmetic above, the two add up.
  coreset::models::Model model;
  model.design = coreset::models::Design::borrowed(design.data(), n, d, n, false);
  model.response.resize(n);
  for (index_t j = 0; j < n; ++j) {
    model.response[j] = j % 3 == 0 ? -1.0 : 1.0;
  }
  model.offset = coreset::models::RowOffsets::shared(n, 0.0);
  model.prior_precision = Eigen::MatrixXd::Identity(d, d);
  const Eigen::VectorXd theta_vector = Eigen::Map<const Eigen::VectorXd>(theta.data(), d);
  coreset::models::row_sums_prefetch() = false;
  const Timing pass = time_full_pass(config, model, theta_vector, 1);
  coreset::models::row_sums_prefetch() = true;  // left on, the library's default
  const Timing prefetching = time_full_pass(config, model, theta_vector, 1);
  const char* active = coreset::support::isa_name(coreset::support::active_isa());
  const double pass_other = larger_share(pass.other_cpu_share, prefetching.other_cpu_share);
  std::printf(
      "\nfull pass (%s, the fit's own sums over the n rows): %.0f ns per block, %.0f "
      "prefetching the next block (other CPU %s)\n",
      active, pass.ns_per_block, prefetching.ns_per_block,
      coreset::bench::format_share(pass_other).c_str());
  std::printf(
      "\nA full evaluation of the fit runs the predictors, the link, both sums and the exact adds\n"
      "on every block; the read column is the floor's share of it. Arithmetic above the read\n"
      "means the pass is compute-bound. The full pass is all of it over every block of the n\n"
      "rows; near read + arithmetic, the reading and the arithmetic add up.\n");
  const nlohmann::json scaling =
      config.scaling ? thread_scaling(config, model, theta, y, design) : nlohmann::json::array();
  if (!config.json.empty()) {
    const nlohmann::json out = {{"benchmark", "bench_row_blocks"},
                                {"date", coreset::bench::utc_now()},
                                {"machine", coreset::bench::machine_json(1)},
                                {"cols", d},
                                {"block_rows", rows},
                                {"design_rows", n},
                                {"results", results},
                                {"full_pass",
                                 {{"isa", active},
                                  {"ns_per_block", pass.ns_per_block},
                                  {"prefetching_ns_per_block", prefetching.ns_per_block},
                                  {"other_cpu_share", pass_other}}},
                                {"scaling", scaling}};
    std::ofstream(config.json) << out.dump(2) << "\n";
  }
  return 0;
}
