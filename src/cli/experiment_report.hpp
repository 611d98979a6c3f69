// What `coreset experiment` writes: the tidy results table and the summary on stdout.
#pragma once

#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/types.hpp"

namespace coreset::cli {

/// One coreset of the experiment: (dataset, algorithm, k, trial) and how good it is.
struct ExperimentRow {
  std::string dataset;
  std::string algorithm;
  index_t k = 0;  ///< the budget asked for
  int trial = 0;  ///< 0-based; also the seed of everything random in the trial
  double forward_kl = 0.0;
  double reverse_kl = 0.0;
  double symmetric_kl = 0.0;
  double map_distance = 0.0;
  double objective = 0.0;       ///< ||y - Phi w||^2
  double relative_error = 0.0;  ///< ||y - Phi w|| / ||y||
  index_t support = 0;          ///< non-zero weights
  double seconds = 0.0;         ///< construction: the solve's wall time
};

ExperimentRow experiment_row(const std::string& dataset, const std::string& algorithm, index_t k,
                             int trial, const CoresetRun& run);

/// The header line of results.csv, without the newline.
extern const char* const kExperimentCsvHeader;

/// results.csv: the header, then one line per row, in the given order.
std::string render_experiment_csv(const std::string& experiment,
                                  const std::vector<ExperimentRow>& rows);

/// What the run did and the median forward KL (or, for the large-scale experiment, the median
/// symmetrised KL and construction time) per dataset and algorithm at a few of the budgets.
struct ExperimentSummary {
  std::string experiment;
  std::string description;  // e.g. "S = 500 samples from the Laplace pi-hat ..."
  std::string note;         // printed as "  note: ..." when set (e.g. a synthetic stand-in)
  bool symmetric_kl_and_time = false;  // spec 5.1's large-scale figure: symmetrised KL, time
  std::vector<std::string> datasets;
  std::vector<std::string> algorithms;
  std::vector<index_t> ks;  // ascending
  int trials = 0;
  int failed_runs = 0;
  double seconds = 0.0;
  std::string results_path;
};
std::string render_experiment_summary(const ExperimentSummary& summary,
                                      const std::vector<ExperimentRow>& rows);

/// One dataset's picture beside results.csv (DATASET.svg): per algorithm, the median forward
/// KL (symmetrised for the large-scale experiment) against k with the papers' percentile band,
/// as bench/plot_experiment.py draws it, as a self-contained SVG.
std::string render_experiment_svg(const ExperimentSummary& summary,
                                  const std::vector<ExperimentRow>& rows,
                                  const std::string& dataset);

}  // namespace coreset::cli
