// The JSON reports of the `coreset` command (`--report FILE`), as library functions: what a run
// was given and what it gave, in one object whose fields README ("The JSON report") documents.
// The command and the Python package both write them through these functions, so a report means
// the same wherever it came from.
#pragma once

#include <string>

#include "coreset/build.hpp"
#include "coreset/export.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"
#include "coreset/types.hpp"

namespace coreset {

/// Where a solve's problem came from, recorded in its report's "input" object.
struct CORESET_API SolveReportInputs {
  std::string phi_path;     ///< the Phi file, or empty (then null in the report)
  std::string loglik_path;  ///< the log-likelihood file Phi was made from, or empty
  std::string y_path;       ///< the target's file; empty: y = Phi 1 (or given in memory)
  index_t rows = 0;         ///< S
  index_t cols = 0;         ///< n
  Precision precision = Precision::float64;
  SolverOptions options;  ///< as the solve was asked for (k, tolerance, seed, threads, ...)
};

/// Where a build's (or an evaluation's) dataset came from, and the options it ran with.
struct CORESET_API BuildReportInputs {
  std::string data_description;  ///< the dataset's path, or what the built-in dataset is
  index_t rows = 0;              ///< n
  index_t covariates = 0;        ///< D
  std::string response_name;
  std::string prior_covariance_path;  ///< empty: none given (null in the report)
  std::string noise_covariance_path;
  BuildOptions options;  ///< also the precision of Phi
};

/// The report of `coreset solve`: a JSON object followed by a newline. Throws only
/// std::bad_alloc; thread-safe. Strings (paths, column names) are taken as the bytes they are:
/// a sequence that is not UTF-8 (a Latin-1 header) is written as U+FFFD, as in every report.
CORESET_API std::string solve_report_json(const SolveReportInputs& inputs,
                                          const SolveResult& result);
/// The report of `coreset build`.
CORESET_API std::string build_report_json(const BuildReportInputs& inputs,
                                          const BuildResult& result);
/// The report of `coreset build -k auto`: build_report_json's fields plus "choose_k", the
/// target, every budget tried (in order, with its quality and whether it reached the target)
/// and the one chosen.
CORESET_API std::string build_report_json(const BuildReportInputs& inputs,
                                          const BuildResult& result, const ChooseKResult& search,
                                          const KTarget& target);
/// The report of `coreset sweep`: the shared stages, then one entry per budget in "budgets"
/// (k, support, warm start, iterations, quality, seconds, the coreset posterior's mean).
CORESET_API std::string sweep_report_json(const BuildReportInputs& inputs,
                                          const PreparedProblem& problem, const SweepResult& sweep);
/// The report of `coreset evaluate`; `coreset_source` names where the coreset came from.
CORESET_API std::string evaluate_report_json(const BuildReportInputs& inputs,
                                             const std::string& coreset_source,
                                             const Coreset& coreset, const Quality& quality);

}  // namespace coreset
