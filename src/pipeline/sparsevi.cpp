// SparseVI ([SVI] Algorithm 1, spec 2.12); the conventions are in pipeline/sparsevi.hpp.
#include "pipeline/sparsevi.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <utility>

#include "coreset/error.hpp"
#include "cpu/projection.hpp"
#include "pipeline/execution_context.hpp"
#include "posterior/posterior.hpp"
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

// r = Phi (1 - w) = Phi 1 - sum_i w_i Phi_i, the columns summed in index order.
std::vector<double> residual(const Matrix<double>& phi, const Coreset& weights) {
  const index_t s = phi.rows();
  std::vector<double> r(static_cast<std::size_t>(s), 0.0);
  for (index_t j = 0; j < phi.cols(); ++j) {
    const double* column = phi.column(j);
    for (index_t i = 0; i < s; ++i) {
      r[static_cast<std::size_t>(i)] += column[i];
    }
  }
  for (std::size_t p = 0; p < weights.indices.size(); ++p) {
    const double* column = phi.column(weights.indices[p]);
    const double w = weights.weights[p];
    for (index_t i = 0; i < s; ++i) {
      r[static_cast<std::size_t>(i)] -= w * column[i];
    }
  }
  return r;
}

double dot(const double* a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    sum += a[i] * b[i];
  }
  return sum;
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
            int threads)
      : model_(model), settings_(settings), seed_(seed), threads_(threads) {}

  // Phi at S fresh draws from pi_w, w = the state's weights (spec 2.12 lines 3-5 and 10-11).
  // Every step's Phi has the same size, so one buffer serves them all; the reference stays
  // valid until the next call.
  const Matrix<double>& draw_phi(const Coreset& current, int selection, int step) {
    const posterior::Gaussian pi_w = conjugate(model_.kind)
                                         ? posterior::exact_posterior(model_, &current)
                                         : posterior::laplace(model_, &current).posterior;
    const Eigen::MatrixXd samples =
        posterior::draw_samples(pi_w, settings_.samples, sparsevi_seed(seed_, selection, step));
    cpu::projection_into(model_, samples, threads_, phi_);
    return phi_;
  }

 private:
  const models::Model& model_;
  SparseViSettings settings_;
  std::uint64_t seed_;
  int threads_;
  Matrix<double> phi_;
};

// Lines 4-9: the index with the best score, or -1 when no column scores above 0.
index_t select(const Matrix<double>& phi, const State& state, int threads) {
  const index_t n = phi.cols();
  const std::vector<double> r = residual(phi, state.as_coreset());
  std::vector<char> is_active(static_cast<std::size_t>(n), 0);
  for (const index_t j : state.active) {
    is_active[static_cast<std::size_t>(j)] = 1;
  }
  std::vector<double> score(static_cast<std::size_t>(n));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (index_t j = 0; j < n; ++j) {
    const double* column = phi.column(j);
    double norm2 = 0.0;
    for (index_t i = 0; i < phi.rows(); ++i) {
      norm2 += column[i] * column[i];
    }
    const auto p = static_cast<std::size_t>(j);
    if (!(norm2 > 0.0)) {
      score[p] = 0.0;  // a constant potential cannot be chosen
      continue;
    }
    const double correlation = dot(column, r) / std::sqrt(norm2);
    score[p] = is_active[p] != 0 ? std::fabs(correlation) : correlation;
  }
  index_t best = -1;
  double best_score = 0.0;
  for (index_t j = 0; j < n; ++j) {  // ties go to the lower index; NaN never wins
    if (score[static_cast<std::size_t>(j)] > best_score) {
      best_score = score[static_cast<std::size_t>(j)];
      best = j;
    }
  }
  return best;
}

// Lines 12-17 once: D = -c_I at fresh draws, a step of length gamma_t = rate / t, then w >= 0.
void gradient_step(const Matrix<double>& phi, State& state, const SparseViSettings& settings,
                   int step) {
  const std::vector<double> r = residual(phi, state.as_coreset());
  const double gamma = settings.learning_rate / static_cast<double>(step);
  for (std::size_t p = 0; p < state.active.size(); ++p) {
    const double gradient = -dot(phi.column(state.active[p]), r);
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
  const std::vector<double> r = residual(phi, weights);
  std::vector<double> c(static_cast<std::size_t>(phi.cols()));
#pragma omp parallel for num_threads(resolve_threads(threads)) schedule(static)
  for (index_t j = 0; j < phi.cols(); ++j) {
    c[static_cast<std::size_t>(j)] = dot(phi.column(j), r);
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
  Estimator estimator(model, settings, seed, threads);

  State state;
  SparseViRun run;
  const auto selections = static_cast<int>(options.k);
  for (int m = 1; m <= selections; ++m) {
    support::throw_if_stopped(options.progress, options.communicator.get());
    const index_t chosen = select(estimator.draw_phi(state.as_coreset(), m, 0), state, threads);
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
      support::throw_if_stopped(options.progress, options.communicator.get());
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
