// bench_hint_replay: how often the GPU top-k's threshold hints would let a selection be made among
// its candidates, replayed on the CPU on a real solve's gradients. No GPU needed.
//
// The GPU backend gives each selection over n a radix::ThresholdHint (kernels/
// radix_select_logic.hpp): the next selection compacts the keys at or above a bound below the last
// threshold and, when k to the capacity of them reach it, selects among them in one block instead
// of four passes over n. Whether that pays depends on how often the bound holds, which depends on
// how the gradient moves from one iteration to the next. This program runs A-IHT or A-IHT II on
// the CPU backend and, at each of the solver's two selections over n (by magnitude and by positive
// value), replays exactly what the device does with the same ThresholdHint code: the candidates'
// count at the hint's bound, fits / adapt, then record(t) with the selection's threshold t.
//
// Phi is what bench_gpu generates (entries uniform with variance 1/S, y = Phi 1), drawn on the
// host, so the counts here are the ones bench_gpu's `*_selections_by_candidates` report for the
// selections over n, up to the draws. The solves are run like bench_gpu's per-iteration measurement
// (several solves one after another on one backend, the hints kept across them, each as long as the
// GPU runs it: its recorded loop ends on a whole pair) unless --fresh-hints. Every k the mechanism
// serves is replayed, whatever the backend's default (radix::kLargestHintedBudget). Not replayed:
// the projected step's hint (its selection is over 3k entries, hinted only when they outnumber the
// one-block capacity, k > 5461), and the hints bench_gpu carries over from its other timings.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "coreset/solver.hpp"
#include "cpu/cpu_backend.hpp"
#include "kernels/radix_select_logic.hpp"
#include "solvers/iht_driver.hpp"
#include "solvers/run_algorithm.hpp"
#include "solvers/stopping_rule.hpp"

namespace {

using coreset::index_t;
namespace radix = coreset::kernels::radix;

/// How a slot's selections went.
struct SlotTally {
  long long by_candidates = 0;
  long long without_guess = 0;  ///< resting, or no threshold yet
  long long too_few = 0;
  long long too_many = 0;
  std::vector<double> threshold_ratios;  ///< t / previous t, as scores
  std::vector<double> hit_candidates;    ///< the keys one block selected among, per hit
};

/// The CPU backend with each selection over n replayed through the device's hint logic.
template <class T>
class HintReplayBackend : public coreset::cpu::CpuBackend<T> {
 public:
  using Base = coreset::cpu::CpuBackend<T>;
  using Key = radix::key_t<T>;
  using Hint = radix::ThresholdHint<Key>;
  using typename Base::DatapointVector;
  using typename Base::SparseDatapointVector;

  HintReplayBackend(coreset::MatrixView<T> phi, int threads) : Base(phi, threads) {}

  void select_top_k(const DatapointVector& v, index_t k, coreset::solvers::SelectionRule rule,
                    const SparseDatapointVector& exclude, SparseDatapointVector& out) const {
    Base::select_top_k(v, k, rule, exclude, out);
    const bool by_magnitude = rule == coreset::solvers::SelectionRule::largest_magnitude;
    replay_hint(v, k, by_magnitude, exclude, by_magnitude ? 0 : 1);
  }

  const SlotTally& tally(int slot) const { return tallies_[static_cast<std::size_t>(slot)]; }
  void forget_hints() const { hints_ = {}; }
  void trace(bool on) { trace_ = on; }

 private:
  void replay_hint(const DatapointVector& v, index_t k, bool by_magnitude,
                   const SparseDatapointVector& exclude, int slot) const {
    Hint& hint = hints_[static_cast<std::size_t>(slot)];
    SlotTally& tally = tallies_[static_cast<std::size_t>(slot)];
    if (k < 1 || !radix::hint_serves(static_cast<index_t>(v.size()), k, hint.capacity)) {
      return;  // no selection (take 0), or one without its hint (kernels/select.cu, top_k)
    }
    keys_.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      keys_[i] = radix::selection_key(v[i], by_magnitude);
    }
    for (const index_t i : exclude.index) {
      keys_[static_cast<std::size_t>(i)] = 0;
    }
    index_t candidates = 0;
    if (hint.guessing()) {
      candidates = static_cast<index_t>(
          std::count_if(keys_.begin(), keys_.end(), [&](Key key) { return key >= hint.bound; }));
    }
    // The order of select_in_block_kernel: the verdict, adapt, then record(t).
    const bool fits = hint.fits(candidates, k);
    if (fits) {
      ++tally.by_candidates;
      tally.hit_candidates.push_back(static_cast<double>(candidates));
    } else if (!hint.guessing()) {
      ++tally.without_guess;
    } else if (candidates < k) {
      ++tally.too_few;
    } else {
      ++tally.too_many;
    }
    if (trace_ && slot == 0) {
      std::printf("  k %lld t/t_prev %.3f candidates %lld %s relax %d\n", static_cast<long long>(k),
                  last_t_[0] != 0 ? score(kth_largest(k)) / score(last_t_[0]) : 0.0,
                  static_cast<long long>(candidates),
                  fits               ? "hit"
                  : !hint.guessing() ? "no guess"
                  : candidates < k   ? "few"
                                     : "many",
                  hint.relax);
    }
    hint.adapt(candidates, k);
    const Key t = kth_largest(k);
    if (last_t_[static_cast<std::size_t>(slot)] != 0 && t != 0) {
      tally.threshold_ratios.push_back(score(t) / score(last_t_[static_cast<std::size_t>(slot)]));
    }
    last_t_[static_cast<std::size_t>(slot)] = t;
    hint.record(t);
  }

  /// The k-th largest key, 0 when fewer than k keys are positive (radix_select_logic.hpp, step 3).
  Key kth_largest(index_t k) const {
    const auto positive =
        static_cast<index_t>(std::count_if(keys_.begin(), keys_.end(), [](Key x) { return x; }));
    if (positive < k) {
      return 0;
    }
    scratch_ = keys_;
    std::nth_element(scratch_.begin(), scratch_.begin() + (k - 1), scratch_.end(),
                     [](Key a, Key b) { return a > b; });
    return scratch_[static_cast<std::size_t>(k - 1)];
  }

  static double score(Key key) {
    T value;
    std::memcpy(&value, &key, sizeof(T));
    return static_cast<double>(value);
  }

  bool trace_ = false;
  mutable std::array<Hint, 2> hints_{};
  mutable std::array<SlotTally, 2> tallies_{};
  mutable std::array<Key, 2> last_t_{};
  mutable std::vector<Key> keys_;
  mutable std::vector<Key> scratch_;
};

/// The iterations a GPU solve capped at `cap` runs (their selections update the hints, whether
/// or not the solve keeps them): the host loop's first iterations, then the recorded loop's pairs,
/// the last one whole (IhtDriver::run_tracked).
int gpu_iterations(int cap) {
  constexpr int host =
      coreset::solvers::IhtDriver<coreset::cpu::CpuBackend<float>>::kIterationsBeforeTracking;
  return cap <= host ? cap : host + 2 * ((cap - host + 1) / 2);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) {
    return NAN;
  }
  const auto at = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_hint_replay: the GPU top-k's threshold hints replayed on CPU solves"};
  index_t n = 100000;
  index_t rows = 100;
  std::vector<index_t> budgets{100, 1000, 10000};
  std::vector<int> solve_lengths{41, 21, 41, 21, 41, 21, 41};
  std::string algorithm_name = "a-iht-2";
  bool fresh_hints = false;
  bool trace = false;
  int threads = 2;
  app.add_option("--n", n, "datapoints (columns of Phi)");
  app.add_option("--rows", rows, "S (rows of Phi)");
  app.add_option("--budgets", budgets, "k values")->delimiter(',');
  app.add_option("--solves", solve_lengths,
                 "iteration caps of the solves run one after another on one backend (default: "
                 "bench_gpu's warm-up and three repeats of a short and a long solve)")
      ->delimiter(',');
  app.add_option("--algorithm", algorithm_name, "a-iht or a-iht-2");
  app.add_flag("--fresh-hints", fresh_hints, "forget the hints before each solve");
  app.add_option("--threads", threads, "CPU threads");
  app.add_flag("--trace", trace, "print every selection of the magnitude slot");
  CLI11_PARSE(app, argc, argv);

  const coreset::Algorithm algorithm =
      algorithm_name == "a-iht" ? coreset::Algorithm::aiht : coreset::Algorithm::aiht2;
  std::vector<float> phi(static_cast<std::size_t>(n * rows));
  std::mt19937_64 rng(7);
  const float half_width = static_cast<float>(std::sqrt(3.0 / static_cast<double>(rows)));
  std::uniform_real_distribution<float> uniform(-half_width, half_width);
  for (float& x : phi) {
    x = uniform(rng);
  }
  const coreset::MatrixView<float> view{phi.data(), rows, n, rows};
  std::printf(
      "bench_hint_replay: %s, n %lld, S %lld, solves of %zu caps; selections made among "
      "the candidates / all hinted, per slot\n",
      algorithm_name.c_str(), static_cast<long long>(n), static_cast<long long>(rows),
      solve_lengths.size());
  std::printf("%8s %-10s %10s %10s %8s %8s %8s %14s   t/t_prev: 5%% 50%% 95%%\n", "k", "slot",
              "candidates", "hinted", "no guess", "too few", "too many", "keys a hit 50%");
  for (const index_t k : budgets) {
    HintReplayBackend<float> backend(view, threads);
    std::vector<float> column_sums(static_cast<std::size_t>(rows), 0.0f);
    backend.column_sums(column_sums);  // y = Phi 1, as bench_gpu's
    const auto y = coreset::solvers::host_target(backend, column_sums.data());
    backend.trace(trace);
    coreset::SolverOptions options;
    options.algorithm = algorithm;
    options.k = k;
    options.tolerance = coreset::solvers::kRunToTheCap;  // as bench_gpu's timed solves
    options.threads = threads;
    for (const int cap : solve_lengths) {
      if (trace) {
        std::printf("solve of %d iterations\n", cap);
      }
      if (fresh_hints) {
        backend.forget_hints();
      }
      options.max_iterations = gpu_iterations(cap);
      coreset::solvers::IhtDriver<HintReplayBackend<float>>(backend, y, options).run();
    }
    for (int slot = 0; slot < 2; ++slot) {
      const SlotTally& t = backend.tally(slot);
      const long long all = t.by_candidates + t.without_guess + t.too_few + t.too_many;
      std::printf("%8lld %-10s %10lld %10lld %8lld %8lld %8lld %14.0f   %.3f %.3f %.3f\n",
                  static_cast<long long>(k), slot == 0 ? "magnitude" : "positive", t.by_candidates,
                  all, t.without_guess, t.too_few, t.too_many, quantile(t.hit_candidates, 0.5),
                  quantile(t.threshold_ratios, 0.05), quantile(t.threshold_ratios, 0.5),
                  quantile(t.threshold_ratios, 0.95));
    }
  }
  return 0;
}
