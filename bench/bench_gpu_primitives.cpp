// Where an A-IHT II iteration's time goes, primitive by primitive. The per-iteration benchmark
// gives the total against one read of Phi; this gives its parts, each as the graph loop runs it:
// a primitive called `kCalls` times in a row is recorded as one CUDA graph (after two warm-up
// calls, so that every buffer has its size and every kernel is loaded), the graph replayed
// `kReplays` times between two events. Per call: microseconds, and graph nodes (what one call
// launches). An empty kernel recorded the same way gives the cost of a node as such.
//
// The inputs are an iteration's, built on the device from random supports: w and w_next of k
// entries sharing about 90%, z = w_next + tau (w_next - w), the expansion and the candidates
// selected from the gradient at y, and what follows from them, so that every list has the size
// it has in a solve (up to 3k entries).
#include "bench_gpu_primitives.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_gpu_fill.hpp"
#include "bench_gpu_timing.hpp"
#include "kernels/check.hpp"
#include "solvers/selection_rule.hpp"
#include "support/random.hpp"

namespace coreset::bench {
namespace {

using Json = nlohmann::json;
using Backend = cuda::CudaBackend<float>;
using Sparse = Backend::SparseDatapointVector;
using solvers::SelectionRule;

constexpr int kCalls = 10;
constexpr int kReplays = 5;

struct Cost {
  double us_per_call = 0.0;
  double nodes_per_call = 0.0;
};

// `call` recorded kCalls times as one graph and replayed: medians of `repeats`.
Cost graph_cost(const Backend& backend, int repeats, const std::function<void()>& call) {
  call();
  call();
  const Backend::Recording recording = backend.record([&] {
    for (int c = 0; c < kCalls; ++c) {
      call();
    }
  });
  const double nodes = static_cast<double>(backend.recorded_nodes()) / kCalls;
  const double ms =
      event_ms(backend.resources().stream(), repeats, [&] { backend.replay(recording, kReplays); });
  return {1e3 * ms / (kReplays * kCalls), nodes};
}

}  // namespace

Json primitive_costs(Backend& backend, const kernels::DeviceBuffer<float>& y, index_t k,
                     int repeats) {
  const index_t n = backend.cols();
  const index_t shared = std::max<index_t>(1, k * 9 / 10);
  if (2 * k - shared > n) {
    return {{"skipped", "w and w_next need 2k - 0.9k distinct columns, more than n"}};
  }
  // w and w_next: k entries each, `shared` of them at the same indices.
  std::vector<index_t> pool;
  support::sample_without_replacement(static_cast<std::uint64_t>(n),
                                      static_cast<std::uint64_t>(2 * k - shared), 29, pool);
  std::mt19937_64 generator(29);
  std::vector<index_t> w_index(pool.begin(), pool.begin() + k);
  std::vector<index_t> next_index(pool.begin(), pool.begin() + shared);
  next_index.insert(next_index.end(), pool.begin() + k, pool.end());
  std::sort(next_index.begin(), next_index.end());
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  std::vector<double> w_value(w_index.size());
  std::vector<double> next_value(next_index.size());
  for (double& v : w_value) {
    v = weight(generator);
  }
  for (double& v : next_value) {
    v = weight(generator);
  }

  Sparse w, w_next, z, move, expansion, candidates, g_on_s, g_on_z, x, g_on_x, out, out2;
  backend.from_host(w_index, w_value, w);
  backend.from_host(next_index, next_value, w_next);
  auto residual = backend.make_sample_vector();
  auto phi_step = backend.make_sample_vector();
  auto phi_w = backend.make_sample_vector();
  auto gradient = backend.make_datapoint_vector();
  backend.phi_times(w, phi_w);
  backend.subtract(y, phi_w, residual);
  backend.phi_t_times(residual, gradient);
  const Backend::Scalar tau = backend.constant(0.5);
  const Backend::Scalar step = backend.constant(1e-3);
  backend.extrapolate(w_next, w, tau, z);
  backend.subtract(w_next, w, move);
  backend.select_top_k(gradient, k, SelectionRule::largest_magnitude, z, expansion);
  backend.restrict_to_union(gradient, z, expansion, g_on_s);
  backend.select_top_k(gradient, k, SelectionRule::largest_positive, z, candidates);
  backend.gather(gradient, z, g_on_z);
  backend.projected_step(z, g_on_z, candidates, step, k, x);
  backend.phi_t_times_on(x, residual, g_on_x);
  backend.resources().synchronize();

  std::vector<std::pair<std::string, std::function<void()>>> primitives = {
      {"phi_t_times (dense pass)", [&] { backend.phi_t_times(residual, gradient); }},
      // Repeated on one gradient: made among the candidates of the last threshold (hints at
      // every k the mechanism serves, up to 3/4 of the one-block capacity: 12288 by an H200's
      // documented shared memory, whatever the default), the full passes a skipped conditional
      // node; then the full passes alone.
      {"select_top_k (n entries)",
       [&] {
         backend.reuse_thresholds(true, Backend::kEveryBudget);
         backend.select_top_k(gradient, k, SelectionRule::largest_positive, z, out);
         backend.reuse_thresholds(true);
       }},
      {"select_top_k (n entries, full passes)",
       [&] {
         backend.reuse_thresholds(false);
         backend.select_top_k(gradient, k, SelectionRule::largest_positive, z, out);
         backend.reuse_thresholds(true);
       }},
      // An accelerated iteration's two selections over one gradient, full passes: one set of
      // histogram passes for both (kernels::top_k_both_rules), against twice the line above.
      {"select_top_k_both_rules (n entries, full passes)",
       [&] {
         backend.reuse_thresholds(false);
         backend.select_top_k_both_rules(gradient, k, z, out, out2);
         backend.reuse_thresholds(true);
       }},
      {"restrict_to_union (z, expansion)",
       [&] { backend.restrict_to_union(gradient, z, expansion, out); }},
      {"gather (z)", [&] { backend.gather(gradient, z, out); }},
      {"projected_step", [&] { backend.projected_step(z, g_on_z, candidates, step, k, out); }},
      {"phi_times (3k: gradient on S)", [&] { backend.phi_times(g_on_s, phi_step); }},
      {"phi_times (k: w)", [&] { backend.phi_times(w, phi_step); }},
      // The chunks of 4a3fc22 (at least 64 places), against the line above and the next.
      {"phi_times (k: w), chunks of 64",
       [&] {
         backend.chunk_products_by(64);
         backend.phi_times(w, phi_step);
         backend.chunk_products_by(kernels::kProductChunk);
       }},
      {"phi_times (3k: gradient on S), chunks of 64",
       [&] {
         backend.chunk_products_by(64);
         backend.phi_times(g_on_s, phi_step);
         backend.chunk_products_by(kernels::kProductChunk);
       }},
      {"phi_t_times_on (k columns)", [&] { backend.phi_t_times_on(x, residual, out); }},
      {"line_search (two reductions and the step)",
       [&] {
         backend.line_search(backend.squared_norm(g_on_s), backend.dot(phi_step, phi_step), 0.5);
       }},
      // What the driver runs since the fused scalars (solvers/fused_scalars.hpp).
      {"gradient_line_search (fused)",
       [&] { backend.gradient_line_search(g_on_s, phi_step, 0.5); }},
      {"momentum_line_search (fused)",
       [&] { backend.momentum_line_search(residual, phi_step, 1.0); }},
      {"clamped_step", [&] { backend.clamped_step(x, step, g_on_x, out); }},
      {"subtract (lists)", [&] { backend.subtract(w_next, w, out); }},
      {"extrapolate", [&] { backend.extrapolate(w_next, w, tau, out); }},
      {"subtract (S entries)", [&] { backend.subtract(y, phi_w, residual); }},
      {"progress scalars (dot, squared distance, squared norm)",
       [&] {
         backend.dot(residual, residual);
         backend.squared_distance(w_next, w);
         backend.squared_norm(w_next);
       }},
      {"progress_scalars (fused)", [&] { backend.progress_scalars(residual, w_next, w); }},
      {"phi_times_and_residual (k: w; fused)",
       [&] { backend.phi_times_and_residual(w, y, phi_w, residual); }},
      {"empty kernel node", [&] { launch_empty_kernel(backend.resources().stream()); }},
  };
  // The unions in one launch (kernels::merge_compacted, off by default), against their lines
  // above, where their slots fit one launch: past it they take the same two launches.
  const auto add_in_one_launch = [&](const std::string& name, index_t slots,
                                     const std::function<void()>& union_call) {
    if (slots <= kernels::kOneLaunchSlots) {
      primitives.emplace_back(name + ", one launch", [&backend, union_call] {
        backend.unions_in_one_launch(true);
        union_call();
        backend.unions_in_one_launch(false);
      });
    }
  };
  add_in_one_launch("subtract (lists)", w_next.bound + w.bound,
                    [&] { backend.subtract(w_next, w, out); });
  add_in_one_launch("extrapolate", w_next.bound + w.bound,
                    [&] { backend.extrapolate(w_next, w, tau, out); });
  add_in_one_launch("restrict_to_union (z, expansion)", z.bound + expansion.bound,
                    [&] { backend.restrict_to_union(gradient, z, expansion, out); });
  Json costs = Json::object();
  for (const auto& [name, call] : primitives) {
    // One primitive that cannot be recorded or run is reported as such; the others still are.
    try {
      const Cost cost = graph_cost(backend, repeats, call);
      costs[name] = {{"us_per_call", cost.us_per_call}, {"nodes_per_call", cost.nodes_per_call}};
    } catch (const std::exception& error) {
      costs[name] = {{"error", error.what()}};
      backend.unions_in_one_launch(false);
      backend.resources().synchronize();
    }
  }
  Json sizes = Json::object();
  for (const auto& [name, list] : {std::pair<const char*, const Sparse*>{"w", &w},
                                   {"w_next", &w_next},
                                   {"z", &z},
                                   {"expansion", &expansion},
                                   {"gradient on S", &g_on_s},
                                   {"candidates", &candidates},
                                   {"x", &x}}) {
    std::vector<index_t> index;
    std::vector<float> value;
    backend.download(*list, index, value);
    sizes[name] = index.size();
  }
  return {{"calls_per_graph", kCalls},
          {"replays", kReplays},
          {"list_sizes", sizes},
          {"primitives", costs}};
}

}  // namespace coreset::bench
