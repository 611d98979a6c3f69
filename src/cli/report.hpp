// What `coreset solve` tells the user: the JSON report and the human-readable summary.
#pragma once

#include <string>

#include "coreset/solver.hpp"

namespace coreset::cli {

/// Where the problem came from; recorded in the report beside the result.
struct SolveInputs {
  std::string phi_path;
  std::string y_path;  // empty: y = Phi 1
  index_t rows = 0;
  index_t cols = 0;
  std::string precision;
  SolverOptions options;
};

/// The --report JSON: options, result, per-iteration objective, and the coreset itself.
std::string render_json_report(const SolveInputs& inputs, const SolveResult& result);

/// The summary printed on stdout; with `list_coreset` the weights follow it.
std::string render_summary(const SolveInputs& inputs, const SolveResult& result, bool list_coreset);

}  // namespace coreset::cli
