// From a dataset and a model to a coreset (spec 1.3, 3, 4): the weighting distribution pi-hat,
// S parameter samples, the projection Phi, the solve, and a report of how close the coreset
// posterior is to the full one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "coreset/matrix.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"

namespace coreset {

/// The weighting distribution pi-hat that the S samples are drawn from.
enum class Pihat {
  automatic,  ///< exact for gaussian and linear, laplace otherwise
  laplace,    ///< Laplace approximation of the full-data posterior (Newton's method)
  exact,      ///< the closed-form posterior (gaussian and linear only)
  samples,    ///< the user's own posterior draws (BuildOptions::user_samples)
};

std::string to_string(Pihat pihat);
Pihat parse_pihat(const std::string& name);

struct BuildOptions {
  ModelOptions model;
  SolverOptions solver;   ///< k, algorithm, tolerance, ... (solver.k defaults to 100 here)
  index_t samples = 500;  ///< S, the projection dimension (ignored for Pihat::samples)
  Pihat pihat = Pihat::automatic;
  Matrix<double> user_samples;      ///< Pihat::samples: S x d draws, d = the model's parameters
  std::string user_samples_source;  ///< where user_samples came from, for error messages
  std::uint64_t seed = 0;           ///< seeds the sampling
  bool single_precision = false;    ///< Phi and the solve in float (half the memory)
  BuildOptions() { solver.k = 100; }
};

/// How good a coreset is (spec 4.3, 4.4). The full and coreset posteriors are closed form for
/// gaussian and linear, weighted Laplace approximations for logistic and poisson.
struct Quality {
  double relative_projection_error = 0.0;  ///< ||y - Phi w|| / ||y|| on the build's Phi
  double forward_kl = 0.0;                 ///< KL(pi || pi_w)
  double reverse_kl = 0.0;                 ///< KL(pi_w || pi)
  double symmetric_kl = 0.0;               ///< the sum of the two
  double map_distance = 0.0;               ///< ||theta_MAP(full) - theta_MAP(w)||
  std::string posterior_method;            ///< "exact" or "laplace"
};

/// Wall time of each stage, in seconds.
struct StageSeconds {
  double pihat = 0.0;       ///< fitting the weighting distribution
  double sampling = 0.0;    ///< drawing the S samples
  double projection = 0.0;  ///< the log-likelihood matrix, centred and scaled: Phi
  double solve = 0.0;
  double evaluation = 0.0;  ///< the quality report
};

struct BuildResult {
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

/// The whole job. Throws InputError for data outside the model's domain (naming file, line and
/// column when the dataset came from a file), InvalidArgument for bad options, NumericalError
/// when a Laplace fit does not converge.
BuildResult build_coreset(const Dataset& data, const BuildOptions& options);

/// The quality of any coreset of `data` (0-based row indices), with the same pi-hat, samples and
/// Phi that build_coreset would use for these options.
Quality evaluate_coreset(const Dataset& data, const BuildOptions& options, const Coreset& coreset);

/// Phi from your own log-likelihood matrix (n x S: row i is datapoint i at S posterior draws,
/// e.g. from Stan or PyMC): each datapoint's values centred over the draws and scaled by
/// 1/sqrt(S), exactly as build_coreset does. The result is S x n.
Matrix<double> projection_from_loglik(const Matrix<double>& loglik);
Matrix<float> projection_from_loglik(const Matrix<float>& loglik);

}  // namespace coreset
