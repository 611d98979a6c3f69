// The whole job of spec 1.3: dataset -> model -> pi-hat -> S samples -> Phi -> solve -> quality.
#include "coreset/build.hpp"

#include <omp.h>
#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "coreset/error.hpp"
#include "models/model.hpp"
#include "models/projection.hpp"
#include "posterior/posterior.hpp"

namespace coreset {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool conjugate(ModelKind kind) {
  return kind == ModelKind::gaussian || kind == ModelKind::linear;
}

Pihat resolve_pihat(Pihat requested, ModelKind kind) {
  if (requested == Pihat::automatic) {
    return conjugate(kind) ? Pihat::exact : Pihat::laplace;
  }
  if (requested == Pihat::exact && !conjugate(kind)) {
    throw InvalidArgument(
        "--pihat exact needs a model with a closed-form posterior (gaussian or "
        "linear); the " +
        to_string(kind) + " model takes laplace or samples");
  }
  return requested;
}

void validate(const BuildOptions& options) {
  if (options.pihat != Pihat::samples && options.samples < 2) {
    throw InvalidArgument("--samples must be at least 2 (got " + std::to_string(options.samples) +
                          "): Phi is centred over the samples");
  }
  if (options.pihat == Pihat::samples && options.user_samples.rows() < 2) {
    throw InvalidArgument("--pihat samples needs a file of at least 2 posterior draws");
  }
}

// The posterior of the full data (weights null) or of a coreset: closed form when the model has
// one, else the weighted Laplace approximation (spec 4.5).
posterior::Gaussian posterior_of(const models::Model& model, const Coreset* weights) {
  return conjugate(model.kind) ? posterior::exact_posterior(model, weights)
                               : posterior::laplace(model, weights).posterior;
}

// Everything before the solve: the model, pi-hat and the samples.
struct Prepared {
  models::Model model;
  Pihat pihat = Pihat::automatic;
  std::optional<posterior::Gaussian> fitted;  // pi-hat when it is a Gaussian we fitted
  Eigen::MatrixXd samples;                    // S x d
  StageSeconds seconds;
};

Prepared prepare(const Dataset& data, const BuildOptions& options) {
  validate(options);
  Prepared prepared{models::make_model(data, options.model), Pihat::automatic, {}, {}, {}};
  const models::Model& model = prepared.model;
  prepared.pihat = resolve_pihat(options.pihat, model.kind);

  if (prepared.pihat == Pihat::samples) {
    const Matrix<double>& draws = options.user_samples;
    if (draws.cols() != model.dim()) {
      std::string names;
      for (const auto& name : model.parameter_names) {
        names += (names.empty() ? "" : ", ") + name;
      }
      const std::string message = "the posterior samples have " + std::to_string(draws.cols()) +
                                  " columns but the model has " + std::to_string(model.dim()) +
                                  " parameters (" + names + ")";
      if (!options.user_samples_source.empty()) {
        throw InputError(options.user_samples_source, message);
      }
      throw InvalidArgument(message);
    }
    prepared.samples = Eigen::Map<const Eigen::MatrixXd>(draws.data(), draws.rows(), draws.cols());
    return prepared;
  }
  auto start = Clock::now();
  prepared.fitted = prepared.pihat == Pihat::exact ? posterior::exact_posterior(model, nullptr)
                                                   : posterior::laplace(model, nullptr).posterior;
  prepared.seconds.pihat = seconds_since(start);
  start = Clock::now();
  prepared.samples = posterior::draw_samples(*prepared.fitted, options.samples, options.seed);
  prepared.seconds.sampling = seconds_since(start);
  return prepared;
}

int thread_count(const SolverOptions& solver) {
  return solver.threads > 0 ? solver.threads : omp_get_max_threads();
}

// Phi for the prepared samples, then `use(phi)`; Phi is freed before the caller goes on.
template <class Use>
void with_projection(const Prepared& prepared, const BuildOptions& options, StageSeconds& seconds,
                     Use&& use) {
  const int threads = thread_count(options.solver);
  const auto start = Clock::now();
  if (options.single_precision) {
    const Matrix<float> phi = models::projection<float>(prepared.model, prepared.samples, threads);
    seconds.projection = seconds_since(start);
    use(phi);
  } else {
    const Matrix<double> phi =
        models::projection<double>(prepared.model, prepared.samples, threads);
    seconds.projection = seconds_since(start);
    use(phi);
  }
}

// The posterior comparison of spec 4.3 and 4.4; `full` is the full-data posterior.
void compare_posteriors(const models::Model& model, const posterior::Gaussian& full,
                        const Coreset& coreset, Quality& quality,
                        std::vector<double>* coreset_mean) {
  const posterior::Gaussian approximate = posterior_of(model, &coreset);
  quality.forward_kl = posterior::kl_divergence(full, approximate);
  quality.reverse_kl = posterior::kl_divergence(approximate, full);
  quality.symmetric_kl = quality.forward_kl + quality.reverse_kl;
  // Exact posteriors are Gaussian, so their mode is their mean; Laplace means are MAPs.
  quality.map_distance = (full.mean - approximate.mean).norm();
  quality.posterior_method = conjugate(model.kind) ? "exact" : "laplace";
  if (coreset_mean != nullptr) {
    coreset_mean->assign(approximate.mean.data(),
                         approximate.mean.data() + approximate.mean.size());
  }
}

// The full-data posterior for the quality report: pi-hat itself when pi-hat was that posterior.
posterior::Gaussian full_posterior(const Prepared& prepared) {
  const bool fitted_is_full = prepared.fitted.has_value() &&
                              (prepared.pihat == Pihat::exact || prepared.pihat == Pihat::laplace);
  return fitted_is_full ? *prepared.fitted : posterior_of(prepared.model, nullptr);
}

}  // namespace

BuildResult build_coreset(const Dataset& data, const BuildOptions& options) {
  if (options.solver.k > data.rows()) {
    // solve() accepts k >= n (plain NNLS), but asking for a coreset no smaller than the data is
    // almost always a mistake in k or in the file.
    throw InputError(data.source.empty() ? "the dataset" : data.source,
                     "has " + std::to_string(data.rows()) +
                         " rows, fewer than k = " + std::to_string(options.solver.k) +
                         ": a coreset must be smaller than the data");
  }
  BuildResult result;
  Prepared prepared = prepare(data, options);
  result.seconds = prepared.seconds;
  result.pihat = prepared.pihat;
  result.parameters = prepared.model.dim();
  result.samples = prepared.samples.rows();
  result.parameter_names = prepared.model.parameter_names;

  with_projection(prepared, options, result.seconds, [&](const auto& phi) {
    const auto start = Clock::now();
    result.solve = solve(phi.view(), nullptr, options.solver);
    result.seconds.solve = seconds_since(start);
  });

  const auto start = Clock::now();
  const posterior::Gaussian full = full_posterior(prepared);
  result.full_posterior_mean.assign(full.mean.data(), full.mean.data() + full.mean.size());
  compare_posteriors(prepared.model, full, result.solve.coreset, result.quality,
                     &result.coreset_posterior_mean);
  result.quality.relative_projection_error = result.solve.relative_error;
  result.seconds.evaluation = seconds_since(start);
  return result;
}

Quality evaluate_coreset(const Dataset& data, const BuildOptions& options, const Coreset& coreset) {
  for (const index_t i : coreset.indices) {
    if (i < 0 || i >= data.rows()) {
      throw InvalidArgument("coreset row " + std::to_string(i) + " is outside the dataset's " +
                            std::to_string(data.rows()) + " rows");
    }
  }
  Quality quality;
  const Prepared prepared = prepare(data, options);
  StageSeconds seconds;
  with_projection(prepared, options, seconds, [&](const auto& phi) {
    const double target = objective(phi.view(), nullptr, Coreset{});  // ||y||^2, y = Phi 1
    const double residual = objective(phi.view(), nullptr, coreset);
    quality.relative_projection_error = target > 0.0 ? std::sqrt(residual / target) : 0.0;
  });
  compare_posteriors(prepared.model, full_posterior(prepared), coreset, quality, nullptr);
  return quality;
}

Matrix<double> projection_from_loglik(const Matrix<double>& loglik) {
  return models::projection_from_loglik(loglik);
}
Matrix<float> projection_from_loglik(const Matrix<float>& loglik) {
  return models::projection_from_loglik(loglik);
}

}  // namespace coreset
