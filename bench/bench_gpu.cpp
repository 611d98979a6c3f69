// bench_gpu: the GPU engine against its floors, timed in one run on one device.
//
// Per (n, S): the device-to-device copy bandwidth (cudaMemcpy of a 2 GiB buffer, events; the
// traffic counted as bytes read + bytes written), the backend's dense pass Phi^T r and its
// achieved bandwidth as a fraction of that copy bandwidth (also each kernel that takes the
// columns timed alone on the same Phi and r: cuBLAS' gemv_64, the column tiles up to S = 1365,
// the streamed columns up to 1024, with the largest difference of our kernels' results from
// cuBLAS' relative to the largest entry), and the floor of an
// iteration, one read of Phi at the copy bandwidth. Per k: top-k of the n gradient entries, and the
// time of one A-IHT and one A-IHT II iteration, (T(21 + m) - T(21)) / m, both solves run to their
// caps (solvers::kRunToTheCap: no early stop at a fixed point) so every per-solve cost (upload-free
// here: Phi is generated on the device; the duplicate search; the host-loop iterations; the
// graph's recording) cancels. Medians of `--repeats` runs after one warm-up. Then the CPU backend
// on the same Phi at n = 1e6 for the speed-up, and optionally (--end-to-end) build_coreset on
// the GPU on synthetic logistic data, d = 20, k = 1000, at each N of --end-to-end-sizes (S = 500;
// S = 100 from N = 1e8), every stage beside its floor (bench_gpu_end_to_end.cpp). The JSON's
// end_to_end is the N = 1e7 case (else the last one run), end_to_end_cases all of them. With
// --primitives, each k's record has every primitive of an A-IHT II iteration timed alone in a
// CUDA graph, and an empty kernel node (bench_gpu_primitives.cpp), instead of the per-iteration
// solves.
//
// Writes one JSON document (--json) with the device, driver and runtime versions.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_gpu_end_to_end.hpp"
#include "bench_gpu_fill.hpp"
#include "bench_gpu_primitives.hpp"
#include "bench_gpu_timing.hpp"
#include "bench_huge_pages.hpp"
#include "bench_machine.hpp"
#include "coreset/build.hpp"
#include "coreset/solver.hpp"
#include "coreset/version.hpp"
#include "cpu/cpu_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/resources.hpp"
#include "kernels/check.hpp"
#include "kernels/launch.hpp"
#include "kernels/phi_t_r_kernel.hpp"
#include "kernels/radix_select_logic.hpp"
#include "solvers/iht_driver.hpp"
#include "solvers/stopping_rule.hpp"

namespace {

using coreset::index_t;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Config {
  std::vector<double> sizes{1e5, 1e6, 1e7, 1e8};
  std::vector<index_t> rows{100, 500};
  std::vector<index_t> budgets{100, 1000, 10000};
  int repeats = 5;
  int iterations = 20;
  bool end_to_end = false;
  std::vector<double> end_to_end_sizes{1e6, 1e7};
  bool cpu_comparison = true;
  bool primitives = false;
  std::string json_path;
};

// Device-to-device copy bandwidth in bytes/s, counting the bytes read and the bytes written.
double copy_bandwidth(coreset::cuda::Resources& res, int repeats) {
  const index_t bytes = index_t{2} << 30;
  coreset::kernels::DeviceBuffer<unsigned char> from(bytes);
  coreset::kernels::DeviceBuffer<unsigned char> to(bytes);
  CORESET_CUDA_TRY(cudaMemsetAsync(from.data(), 1, static_cast<std::size_t>(bytes), res.stream()));
  const double ms = coreset::bench::event_ms(res.stream(), repeats, [&] {
    CORESET_CUDA_TRY(cudaMemcpyAsync(to.data(), from.data(), static_cast<std::size_t>(bytes),
                                     cudaMemcpyDeviceToDevice, res.stream()));
  });
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3);
}

// A whole solve of `iterations` iterations (kRunToTheCap: it never stops early, even where the
// problem reaches a fixed point, which tolerance 0 would stop at), with the host
// looking every `sync_every` iterations (0: the backend's default): its seconds and the host's
// synchronisations with it (SolveResult::host_looks).
struct TimedSolve {
  double seconds = 0.0;
  int host_looks = 0;
};

template <class Backend>
TimedSolve timed_solve(Backend& backend, const typename Backend::SampleVector& y,
                       coreset::Algorithm a, index_t k, int iterations, int sync_every) {
  coreset::SolverOptions options;
  options.algorithm = a;
  options.k = k;
  options.max_iterations = iterations;
  options.tolerance = coreset::solvers::kRunToTheCap;
  options.sync_every = sync_every;
  const auto start = Clock::now();
  // Ends with a device read.
  const coreset::SolveResult result =
      coreset::solvers::IhtDriver<Backend>(backend, y, options).run();
  if (result.iterations != iterations) {
    throw std::runtime_error("bench_gpu: a timed solve ran " + std::to_string(result.iterations) +
                             " iterations, not " + std::to_string(iterations));
  }
  return {std::chrono::duration<double>(Clock::now() - start).count(), result.host_looks};
}

// The steady loop's cost per iteration: milliseconds, and the host's synchronisations as counted
// by the solves themselves.
struct PerIteration {
  double ms = 0.0;
  double host_looks = 0.0;
};

// (T(b + m) - T(b)) / m in milliseconds, medians over repeats, with b = 21: both solves pay the
// once-per-solve work (the duplicate search, the four host-loop iterations, the recording of the
// CUDA graph), so the difference is m iterations of the steady loop.
template <class Backend>
PerIteration per_iteration(Backend& backend, const typename Backend::SampleVector& y,
                           coreset::Algorithm a, index_t k, int m, int repeats,
                           int sync_every = 0) {
  const int base = 21;
  timed_solve(backend, y, a, k, base + m, sync_every);  // warm-up
  std::vector<double> before;
  std::vector<double> after;
  int looks = 0;
  for (int r = 0; r < repeats; ++r) {
    const TimedSolve short_solve = timed_solve(backend, y, a, k, base, sync_every);
    const TimedSolve long_solve = timed_solve(backend, y, a, k, base + m, sync_every);
    before.push_back(short_solve.seconds);
    after.push_back(long_solve.seconds);
    looks = long_solve.host_looks - short_solve.host_looks;
  }
  return {1e3 * (coreset::bench::median(after) - coreset::bench::median(before)) / m,
          static_cast<double>(looks) / m};
}

Json device_json() {
  int device = 0;
  CORESET_CUDA_TRY(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CORESET_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
  int driver = 0;
  int runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  return {{"name", properties.name},
          {"memory_bytes", properties.totalGlobalMem},
          {"compute_capability",
           std::to_string(properties.major) + "." + std::to_string(properties.minor)},
          {"driver_version", driver},
          {"runtime_version", runtime}};
}

// The budget at which the host loop is timed too: k = 1000 when asked for (as in every run so
// far), else the second budget.
index_t host_loop_budget(const std::vector<index_t>& budgets) {
  if (std::find(budgets.begin(), budgets.end(), index_t{1000}) != budgets.end()) {
    return 1000;
  }
  return budgets[std::min<std::size_t>(1, budgets.size() - 1)];
}

// The Phi^T r kernels bench_gpu times side by side, with their names in the JSON's keys.
const std::pair<coreset::kernels::PhiTr, std::string> kPhiTrKernels[] = {
    {coreset::kernels::PhiTr::cublas, "cublas"},
    {coreset::kernels::PhiTr::tiled, "tiled"},
    {coreset::kernels::PhiTr::streamed, "streamed"},
};

// The largest |a - b| over the largest |b|.
double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double largest = 0.0;
  double difference = 0.0;
  for (std::size_t j = 0; j < b.size(); ++j) {
    largest = std::max(largest, std::abs(static_cast<double>(b[j])));
    difference =
        std::max(difference, std::abs(static_cast<double>(a[j]) - static_cast<double>(b[j])));
  }
  return largest > 0.0 ? difference / largest : difference;
}

Json run_case(coreset::cuda::Resources& res, const Config& config, index_t n, index_t s,
              double bandwidth) {
  using Backend = coreset::cuda::CudaBackend<float>;
  Json result = {{"n", n}, {"S", s}, {"precision", "float"}};
  const double phi_bytes = static_cast<double>(n) * static_cast<double>(s) * sizeof(float);
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  coreset::cuda::device_memory(free_bytes, total_bytes);
  if (phi_bytes * 1.3 + 2e9 > static_cast<double>(free_bytes)) {
    result["skipped"] = "Phi does not fit in the free device memory";
    return result;
  }
  coreset::kernels::DeviceBuffer<float> phi(n * s);
  coreset::bench::fill_uniform(phi.data(), n * s, 7, std::sqrt(3.0 / static_cast<double>(s)));
  Backend backend(res, std::move(phi), s, n);
  auto y = backend.make_sample_vector();
  backend.column_sums(y);
  auto gradient = backend.make_datapoint_vector();
  const double floor_ms = 1e3 * phi_bytes / bandwidth;
  const double phi_t_r_ms = coreset::bench::event_ms(res.stream(), config.repeats,
                                                     [&] { backend.phi_t_times(y, gradient); });
  result["phi_bytes"] = phi_bytes;
  result["floor_ms"] = floor_ms;
  result["phi_t_r_ms"] = phi_t_r_ms;
  result["phi_t_r_fraction_of_copy_bandwidth"] = floor_ms / phi_t_r_ms;
  result["phi_t_r_kernel"] = coreset::kernels::to_string(backend.phi_t_r_kernel());
  result["top_k_one_block_capacity"] = backend.selection_capacity();
  // Each kernel that takes these columns alone on the same Phi and r, whichever the backend takes
  // (phi_t_r_<name>_*), and how far its results are from cuBLAS' (the first, which takes any
  // columns) over the largest entry (they sum in other orders; our kernels in double).
  std::vector<float> from_gemv;
  for (const auto& [kernel, name] : kPhiTrKernels) {
    if (!coreset::kernels::phi_t_r_takes(kernel, s, sizeof(float))) {
      continue;
    }
    backend.compute_phi_t_r_by(kernel);
    const double ms = coreset::bench::event_ms(res.stream(), config.repeats,
                                               [&] { backend.phi_t_times(y, gradient); });
    result["phi_t_r_" + name + "_ms"] = ms;
    result["phi_t_r_" + name + "_fraction_of_copy_bandwidth"] = floor_ms / ms;
    const std::vector<float> by_kernel = backend.download(gradient);
    if (kernel == coreset::kernels::PhiTr::cublas) {
      from_gemv = by_kernel;
    } else {
      // tiled's without its name: the key of the runs before the streamed kernel.
      const std::string prefix = kernel == coreset::kernels::PhiTr::tiled ? "" : name + "_";
      result["phi_t_r_" + prefix + "max_difference_from_cublas_over_largest_entry"] =
          largest_difference(by_kernel, from_gemv);
    }
  }
  // The selections below read the gradient as the backend makes it.
  backend.compute_phi_t_r_by(coreset::kernels::PhiTr::automatic);
  backend.phi_t_times(y, gradient);
  Json per_k = Json::array();
  for (const index_t k : config.budgets) {
    if (k >= n) {
      continue;
    }
    Json entry = {{"k", k}};
    Backend::SparseDatapointVector exclude;
    Backend::SparseDatapointVector out;
    // Repeated on one vector, the selection reuses its threshold after the first call (made
    // among the candidates: the mechanism's best case, at every k it serves, whatever the
    // default); with reuse off, the full passes every time.
    const auto select = [&] {
      backend.select_top_k(gradient, k, coreset::solvers::SelectionRule::largest_magnitude, exclude,
                           out);
    };
    backend.reuse_thresholds(true, Backend::kEveryBudget);
    entry["top_k_ms"] = coreset::bench::event_ms(res.stream(), config.repeats, select);
    backend.reuse_thresholds(false);
    entry["top_k_full_passes_ms"] = coreset::bench::event_ms(res.stream(), config.repeats, select);
    backend.reuse_thresholds(true);
    if (config.primitives) {
      // The parts alone: the per-iteration totals are another run's (without --primitives).
      entry["primitives"] = coreset::bench::primitive_costs(backend, y, k, config.repeats);
      per_k.push_back(entry);
      continue;
    }
    for (const auto algorithm : {coreset::Algorithm::aiht, coreset::Algorithm::aiht2}) {
      const auto selections_before = backend.selection_counts();
      const PerIteration steady =
          per_iteration(backend, y, algorithm, k, config.iterations, config.repeats);
      const auto selections_after = backend.selection_counts();
      const std::string name = coreset::to_string(algorithm);
      // How the selections with a threshold hint were made over these solves (the two over n
      // and the projected step's when it has over 16384 candidates).
      const long long by_candidates =
          selections_after.by_candidates - selections_before.by_candidates;
      const long long full = selections_after.full - selections_before.full;
      entry[name + "_selections_by_candidates"] = by_candidates;
      entry[name + "_selections_by_full_passes"] = full;
      entry[name + "_ms_per_iteration"] = steady.ms;
      entry[name + "_ratio_to_floor"] = steady.ms / floor_ms;
      entry[name + "_host_synchronisations_per_iteration"] = steady.host_looks;
      // The default loop records two iterations as one CUDA graph (0 nodes: it fell back to the
      // host loop).
      entry[name + "_graph_nodes_per_iteration"] =
          0.5 * static_cast<double>(backend.recorded_nodes());
    }
    if (k == host_loop_budget(config.budgets)) {
      // The per-iteration host loop (sync_every 1) on the same Phi: the launches the graph saves.
      const PerIteration host_loop = per_iteration(backend, y, coreset::Algorithm::aiht2, k,
                                                   config.iterations, config.repeats, 1);
      entry["a-iht-2_host_loop_ms_per_iteration"] = host_loop.ms;
      entry["a-iht-2_host_loop_ratio_to_floor"] = host_loop.ms / floor_ms;
      // The default loop with each other Phi^T r kernel that takes these columns: what the
      // backend's choice (kernels/phi_t_r_kernel.hpp) saves or costs in a whole iteration.
      const coreset::kernels::PhiTr chosen = backend.phi_t_r_kernel();
      for (const auto& [kernel, name] : kPhiTrKernels) {
        if (kernel == chosen || !coreset::kernels::phi_t_r_takes(kernel, s, sizeof(float))) {
          continue;
        }
        backend.compute_phi_t_r_by(kernel);
        const PerIteration other = per_iteration(backend, y, coreset::Algorithm::aiht2, k,
                                                 config.iterations, config.repeats);
        entry["a-iht-2_phi_t_r_by_" + name + "_ms_per_iteration"] = other.ms;
        entry["a-iht-2_phi_t_r_by_" + name + "_ratio_to_floor"] = other.ms / floor_ms;
      }
      backend.compute_phi_t_r_by(coreset::kernels::PhiTr::automatic);
    }
    // The default loop with the top-k's threshold reuse off, at every budget: what the reuse
    // saves or costs. Above the budgets hinted by default, also with hints: what they would.
    backend.reuse_thresholds(false);
    const PerIteration full_passes =
        per_iteration(backend, y, coreset::Algorithm::aiht2, k, config.iterations, config.repeats);
    backend.reuse_thresholds(true);
    entry["a-iht-2_without_threshold_reuse_ms_per_iteration"] = full_passes.ms;
    entry["a-iht-2_without_threshold_reuse_ratio_to_floor"] = full_passes.ms / floor_ms;
    // The default loop without the fewer-launch paths (CudaBackend::fuse_launches): what the
    // paired selections, the copied supports and the one-launch steps save, in time and nodes
    // (the rest of the iteration as it is now: the driver's order, the products' chunks).
    backend.fuse_launches(false);
    const PerIteration unfused =
        per_iteration(backend, y, coreset::Algorithm::aiht2, k, config.iterations, config.repeats);
    entry["a-iht-2_unfused_graph_nodes_per_iteration"] =
        0.5 * static_cast<double>(backend.recorded_nodes());
    backend.fuse_launches(true);
    entry["a-iht-2_unfused_ms_per_iteration"] = unfused.ms;
    entry["a-iht-2_unfused_ratio_to_floor"] = unfused.ms / floor_ms;
    if (k > coreset::kernels::radix::kLargestHintedBudget) {
      backend.reuse_thresholds(true, Backend::kEveryBudget);
      const auto selections_before = backend.selection_counts();
      const PerIteration hinted = per_iteration(backend, y, coreset::Algorithm::aiht2, k,
                                                config.iterations, config.repeats);
      const auto selections_after = backend.selection_counts();
      backend.reuse_thresholds(true);
      entry["a-iht-2_hinting_every_budget_ms_per_iteration"] = hinted.ms;
      entry["a-iht-2_hinting_every_budget_selections_by_candidates"] =
          selections_after.by_candidates - selections_before.by_candidates;
      entry["a-iht-2_hinting_every_budget_selections_by_full_passes"] =
          selections_after.full - selections_before.full;
    }
    per_k.push_back(entry);
  }
  result["budgets"] = per_k;
  std::fprintf(stderr, "n %lld S %lld: Phi^T r %.3f ms, floor %.3f ms\n", static_cast<long long>(n),
               static_cast<long long>(s), phi_t_r_ms, floor_ms);
  return result;
}

// The same A-IHT II iterations on the CPU backend and on the GPU, on one Phi (n = 1e6).
Json cpu_comparison(coreset::cuda::Resources& res, const Config& config) {
  const index_t n = 1000000;
  const index_t s = 500;
  const index_t k = 1000;
  coreset::Matrix<float> host = coreset::Matrix<float>::uninitialized(s, n);
  std::mt19937_64 generator(3);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (index_t e = 0; e < n * s; ++e) {
    host.data()[e] = uniform(generator) * std::sqrt(3.0f / static_cast<float>(s));
  }
  coreset::cpu::CpuBackend<float> cpu(host.view(), coreset::build_info().threads);
  auto y_cpu = cpu.make_sample_vector();
  cpu.column_sums(y_cpu);
  coreset::cuda::CudaBackend<float> gpu(res, host.view());
  auto y_gpu = gpu.make_sample_vector();
  gpu.column_sums(y_gpu);
  const int m = std::max(3, config.iterations / 4);
  const double cpu_ms = per_iteration(cpu, y_cpu, coreset::Algorithm::aiht2, k, m, 3).ms;
  const double gpu_ms =
      per_iteration(gpu, y_gpu, coreset::Algorithm::aiht2, k, config.iterations, config.repeats).ms;
  return {{"n", n},
          {"S", s},
          {"k", k},
          {"cpu_ms_per_iteration", cpu_ms},
          {"cpu_threads", coreset::build_info().threads},
          {"gpu_ms_per_iteration", gpu_ms},
          {"speedup", cpu_ms / gpu_ms}};
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"bench_gpu: GPU A-IHT iterations, Phi^T r and top-k against the copy floor"};
  app.add_option("--sizes", config.sizes, "n values")->delimiter(',');
  app.add_option("--rows", config.rows, "S values")->delimiter(',');
  app.add_option("--budgets", config.budgets, "k values")->delimiter(',');
  app.add_option("--repeats", config.repeats, "timed repeats (median)");
  app.add_option("--iterations", config.iterations, "m in (T(1 + m) - T(1)) / m");
  app.add_flag("--end-to-end", config.end_to_end,
               "also build_coreset on the GPU at each N of --end-to-end-sizes, d = 20, k = 1000");
  app.add_option("--end-to-end-sizes", config.end_to_end_sizes,
                 "N values of --end-to-end (S = 500, or 100 from N = 1e8)")
      ->delimiter(',');
  app.add_flag("!--no-cpu", config.cpu_comparison, "skip the CPU comparison at n = 1e6");
  app.add_flag("--primitives", config.primitives,
               "per k, each primitive of an A-IHT II iteration timed alone in a CUDA graph "
               "(instead of the per-iteration solves)");
  app.add_option("--json", config.json_path, "write the results here");
  CLI11_PARSE(app, argc, argv);
  try {
    std::string why;
    if (!coreset::cuda::gpu_usable(&why)) {
      std::fprintf(stderr, "bench_gpu: no usable GPU: %s\n", why.c_str());
      return 3;
    }
    coreset::cuda::Resources res;
    Json report = {{"benchmark", "bench_gpu"},
                   {"date", coreset::bench::utc_now()},
                   {"coreset_version", coreset::version()},
                   {"device", device_json()},
                   {"host_huge_pages", coreset::bench::huge_pages_record()}};
    const double bandwidth = copy_bandwidth(res, config.repeats);
    report["copy_bandwidth_bytes_per_second"] = bandwidth;
    Json cases = Json::array();
    for (const double size : config.sizes) {
      for (const index_t s : config.rows) {
        const auto n = static_cast<index_t>(size);
        if (n >= 100000000 && s > 100) {
          continue;  // the n = 1e8 case is S = 100 only
        }
        cases.push_back(run_case(res, config, n, s, bandwidth));
      }
    }
    report["cases"] = cases;
    if (config.cpu_comparison) {
      report["cpu_comparison"] = cpu_comparison(res, config);
    }
    if (config.end_to_end) {
      Json runs = Json::array();
      for (const double size : config.end_to_end_sizes) {
        const auto n = static_cast<index_t>(size);
        const index_t s = n >= 100000000 ? 100 : 500;
        runs.push_back(coreset::bench::end_to_end(n, 20, s, 1000, bandwidth));
        if (n == 10000000 || !report.contains("end_to_end")) {
          report["end_to_end"] = runs.back();
        } else if (report["end_to_end"]["N"] != 10000000) {
          report["end_to_end"] = runs.back();
        }
      }
      report["end_to_end_cases"] = runs;
    }
    const std::string text = report.dump(2) + "\n";
    std::fputs(text.c_str(), stdout);
    if (!config.json_path.empty()) {
      std::ofstream(config.json_path) << text;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_gpu: %s\n", error.what());
    return 1;
  }
  return 0;
}
