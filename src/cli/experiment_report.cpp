#include "cli/experiment_report.hpp"

#include "cli/svg_plot.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace coreset::cli {
namespace {

std::string number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

// The q-th percentile with linear interpolation between order statistics (numpy's default, as
// bench/plot_experiment.py uses); q = 50 is the median.
double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = static_cast<double>(values.size() - 1) * q / 100.0;
  const auto low = static_cast<std::size_t>(position);
  const std::size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (position - static_cast<double>(low));
}

double median(std::vector<double> values) {
  return percentile(std::move(values), 50.0);
}

// At most four budgets spread over the list: the first, the last and two between.
std::vector<index_t> summary_budgets(const std::vector<index_t>& ks) {
  if (ks.size() <= 4) {
    return ks;
  }
  const std::size_t last = ks.size() - 1;
  std::vector<index_t> picked;
  for (const std::size_t position : {std::size_t{0}, last / 3, (2 * last) / 3, last}) {
    if (picked.empty() || picked.back() != ks[position]) {
      picked.push_back(ks[position]);
    }
  }
  return picked;
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

std::string end_line(std::string text) {
  text.erase(text.find_last_not_of(' ') + 1);
  return text + "\n";
}

std::string counted(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// One row per dataset and algorithm, one column per summary budget: the median of `metric`.
template <class Metric>
std::string median_table(const ExperimentSummary& summary, const std::vector<ExperimentRow>& rows,
                         const Metric& metric) {
  char line[64];
  std::string text;
  const std::vector<index_t> budgets = summary_budgets(summary.ks);
  std::size_t dataset_width = 8;
  for (const std::string& name : summary.datasets) {
    dataset_width = std::max(dataset_width, name.size() + 2);
  }
  std::size_t algorithm_width = 11;
  for (const std::string& name : summary.algorithms) {
    algorithm_width = std::max(algorithm_width, name.size() + 2);
  }
  constexpr std::size_t kColumn = 12;
  std::string header =
      "  " + padded("dataset", dataset_width) + padded("algorithm", algorithm_width);
  for (const index_t k : budgets) {
    header += padded("k=" + std::to_string(k), kColumn);
  }
  text += end_line(header);
  for (const std::string& dataset : summary.datasets) {
    for (const std::string& algorithm : summary.algorithms) {
      std::string cells =
          "  " + padded(dataset, dataset_width) + padded(algorithm, algorithm_width);
      for (const index_t k : budgets) {
        std::vector<double> values;
        for (const ExperimentRow& row : rows) {
          if (row.k == k && row.dataset == dataset && row.algorithm == algorithm) {
            values.push_back(metric(row));
          }
        }
        if (values.empty()) {
          cells += padded("-", kColumn);
        } else {
          std::snprintf(line, sizeof line, "%.4g", median(values));
          cells += padded(line, kColumn);
        }
      }
      text += end_line(cells);
    }
  }
  return text;
}

}  // namespace

const char* const kExperimentCsvHeader =
    "experiment,dataset,algorithm,k,trial,forward_kl,reverse_kl,symmetric_kl,map_distance,"
    "objective,relative_error,support,seconds";

ExperimentRow experiment_row(const std::string& dataset, const std::string& algorithm, index_t k,
                             int trial, const CoresetRun& run) {
  ExperimentRow row;
  row.dataset = dataset;
  row.algorithm = algorithm;
  row.k = k;
  row.trial = trial;
  row.forward_kl = run.quality.forward_kl;
  row.reverse_kl = run.quality.reverse_kl;
  row.symmetric_kl = run.quality.symmetric_kl;
  row.map_distance = run.quality.map_distance;
  row.objective = run.solve.objective;
  row.relative_error = run.solve.relative_error;
  row.support = run.solve.coreset.size();
  row.seconds = run.solve_seconds;
  return row;
}

std::string render_experiment_csv(const std::string& experiment,
                                  const std::vector<ExperimentRow>& rows) {
  std::string text = std::string(kExperimentCsvHeader) + "\n";
  text.reserve(text.size() + rows.size() * 160);
  for (const ExperimentRow& row : rows) {
    text += experiment + "," + row.dataset + "," + row.algorithm + "," + std::to_string(row.k) +
            "," + std::to_string(row.trial) + "," + number(row.forward_kl) + "," +
            number(row.reverse_kl) + "," + number(row.symmetric_kl) + "," +
            number(row.map_distance) + "," + number(row.objective) + "," +
            number(row.relative_error) + "," + std::to_string(row.support) + "," +
            number(row.seconds) + "\n";
  }
  return text;
}

std::string render_experiment_summary(const ExperimentSummary& summary,
                                      const std::vector<ExperimentRow>& rows) {
  const std::size_t runs = summary.datasets.size() * summary.algorithms.size() * summary.ks.size() *
                           static_cast<std::size_t>(summary.trials);
  char line[512];
  std::string text = "coreset experiment " + summary.experiment + ": " +
                     counted(summary.datasets.size(), "dataset") + " x " +
                     counted(summary.algorithms.size(), "algorithm") + " x " +
                     counted(summary.ks.size(), "budget") + " k x " +
                     counted(static_cast<std::size_t>(summary.trials), "trial") + " = " +
                     counted(runs, "run");
  std::snprintf(line, sizeof line, " in %.1f s\n", summary.seconds);
  text += line;
  text += "  " + summary.description + "\n";
  if (!summary.note.empty()) {
    text += "  note: " + summary.note + "\n";
  }
  if (summary.failed_runs > 0) {
    std::snprintf(line, sizeof line,
                  "  %d run(s) failed and were left out of the table (reasons on stderr)\n",
                  summary.failed_runs);
    text += line;
  }
  text += "  results: " + summary.results_path + "\n";
  if (summary.symmetric_kl_and_time) {
    text += "median symmetrised KL(full || coreset) + KL(coreset || full) over the trials:\n";
    text += median_table(summary, rows, [](const ExperimentRow& row) { return row.symmetric_kl; });
    text += "median construction time (s; each k solved from scratch) over the trials:\n";
    text += median_table(summary, rows, [](const ExperimentRow& row) { return row.seconds; });
  } else {
    text += "median forward KL(full || coreset) over the trials:\n";
    text += median_table(summary, rows, [](const ExperimentRow& row) { return row.forward_kl; });
  }
  return text;
}

std::string render_experiment_svg(const ExperimentSummary& summary,
                                  const std::vector<ExperimentRow>& rows,
                                  const std::string& dataset) {
  // Spec 4.6: the papers shade the 25th-75th percentiles for gaussian and rbf, the 35th-65th
  // for the regression experiments.
  const bool wide = summary.experiment == "gaussian" || summary.experiment == "rbf";
  const double low = wide ? 25.0 : 35.0;
  const double high = wide ? 75.0 : 65.0;
  const bool symmetric = summary.symmetric_kl_and_time;
  LinePlot plot;
  plot.title = "coreset experiment " + summary.experiment + ": " + dataset;
  plot.subtitle = "median over " + std::to_string(summary.trials) + " trials, band " + number(low) +
                  "th-" + number(high) + "th percentile";
  plot.x_label = "coreset size budget k";
  plot.y_label = symmetric ? "symmetrised KL" : "forward KL(full || coreset)";
  for (const std::string& algorithm : summary.algorithms) {
    PlotSeries series{algorithm, {}, {}, {}, {}};
    for (const index_t k : summary.ks) {
      std::vector<double> values;
      for (const ExperimentRow& row : rows) {
        if (row.dataset == dataset && row.algorithm == algorithm && row.k == k) {
          values.push_back(symmetric ? row.symmetric_kl : row.forward_kl);
        }
      }
      if (values.empty()) {
        continue;  // every trial of this run failed: no point
      }
      series.x.push_back(static_cast<double>(k));
      series.y.push_back(median(values));
      series.low.push_back(percentile(values, low));
      series.high.push_back(percentile(values, high));
    }
    plot.series.push_back(std::move(series));
  }
  return render_svg_line_plot(plot);
}

}  // namespace coreset::cli
