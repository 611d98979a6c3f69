// bench_distributed: one distributed A-IHT II solve under mpirun, with the time spent inside the
// collectives measured by a counting Communicator around MPI_COMM_WORLD, and the latency of the
// two collectives it uses (a sum of S exact accumulators; a gather of k candidates per rank).
// bench/run_mpi_bench.sh runs it for strong and weak scaling and writes bench/results.
//   mpirun -np R bench_distributed --n N --samples S --k K --iterations I [--json FILE]
// Phi's column j is drawn from a generator seeded by j alone, so every split holds the same Phi.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "coreset/version.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// MPI_COMM_WORLD, counting calls, bytes and the seconds spent inside each collective.
class CountingCommunicator final : public coreset::Communicator {
 public:
  explicit CountingCommunicator(std::shared_ptr<const coreset::Communicator> inner)
      : inner_(std::move(inner)) {}
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  void sum(std::int64_t* values, std::size_t count) const override {
    const auto start = Clock::now();
    inner_->sum(values, count);
    seconds += seconds_since(start);
    ++calls;
    ++sums;
    bytes += count * sizeof(std::int64_t);
    sum_bytes += count * sizeof(std::int64_t);
  }
  std::vector<std::string> all_gather(const std::string& mine) const override {
    const auto start = Clock::now();
    auto all = inner_->all_gather(mine);
    seconds += seconds_since(start);
    ++calls;
    ++gathers;
    for (const auto& part : all) {
      bytes += part.size();
      gather_bytes += part.size();
    }
    return all;
  }
  std::string description() const override { return inner_->description(); }

  mutable double seconds = 0.0;
  mutable long long calls = 0;
  mutable long long bytes = 0;  // received, summed over the collectives
  mutable long long sums = 0;   // of them, sums (exact S-vectors, scalars)
  mutable long long sum_bytes = 0;
  mutable long long gathers = 0;  // and all_gathers (candidates, hashes, checks)
  mutable long long gather_bytes = 0;

 private:
  std::shared_ptr<const coreset::Communicator> inner_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_distributed: a distributed A-IHT II solve and its communication"};
  coreset::index_t n = 200'000;
  coreset::index_t samples = 100;
  coreset::index_t k = 1000;
  int iterations = 50;
  std::string json_path;
  app.add_option("--n", n, "datapoints, all ranks together")->capture_default_str();
  app.add_option("--samples", samples, "S")->capture_default_str();
  app.add_option("-k", k, "budget")->capture_default_str();
  app.add_option("--iterations", iterations, "A-IHT II iterations (tolerance 0)")
      ->capture_default_str();
  app.add_option("--json", json_path, "append one JSON line here (rank 0)");
  CLI11_PARSE(app, argc, argv);

  const auto world = coreset::mpi_world();
  const int rank = world->rank();
  const int ranks = world->size();
  const coreset::DatapointRange range = coreset::datapoint_range(n, rank, ranks);
  coreset::Matrix<double> phi(samples, range.count);
  for (coreset::index_t j = 0; j < range.count; ++j) {
    std::mt19937_64 generator(static_cast<std::uint64_t>(range.first + j));
    std::normal_distribution<double> normal;
    for (coreset::index_t i = 0; i < samples; ++i) {
      // A shared direction, as centred log-likelihoods have, plus noise.
      phi(i, j) = (normal(generator) + std::sin(0.1 * static_cast<double>(i))) /
                  std::sqrt(static_cast<double>(samples));
    }
  }

  auto counting = std::make_shared<CountingCommunicator>(world);
  coreset::SolverOptions options;
  options.k = k;
  options.max_iterations = iterations;
  options.tolerance = 0.0;
  options.threads = 1;
  options.communicator = counting;
  const auto start = Clock::now();
  const coreset::SolveResult result = coreset::solve(phi.view(), nullptr, options);
  const double solve_seconds = seconds_since(start);

  // The collectives alone: an exact S-vector sum (S x 71 int64) and a gather of k candidates.
  const int repeats = 200;
  std::vector<std::int64_t> slots(static_cast<std::size_t>(samples) * 71, 1);
  auto t = Clock::now();
  for (int r = 0; r < repeats; ++r) {
    world->sum(slots.data(), slots.size());
  }
  const double sum_latency = seconds_since(t) / repeats;
  const std::string candidates(static_cast<std::size_t>(k) * 16, 'x');
  t = Clock::now();
  for (int r = 0; r < repeats; ++r) {
    world->all_gather(candidates);
  }
  const double gather_latency = seconds_since(t) / repeats;

  if (rank == 0) {
    const double per_iteration = solve_seconds / std::max(1, result.iterations);
    const auto per = [&](long long total) {
      return static_cast<double>(total) / std::max(1, result.iterations);
    };
    nlohmann::json line = {{"ranks", ranks},
                           {"communicator", world->description()},
                           {"hardware_threads", std::thread::hardware_concurrency()},
                           {"n", n},
                           {"samples", samples},
                           {"k", k},
                           {"columns_rank0", range.count},
                           {"iterations", result.iterations},
                           {"solve_seconds", solve_seconds},
                           {"seconds_per_iteration", per_iteration},
                           {"communication_seconds_rank0", counting->seconds},
                           {"communication_share_rank0", counting->seconds / solve_seconds},
                           {"collectives_per_iteration",
                            static_cast<double>(counting->calls) / std::max(1, result.iterations)},
                           {"bytes_received_per_iteration",
                            static_cast<double>(counting->bytes) / std::max(1, result.iterations)},
                           {"sums_per_iteration", per(counting->sums)},
                           {"sum_bytes_per_iteration", per(counting->sum_bytes)},
                           {"gathers_per_iteration", per(counting->gathers)},
                           {"gather_bytes_received_per_iteration", per(counting->gather_bytes)},
                           {"exact_sum_latency_seconds", sum_latency},
                           {"gather_k_latency_seconds", gather_latency},
                           {"objective", result.objective},
                           {"version", coreset::version()}};
    std::printf("%s\n", line.dump().c_str());
    if (!json_path.empty()) {
      std::ofstream(json_path, std::ios::app) << line.dump() << "\n";
    }
  }
  return 0;
}
