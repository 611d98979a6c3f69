// What `coreset sweep` and `coreset build -k auto` tell the user: sweep.csv, report.json, the
// picture and the summaries of a sweep, and the lines and report section of a search for k.
#pragma once

#include <string>

#include "cli/report.hpp"
#include "coreset/build.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli {

/// The header line of sweep.csv, without the newline.
extern const char* const kSweepCsvHeader;
/// sweep.csv: one line per budget, ascending k.
std::string render_sweep_csv(const SweepResult& sweep);
/// The name of budget k's coreset file in the sweep's folder: coreset_k<K>.csv.
std::string sweep_coreset_file(index_t k);
/// report.json: inputs, options, the prepared problem and every budget.
std::string render_sweep_report(const BuildInputs& inputs, const PreparedProblem& problem,
                                const SweepResult& sweep);
/// The error and the KLs against k as a self-contained SVG (cli/svg_plot.hpp).
std::string render_sweep_svg(const BuildInputs& inputs, const PreparedProblem& problem,
                             const SweepResult& sweep);
std::string render_sweep_summary(const BuildInputs& inputs, const PreparedProblem& problem,
                                 const SweepResult& sweep, const std::string& folder);

/// One line per budget a search for k tried, in order, for stderr.
std::string render_budgets_tried(const ChooseKResult& search, const KTarget& target);
/// The message of a target that no budget reached: the best value reached and its k.
std::string render_target_not_reached(const ChooseKResult& search, const KTarget& target,
                                      index_t rows);
/// The summary's line for a search that reached its target.
std::string render_choose_k_line(const ChooseKResult& search, const KTarget& target);

}  // namespace coreset::cli
