// What the commands tell the user: the JSON reports and the human-readable summaries.
#pragma once

#include <string>

#include "coreset/build.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli {

/// Where a `solve` problem came from; recorded in the report beside the result.
struct SolveInputs {
  std::string phi_path;     // --phi, or empty with --loglik
  std::string loglik_path;  // --loglik, or empty
  std::string y_path;       // empty: y = Phi 1
  index_t rows = 0;
  index_t cols = 0;
  Precision precision = Precision::float64;
  SolverOptions options;
};

/// Where a `build` or `evaluate` problem came from.
struct BuildInputs {
  std::string data_description;  // the path, or what the built-in dataset is
  index_t rows = 0;
  index_t covariates = 0;
  std::string response_name;
  std::string prior_covariance_path;  // empty: none given
  std::string noise_covariance_path;
  BuildOptions options;  // also the precision of Phi, for the report
};

/// The coreset as `index,weight` lines with a header, for stdout when no --out is given.
std::string render_coreset_listing(const Coreset& coreset);

std::string render_solve_report(const SolveInputs& inputs, const SolveResult& result);
std::string render_solve_summary(const SolveInputs& inputs, const SolveResult& result,
                                 bool list_coreset);

/// With `search` and `target` (build -k auto): also the search, as "choose_k".
std::string render_build_report(const BuildInputs& inputs, const BuildResult& result,
                                const ChooseKResult* search = nullptr,
                                const KTarget* target = nullptr);
std::string render_build_summary(const BuildInputs& inputs, const BuildResult& result,
                                 bool list_coreset);

std::string render_evaluate_report(const BuildInputs& inputs, const std::string& coreset_path,
                                   const Coreset& coreset, const Quality& quality);
std::string render_evaluate_summary(const BuildInputs& inputs, const std::string& coreset_path,
                                    const Coreset& coreset, const Quality& quality);

}  // namespace coreset::cli
