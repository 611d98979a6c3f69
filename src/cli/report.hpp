// What the commands tell the user: the human-readable summaries. The JSON reports are the
// library's (coreset/report.hpp), so the Python package writes the same ones.
#pragma once

#include <string>

#include "coreset/build.hpp"
#include "coreset/report.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli {

/// Where a `solve` problem came from; recorded in the report beside the result.
using SolveInputs = SolveReportInputs;
/// Where a `build` or `evaluate` problem came from.
using BuildInputs = BuildReportInputs;

/// The coreset as `index,weight` lines with a header, for stdout when no --out is given.
std::string render_coreset_listing(const Coreset& coreset);

std::string render_solve_summary(const SolveInputs& inputs, const SolveResult& result,
                                 bool list_coreset);
std::string render_build_summary(const BuildInputs& inputs, const BuildResult& result,
                                 bool list_coreset);
std::string render_evaluate_summary(const BuildInputs& inputs, const std::string& coreset_path,
                                    const Coreset& coreset, const Quality& quality);

}  // namespace coreset::cli
