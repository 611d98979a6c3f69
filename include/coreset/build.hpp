// From a dataset and a model to a coreset (spec 1.3, 3, 4): the weighting distribution pi-hat,
// S parameter samples, the projection Phi, the solve, and a report of how close the coreset
// posterior is to the full one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/export.hpp"
#include "coreset/matrix.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// The weighting distribution pi-hat that the S samples are drawn from.
enum class Pihat {
  automatic,  ///< exact for gaussian and linear, laplace otherwise
  laplace,    ///< Laplace approximation of the full-data posterior (Newton's method)
  exact,      ///< the closed-form posterior (gaussian and linear only)
  samples,    ///< the user's own posterior draws (BuildOptions::user_samples)
};

CORESET_API std::string to_string(Pihat pihat);
CORESET_API Pihat parse_pihat(const std::string& name);

/// How SparseVI moves the active weights after each selection (spec 2.12, 7 A16, 8).
enum class SparseViOptimizer {
  /// The authors' code ([CODE] nn_opt): bias-corrected Adam moments (beta1 0.9, beta2 0.99,
  /// eps 1e-8), reset at each selection, the step scaled by gamma_t; the default, as the papers'
  /// published curves come from it.
  adam,
  sgd,  ///< plain SGD as printed in [SVI] Algorithm 1: w <- w - gamma_t D
};

/// SparseVI's settings (spec 2.12). 0 means "the papers' value for the model": steps T = 100 and
/// gamma_t = 1/t for gaussian and linear ([SVI] sec. 5.1-5.2, [IHT] sec. 5.1), T = 500 and
/// gamma_t = 0.5/t for logistic and poisson ([SVI] sec. 5.3). Every step (and every selection)
/// draws `samples` fresh parameters from the current coreset posterior pi_w (exact for gaussian
/// and linear, the weighted Laplace approximation for logistic and poisson, the prior at w = 0),
/// and the weights are projected onto w >= 0 after every step.
struct CORESET_API SparseViOptions {
  int steps = 0;               ///< T, gradient steps per selection, 0 ... 1e6 (0: the model's)
  double learning_rate = 0.0;  ///< gamma_t = learning_rate / t, t = 1..T; >= 0 (0: the model's)
  index_t samples = 100;       ///< S per Monte Carlo estimate, >= 2 ([SVI] sec. 5.3: 100)
  SparseViOptimizer optimizer = SparseViOptimizer::adam;
};

CORESET_API std::string to_string(SparseViOptimizer optimizer);  ///< "adam", "sgd"
/// Inverse of to_string; throws InvalidArgument listing the accepted names.
CORESET_API SparseViOptimizer parse_sparsevi_optimizer(const std::string& name);

/// The solver options of the build path (BuildOptions::solver, PreparedProblem): the settings
/// solve() shares, any BuildAlgorithm, SparseVI included, and SparseVI's settings. There is no
/// seed here: every draw of a build derives from the job's, BuildOptions::seed. The algorithms
/// other than sparsevi run through solve() on the build's Phi, with these settings and
/// SolverOptions::seed = the job's seed.
struct CORESET_API BuildSolverOptions : SolverSettings {
  BuildAlgorithm algorithm = BuildAlgorithm::aiht2;
  SparseViOptions sparsevi;  ///< sparsevi only
};

struct CORESET_API BuildOptions {
  ModelOptions model;
  /// k, algorithm, tolerance, ... (solver.k defaults to 100 here). solver.device also places
  /// the projection Phi: on the GPU it is computed there (and agrees with the CPU's to rounding).
  BuildSolverOptions solver;
  index_t samples = 500;  ///< S, the projection dimension (ignored for Pihat::samples)
  Pihat pihat = Pihat::automatic;
  Matrix<double> user_samples;      ///< Pihat::samples: S x d draws, d = the model's parameters
  std::string user_samples_source;  ///< where user_samples came from, for error messages
  /// The one seed of the job: every random choice of a build derives from it, so that one value
  /// reproduces the whole job. Each consumer seeds its own generator with this value itself:
  ///   - the S draws from pi-hat;
  ///   - the RBF centres (ModelOptions::rbf, linear);
  ///   - the solver: the run on Phi gets SolverOptions::seed = seed (iht's power iteration, the
  ///     draws of is and uniform, the batches of batch_fraction);
  ///   - sparsevi: the draws of selection m, step t come from splitmix64 mixes of (seed, m, t).
  /// These are the values that the 0.1 API's three seeds (BuildOptions::seed, SolverOptions::seed,
  /// RbfOptions::seed) had when the command filled them from one --seed, so results are as
  /// before. solve() on a bare Phi keeps its own SolverOptions::seed.
  std::uint64_t seed = 0;
  /// Phi and the solve: float64 (the default) or float32 (half the memory and bandwidth; the
  /// scalars of the solve still accumulate in double).
  Precision precision = Precision::float64;
  BuildOptions() { solver.k = 100; }
};

/// How good a coreset is (spec 4.3, 4.4). The full and coreset posteriors are closed form for
/// gaussian and linear, weighted Laplace approximations for logistic and poisson.
struct CORESET_API Quality {
  double relative_projection_error = 0.0;  ///< ||y - Phi w|| / ||y|| on the build's Phi
  double forward_kl = 0.0;                 ///< KL(pi || pi_w)
  double reverse_kl = 0.0;                 ///< KL(pi_w || pi)
  double symmetric_kl = 0.0;               ///< the sum of the two
  double map_distance = 0.0;               ///< ||theta_MAP(full) - theta_MAP(w)||
  std::string posterior_method;            ///< "exact" or "laplace"
};

/// Wall time of each stage, in seconds.
struct CORESET_API StageSeconds {
  /// Before the first stage: the dataset checked and the model built from it (its design made
  /// or, for covariates read in place, checked), the job's device resolved and its memory
  /// checked.
  double setup = 0.0;
  double pihat = 0.0;       ///< fitting the weighting distribution
  double sampling = 0.0;    ///< drawing the S samples
  double projection = 0.0;  ///< the log-likelihood matrix, centred and scaled: Phi
  double solve = 0.0;
  double evaluation = 0.0;  ///< the quality report

  /// Every stage added up: the job's wall time but for freeing its memory at the end.
  double total() const noexcept {
    return setup + pihat + sampling + projection + solve + evaluation;
  }
};

struct CORESET_API BuildResult {
  SolveResult solve;  ///< coreset indices are 0-based dataset rows
  Quality quality;
  StageSeconds seconds;
  index_t parameters = 0;          ///< d, including the intercept
  index_t samples = 0;             ///< S actually used
  Pihat pihat = Pihat::automatic;  ///< the method actually used (never automatic)
  std::vector<std::string> parameter_names;
  std::vector<double> full_posterior_mean;
  std::vector<double> coreset_posterior_mean;
};

/// SparseVI's settings as a run for a `kind` model uses them: steps and learning_rate of 0
/// replaced by the papers' defaults for the model (SparseViOptions). Throws InvalidArgument for a
/// value out of its domain, as build_coreset does.
CORESET_API SparseViOptions effective_sparsevi_options(const SparseViOptions& options,
                                                       ModelKind kind);

/// One coreset solved and scored on a PreparedProblem.
struct CORESET_API CoresetRun {
  SolveResult solve;                ///< coreset indices are 0-based dataset rows
  Quality quality;                  ///< relative_projection_error is the solver's
  double solve_seconds = 0.0;       ///< wall time of the solve (the coreset's construction)
  double evaluation_seconds = 0.0;  ///< wall time of the coreset posterior and its comparison
  std::vector<double> coreset_posterior_mean;
};

/// The stages of build_coreset that do not depend on the solver, done once: the model, pi-hat,
/// the S samples, the full-data posterior and Phi (in options.precision). Any
/// number of solves (algorithms, budgets k, ...) and evaluations then share them, on exactly the
/// Phi that build_coreset would build for the same options; build_coreset and evaluate_coreset
/// are this class used once. options.solver.threads sizes the projection; the other solver
/// fields are ignored here. The const members may be called from several threads at once; a
/// moved-from problem may only be assigned to or destroyed.
class CORESET_API PreparedProblem {
 public:
  /// Tag of the constructor that reads the dataset's covariates in place.
  struct CovariatesInPlace {};

  /// Throws as build_coreset does for the data and the non-solver options. The problem keeps
  /// what it needs of `data` (for most models a copy of the covariates, n x D doubles).
  PreparedProblem(const Dataset& data, const BuildOptions& options);
  /// The same, except that a model whose design is made of the covariates (logistic, Poisson,
  /// linear without RBF features) reads data.covariates in place instead of copying them: no
  /// second copy of the dataset in memory, and none of its time. `data` must outlive the problem
  /// and its covariates stay unchanged. build_coreset and evaluate_coreset prepare their problems
  /// so.
  PreparedProblem(const Dataset& data, const BuildOptions& options, CovariatesInPlace);
  ~PreparedProblem();
  PreparedProblem(PreparedProblem&&) noexcept;
  PreparedProblem& operator=(PreparedProblem&&) noexcept;

  index_t rows() const noexcept;        ///< n, the datapoints (columns of Phi)
  index_t parameters() const noexcept;  ///< d, including the intercept
  index_t samples() const noexcept;     ///< S actually used
  Pihat pihat() const noexcept;         ///< the method actually used (never automatic)
  const std::vector<std::string>& parameter_names() const noexcept;
  const std::vector<double>& full_posterior_mean() const noexcept;
  /// setup, pi-hat, sampling, projection, and (as `evaluation`) the full-data posterior; solve
  /// is 0.
  const StageSeconds& seconds() const noexcept;
  Precision precision() const noexcept;  ///< what Phi is held in (BuildOptions::precision)
  std::uint64_t seed() const noexcept;   ///< the job's seed (BuildOptions::seed)

  /// Solves on this Phi, with the job's seed. Throws InputError when solver.k > rows() (a
  /// coreset must be smaller than the data), else as solve() does. BuildAlgorithm::sparsevi runs
  /// here (solve() cannot): it draws its own samples from the model's coreset posteriors
  /// (solver.sparsevi, seed()) and uses this Phi only for the reported objective. Every solve
  /// runs where this Phi is (the device of the BuildOptions, resolved once); solver.device is not
  /// consulted, solver.threads and solver.progress are the solve's own.
  SolveResult solve(const BuildSolverOptions& solver) const;
  /// The quality of any coreset (0-based rows; InvalidArgument for a row outside the data).
  Quality evaluate(const Coreset& coreset) const;
  /// solve(), then the quality of its coreset, each timed.
  CoresetRun solve_and_evaluate(const BuildSolverOptions& solver) const;
  /// solve_and_evaluate at every budget of `ks` (sorted, duplicates dropped; solver.k is
  /// ignored), in ascending k. The greedy algorithms (sparsevi, giga, fw) make one run to the
  /// largest k and record its coreset after each step or selection count in ks: each result is
  /// exactly (bit for bit) what a run to that k alone gives, since their state after m steps
  /// does not depend on k (SparseVI's draws at selection m do not either), and its
  /// solve_seconds is the time from the run's start to that snapshot (plus its refit). The
  /// other algorithms are solved once per k, from scratch (coreset::sweep warm-starts them).
  std::vector<CoresetRun> solve_and_evaluate_budgets(const BuildSolverOptions& solver,
                                                     std::vector<index_t> ks) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A run on `problem` as build_coreset reports it: the problem's stages and the run's solve and
/// evaluation (seconds.solve is the run's solve, seconds.evaluation adds its evaluation to the
/// full posterior's).
CORESET_API BuildResult to_build_result(const PreparedProblem& problem, CoresetRun run);

/// The whole job. Throws InputError for data outside the model's domain (naming file, line and
/// column when the dataset came from a file), InvalidArgument for bad options, NumericalError
/// when a Laplace fit does not converge.
CORESET_API BuildResult build_coreset(const Dataset& data, const BuildOptions& options);

/// The quality of any coreset of `data` (0-based row indices), with the same pi-hat, samples and
/// Phi that build_coreset would use for these options.
CORESET_API Quality evaluate_coreset(const Dataset& data, const BuildOptions& options,
                                     const Coreset& coreset);

/// Each datapoint's log-likelihood under the model, L_n(theta) (spec 3: a true log density,
/// constants included, in nats), at P parameter vectors: `parameters` is d x P, column p one
/// theta in the order of BuildResult::parameter_names (covariates, then the intercept); the
/// result is n x P. `seed` places the RBF centres as BuildOptions::seed does. What a weighted
/// PPL model must reproduce: its log-likelihood is sum_i w_i L_i(theta) over the coreset.
/// Throws as build_coreset does for the data and the model, and InvalidArgument for a
/// parameter count other than d.
CORESET_API Matrix<double> log_likelihoods(const Dataset& data, const ModelOptions& model,
                                           const Matrix<double>& parameters,
                                           std::uint64_t seed = 0);

/// Phi from your own log-likelihood matrix (n x S: row i is datapoint i at S posterior draws,
/// e.g. from Stan or PyMC): each datapoint's values centred over the draws and scaled by
/// 1/sqrt(S), exactly as build_coreset does. The result is S x n. `progress`, when given, sees
/// Stage::projection in datapoints, and a stop request ends the pass within a block of them
/// (coreset::Cancelled).
CORESET_API Matrix<double> projection_from_loglik(const Matrix<double>& loglik,
                                                  ProgressObserver* progress = nullptr);
CORESET_API Matrix<float> projection_from_loglik(const Matrix<float>& loglik,
                                                 ProgressObserver* progress = nullptr);
/// The same for log-likelihoods in any strided layout, read in place in one pass: the value of
/// datapoint i at draw s is loglik[i * datapoint_stride + s * draw_stride] (strides in elements,
/// >= 0). An n x S array in C order has strides (S, 1); an S x n one, ArviZ's draws flattened
/// from (chain, draw, n), has (1, n). Throws InvalidArgument for datapoints < 1 or draws < 2 (one
/// draw, centred, is all zeros), a null
/// pointer, a negative stride or a non-finite value (named by its 0-based datapoint and draw).
CORESET_API Matrix<double> projection_from_loglik(const double* loglik, index_t datapoints,
                                                  index_t draws, index_t datapoint_stride,
                                                  index_t draw_stride,
                                                  ProgressObserver* progress = nullptr);
CORESET_API Matrix<float> projection_from_loglik(const float* loglik, index_t datapoints,
                                                 index_t draws, index_t datapoint_stride,
                                                 index_t draw_stride,
                                                 ProgressObserver* progress = nullptr);

}  // namespace coreset
