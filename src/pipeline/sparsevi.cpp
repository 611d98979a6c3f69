// SparseVI ([SVI] Algorithm 1, spec 2.12); the conventions are in pipeline/sparsevi.hpp.
#include "pipeline/sparsevi.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/projection.hpp"
#include "pipeline/coreset_rows.hpp"
#include "pipeline/execution_context.hpp"
#include "pipeline/rank_rows.hpp"
#include "posterior/posterior.hpp"
#include "support/collectives.hpp"
#include "support/progress.hpp"
#include "support/splitmix.hpp"

namespace coreset::pipeline {
namespace {

constexpr int kMaxSteps = 1'000'000;

// The papers' settings (spec 2.12): [SVI] sec. 5.1-5.2 and [IHT] sec. 5.1 for the conjugate
// models, [SVI] sec. 5.3 for logistic and Poisson regression.
constexpr int kConjugateSteps = 100;
constexpr double kConjugateLearningRate = 1.0;
constexpr int kRegressionSteps = 500;
constexpr double kRegressionLearningRate = 0.5;

// [CODE] nn_opt's Adam constants.
constexpr double kBeta1 = 0.9;
constexpr double kBeta2 = 0.99;
constexpr double kEpsilon = 1e-8;

bool conjugate(ModelKind kind) {
  return kind == ModelKind::gaussian || kind == ModelKind::linear;
}

// This process's columns of Phi_w: global datapoints first ... first + phi.cols() - 1 (all n in
// one process), the other columns on the other ranks of `comm` (null: none).
struct Block {
  const Matrix<double>& phi;
  index_t first = 0;
  const Communicator* comm = nullptr;
  int threads = 1;

  bool holds(index_t j) const { return j >= first && j < first + phi.cols(); }
  const double* column(index_t j) const { return phi.column(j - first); }
};

// r = Phi (1 - w) over all n datapoints, the same S-vector on every rank: each rank's columns
// summed by cpu::add_phi_times_dense (in double over the fixed blocks of kReductionBlock global
// indices, each block's sum then added exactly), the ranks' exact parts added, and rounded once.
// So r has the same bits whatever the split of the datapoints over ranks and threads. A
// collective under a communicator.
std::vector<double> residual(const Block& block, const Coreset& weights) {
  std::vector<double> one_minus_w(static_cast<std::size_t>(block.phi.cols()), 1.0);
  for (std::size_t p = 0; p < weights.indices.size(); ++p) {
    if (block.holds(weights.indices[p])) {
      one_minus_w[static_cast<std::size_t>(weights.indices[p] - block.first)] =
          1.0 - weights.weights[p];
    }
  }
  cpu::ExactSums sums(static_cast<std::size_t>(block.phi.rows()));
  cpu::add_phi_times_dense(block.phi.view(), block.first, one_minus_w.data(), sums, block.threads);
  if (block.comm != nullptr) {
    support::sum_over_ranks(*block.comm, sums);
  }
  std::vector<double> r;
  cpu::round_into(sums, r);
  return r;
}

// c_n = <Phi_n, r>: S terms of one column, in a fixed order of their own (cpu::fixed_order_dot),
// so the rank that holds column n computes the bits one process does.
double covariance(const double* column, const std::vector<double>& r) {
  return cpu::fixed_order_dot(column, r.data(), static_cast<index_t>(r.size()));
}

void check_indices(const Matrix<double>& phi, const Coreset& weights) {
  if (weights.indices.size() != weights.weights.size()) {
    throw InvalidArgument("sparsevi: the coreset has " + std::to_string(weights.indices.size()) +
                          " indices but " + std::to_string(weights.weights.size()) + " weights");
  }
  for (const index_t j : weights.indices) {
    if (j < 0 || j >= phi.cols()) {
      throw InvalidArgument("sparsevi: coreset index " + std::to_string(j) + " is outside Phi's " +
                            std::to_string(phi.cols()) + " columns");
    }
  }
}

// The active set I in the order of selection, its weights, and the Adam moments of the current
// selection's steps.
struct State {
  std::vector<index_t> active;
  std::vector<double> weights;
  std::vector<double> first_moment;
  std::vector<double> second_moment;

  Coreset as_coreset() const { return Coreset{active, weights}; }

  // Ascending indices, zero weights dropped: the coreset the caller sees.
  Coreset positive_part() const {
    std::vector<std::size_t> order(active.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return active[a] < active[b]; });
    Coreset coreset;
    for (const std::size_t p : order) {
      if (weights[p] > 0.0) {
        coreset.indices.push_back(active[p]);
        coreset.weights.push_back(weights[p]);
      }
    }
    return coreset;
  }
};

// The run's fixed inputs and one Monte Carlo estimate at the current weights.
class Estimator {
 public:
  Estimator(const models::Model& model, const SparseViSettings& settings, std::uint64_t seed,
            int threads, const Communicator* comm)
      : model_(model),
        settings_(settings),
        seed_(seed),
        threads_(threads),
        comm_(comm),
        rows_(rank_rows(model, comm)) {}

  // This process's columns of Phi at S fresh draws from pi_w, w = `current` (spec 2.12 lines 3-5
  // and 10-11). The draws are seeded alike on every rank, so every rank draws the same Theta and
  // projects its own datapoints, each column the bits one process computes (cpu/projection.hpp).
  // Every step's Phi has the same size, so one buffer serves them all; the block stays valid
  // until the next call. A collective under a communicator.
  Block draw_phi(const Coreset& current, int selection, int step) {
    // A share holds its own rows only: the coreset's come from the ranks that hold them.
    std::optional<CoresetRows> gathered;
    if (model_.is_share()) {
      gathered = gather_coreset_rows(model_, current, *comm_);
    }
    // Every rank computes the same pi_w and draws; the projection of its own rows may fail on
    // it alone (a non-finite log-likelihood), and must stop the others before the next sum.
    on_every_rank(comm_, [&] {
      const models::Model& rows = gathered ? gathered->model : model_;
      const Coreset& weights = gathered ? gathered->coreset : current;
      const posterior::Gaussian pi_w = conjugate(model_.kind)
                                           ? posterior::exact_posterior(rows, &weights)
                                           : posterior::laplace(rows, &weights).posterior;
      const Eigen::MatrixXd samples =
          posterior::draw_samples(pi_w, settings_.samples, sparsevi_seed(seed_, selection, step));
      cpu::projection_into(model_, samples, threads_, phi_, nullptr, rows_.local);
    });
    return Block{phi_, rows_.global.first, comm_, threads_};
  }

 private:
  const models::Model& model_;
  SparseViSettings settings_;
  std::uint64_t seed_;
  int threads_;
  const Communicator* comm_;
  RankRows rows_;
  Matrix<double> phi_;
};

// A column that may be selected: its score and its global index.
struct Candidate {
  double score = 0.0;
  index_t index = -1;
};

// The one tie rule, for a rank's own columns and for the ranks' bests alike: a higher score, or
// the same score at a lower global index (what one process scanning all n in index order keeps).
// Only a score above 0 is a candidate; NaN never is.
bool beats(const Candidate& a, const Candidate& b) {
  if (!(a.score > 0.0)) {
    return false;
  }
  return a.score > b.score || (a.score == b.score && a.index < b.index);
}

// The best of every rank's best, the same on every rank. A collective under a communicator.
Candidate best_of_ranks(const Communicator* comm, const Candidate& mine) {
  if (comm == nullptr) {
    return mine;
  }
  Candidate best;
  for (const Candidate& theirs : support::all_gather_values(*comm, std::vector<Candidate>{mine})) {
    if (beats(theirs, best)) {
      best = theirs;
    }
  }
  return best;
}

// Lines 4-9: the global index with the best score, or -1 when no column scores above 0. Each
// rank scores its own columns (c_n and ||Phi_n|| are local) and the ranks' bests are merged. A
// collective under a communicator.
index_t select(const Block& block, const State& state) {
  const index_t n = block.phi.cols();
  const index_t s = block.phi.rows();
  const std::vector<double> r = residual(block, state.as_coreset());
  std::vector<char> is_active(static_cast<std::size_t>(n), 0);
  for (const index_t j : state.active) {
    if (block.holds(j)) {
      is_active[static_cast<std::size_t>(j - block.first)] = 1;
    }
  }
  std::vector<double> score(static_cast<std::size_t>(n));
#pragma omp parallel for num_threads(block.threads) schedule(static)
  for (index_t j = 0; j < n; ++j) {
    const double* column = block.phi.column(j);
    const double norm2 = cpu::fixed_order_squared_norm(column, s);
    const auto p = static_cast<std::size_t>(j);
    if (!(norm2 > 0.0)) {
      score[p] = 0.0;  // a constant potential cannot be chosen
      continue;
    }
    const double correlation = covariance(column, r) / std::sqrt(norm2);
    score[p] = is_active[p] != 0 ? std::fabs(correlation) : correlation;
  }
  Candidate best;
  for (index_t j = 0; j < n; ++j) {
    const Candidate here{score[static_cast<std::size_t>(j)], block.first + j};
    if (beats(here, best)) {
      best = here;
    }
  }
  return best_of_ranks(block.comm, best).index;
}

// c_i for the active set, in its order, on every rank: each computed by the rank that holds
// column i, then gathered. A collective under a communicator.
std::vector<double> active_covariances(const Block& block, const std::vector<index_t>& active,
                                       const std::vector<double>& r) {
  struct Entry {
    std::size_t position;
    double value;
  };
  std::vector<Entry> mine;
  for (std::size_t p = 0; p < active.size(); ++p) {
    if (block.holds(active[p])) {
      mine.push_back({p, covariance(block.column(active[p]), r)});
    }
  }
  std::vector<double> c(active.size(), 0.0);
  for (const Entry& entry :
       block.comm == nullptr ? mine : support::all_gather_values(*block.comm, mine)) {
    c[entry.position] = entry.value;
  }
  return c;
}

// Lines 12-17 once: D = -c_I at fresh draws, a step of length gamma_t = rate / t, then w >= 0.
// Every rank takes the same step on its copy of the weights. A collective under a communicator.
void gradient_step(const Block& block, State& state, const SparseViSettings& settings, int step) {
  const std::vector<double> r = residual(block, state.as_coreset());
  const std::vector<double> c = active_covariances(block, state.active, r);
  const double gamma = settings.learning_rate / static_cast<double>(step);
  for (std::size_t p = 0; p < state.active.size(); ++p) {
    const double gradient = -c[p];
    double move = gamma * gradient;
    if (settings.optimizer == SparseViOptimizer::adam) {
      double& m1 = state.first_moment[p];
      double& m2 = state.second_moment[p];
      m1 = kBeta1 * m1 + (1.0 - kBeta1) * gradient;
      m2 = kBeta2 * m2 + (1.0 - kBeta2) * gradient * gradient;
      const double m1_hat = m1 / (1.0 - std::pow(kBeta1, step));
      const double m2_hat = m2 / (1.0 - std::pow(kBeta2, step));
      move = gamma * m1_hat / (kEpsilon + std::sqrt(m2_hat));
    }
    const double w = std::max(state.weights[p] - move, 0.0);
    if (!std::isfinite(w)) {
      throw NumericalError("sparsevi: a weight became non-finite at step " + std::to_string(step) +
                           " (the gradient steps diverged; lower --sparsevi-learning-rate)");
    }
    state.weights[p] = w;
  }
}

}  // namespace

SparseViSettings resolve_sparsevi_settings(const SparseViOptions& options, ModelKind kind) {
  if (options.steps < 0 || options.steps > kMaxSteps) {
    throw InvalidArgument("sparsevi steps must be between 0 (the model's default) and 1e6 (got " +
                          std::to_string(options.steps) + ")");
  }
  if (!(options.learning_rate >= 0.0) || !std::isfinite(options.learning_rate)) {
    throw InvalidArgument(
        "sparsevi learning rate must be a finite number >= 0 (0: the model's default)");
  }
  if (options.samples < 2) {
    throw InvalidArgument("sparsevi samples must be at least 2 (got " +
                          std::to_string(options.samples) +
                          "): the potentials are centred over the samples");
  }
  SparseViSettings settings;
  settings.steps = options.steps > 0 ? options.steps
                   : conjugate(kind) ? kConjugateSteps
                                     : kRegressionSteps;
  settings.learning_rate = options.learning_rate > 0.0 ? options.learning_rate
                           : conjugate(kind)           ? kConjugateLearningRate
                                                       : kRegressionLearningRate;
  settings.samples = options.samples;
  settings.optimizer = options.optimizer;
  return settings;
}

std::uint64_t sparsevi_seed(std::uint64_t seed, int selection, int step) {
  std::uint64_t z = support::splitmix64(seed ^ 0x5350415253455649ULL);  // "SPARSEVI"
  z = support::splitmix64(z + static_cast<std::uint64_t>(selection));
  return support::splitmix64(z + static_cast<std::uint64_t>(step));
}

std::vector<double> residual_covariances(const Matrix<double>& phi, const Coreset& weights,
                                         int threads) {
  check_indices(phi, weights);
  const Block block{phi, 0, nullptr, resolve_threads(threads)};
  const std::vector<double> r = residual(block, weights);
  std::vector<double> c(static_cast<std::size_t>(phi.cols()));
#pragma omp parallel for num_threads(block.threads) schedule(static)
  for (index_t j = 0; j < phi.cols(); ++j) {
    c[static_cast<std::size_t>(j)] = covariance(phi.column(j), r);
  }
  return c;
}

SparseViRun run_sparsevi(const models::Model& model, const BuildSolverOptions& options,
                         std::uint64_t seed, const SelectionObserver& observer) {
  if (options.k < 1) {
    throw InvalidArgument("k must be at least 1 (got " + std::to_string(options.k) + ")");
  }
  if (options.k > kMaxSteps * 1000) {
    throw InvalidArgument("sparsevi: k must be at most 1e9 (got " + std::to_string(options.k) +
                          ")");
  }
  if (options.threads < 0) {
    throw InvalidArgument("threads must be >= 0 (0 = every core)");
  }
  const SparseViSettings settings = resolve_sparsevi_settings(options.sparsevi, model.kind);
  const int threads = resolve_threads(options.threads);
  const Communicator* comm = options.communicator.get();
  if (model.is_share() && comm == nullptr) {
    throw InvalidArgument(
        "sparsevi: the model holds a share of the dataset's rows, but no communicator names the "
        "ranks that hold the others");
  }
  Estimator estimator(model, settings, seed, threads, comm);

  State state;
  SparseViRun run;
  const auto selections = static_cast<int>(options.k);
  for (int m = 1; m <= selections; ++m) {
    support::throw_if_stopped(options.progress, comm);
    const index_t chosen = select(estimator.draw_phi(state.as_coreset(), m, 0), state);
    if (chosen < 0) {
      run.stop_reason = StopReason::stationary;
      break;
    }
    if (std::find(state.active.begin(), state.active.end(), chosen) == state.active.end()) {
      state.active.push_back(chosen);
      state.weights.push_back(0.0);
    }
    // The optimiser starts afresh at each selection, as [CODE]'s nn_opt does.
    state.first_moment.assign(state.active.size(), 0.0);
    state.second_moment.assign(state.active.size(), 0.0);
    for (int t = 1; t <= settings.steps; ++t) {
      support::throw_if_stopped(options.progress, comm);
      gradient_step(estimator.draw_phi(state.as_coreset(), m, t), state, settings, t);
    }
    run.selections = m;
    support::advanced(options.progress, m);
    if (observer) {
      observer(m, state.positive_part());
    }
  }
  run.coreset = state.positive_part();
  return run;
}

}  // namespace coreset::pipeline
