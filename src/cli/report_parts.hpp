// The pieces of the commands' human-readable summaries (report.cpp), shared with those of
// `sweep` and `build -k auto` (sweep_report.cpp). The JSON reports are the library's
// (coreset/report.hpp).
#pragma once

#include <string>

#include "coreset/build.hpp"
#include "coreset/solver.hpp"

namespace coreset::cli::report_parts {

/// printf into a string (at most 511 characters).
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
/// The coreset's total weight, "%.6g".
std::string total_weight(const Coreset& coreset);
/// The coreset as `index,weight` lines with a header.
std::string coreset_listing(const Coreset& coreset);
/// The summary's projection and posterior lines.
std::string quality_lines(const Quality& quality);
/// "a-iht-2 (step rule exact)"; the baselines have no step rule.
std::string solver_label(const SolveResult& result);

}  // namespace coreset::cli::report_parts
