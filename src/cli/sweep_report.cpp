#include "cli/sweep_report.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/report_parts.hpp"
#include "cli/svg_plot.hpp"
#include "coreset/report.hpp"

namespace coreset::cli {

using namespace report_parts;

namespace {

// "symmetric KL" / "relative error" in prose; the JSON uses to_string(metric).
std::string metric_label(TargetMetric metric) {
  return metric == TargetMetric::symmetric_kl ? "symmetrised KL" : "relative error";
}

std::string budget_list(const ChooseKResult& search) {
  std::string list;
  for (const BudgetRun& budget : search.tried) {
    list += (list.empty() ? "" : ", ") + std::to_string(budget.k);
  }
  return list;
}

}  // namespace

const char* const kSweepCsvHeader =
    "k,support,relative_error,forward_kl,reverse_kl,symmetric_kl,map_distance,seconds";

std::string render_sweep_csv(const SweepResult& sweep) {
  std::string csv = std::string(kSweepCsvHeader) + "\n";
  for (const BudgetRun& budget : sweep.budgets) {
    const Quality& q = budget.run.quality;
    csv +=
        format("%lld,%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.6f\n", static_cast<long long>(budget.k),
               static_cast<long long>(budget.run.solve.coreset.size()), q.relative_projection_error,
               q.forward_kl, q.reverse_kl, q.symmetric_kl, q.map_distance, budget.seconds);
  }
  return csv;
}

std::string sweep_coreset_file(index_t k) {
  return "coreset_k" + std::to_string(k) + ".csv";
}

// The library's sweep report, with the file each budget's coreset was written to.
std::string render_sweep_report(const BuildInputs& inputs, const PreparedProblem& problem,
                                const SweepResult& sweep) {
  auto report = nlohmann::ordered_json::parse(sweep_report_json(inputs, problem, sweep));
  for (auto& budget : report["budgets"]) {
    budget["coreset_file"] = sweep_coreset_file(budget["k"].get<index_t>());
  }
  return report.dump(2) + "\n";
}

std::string render_sweep_svg(const BuildInputs& inputs, const PreparedProblem& problem,
                             const SweepResult& sweep) {
  LinePlot plot;
  plot.title = "coreset sweep: " + to_string(inputs.options.model.kind) + " model, " +
               to_string(inputs.options.solver.algorithm) + ", on " + inputs.data_description;
  plot.subtitle = std::to_string(inputs.rows) + " rows; pi-hat " + to_string(problem.pihat()) +
                  ", S = " + std::to_string(problem.samples()) + " samples, seed " +
                  std::to_string(inputs.options.seed) + "; coreset posterior " +
                  (sweep.budgets.empty() ? std::string("-")
                                         : sweep.budgets.front().run.quality.posterior_method);
  plot.x_label = "coreset size budget k";
  plot.y_label = "error / KL divergence";
  PlotSeries error{"relative error ||y - Phi w||/||y||", {}, {}, {}, {}};
  PlotSeries forward{"forward KL(full||coreset)", {}, {}, {}, {}};
  PlotSeries reverse{"reverse KL(coreset||full)", {}, {}, {}, {}};
  PlotSeries symmetric{"symmetrised KL", {}, {}, {}, {}};
  for (const BudgetRun& budget : sweep.budgets) {
    const auto k = static_cast<double>(budget.k);
    const Quality& q = budget.run.quality;
    for (PlotSeries* series : {&error, &forward, &reverse, &symmetric}) {
      series->x.push_back(k);
    }
    error.y.push_back(q.relative_projection_error);
    forward.y.push_back(q.forward_kl);
    reverse.y.push_back(q.reverse_kl);
    symmetric.y.push_back(q.symmetric_kl);
  }
  plot.series = {error, forward, reverse, symmetric};
  return render_svg_line_plot(plot);
}

std::string render_sweep_summary(const BuildInputs& inputs, const PreparedProblem& problem,
                                 const SweepResult& sweep, const std::string& folder) {
  std::string text;
  text += format("coreset sweep: %s model on %s (%lld rows, %lld parameters)\n",
                 to_string(inputs.options.model.kind).c_str(), inputs.data_description.c_str(),
                 static_cast<long long>(inputs.rows), static_cast<long long>(problem.parameters()));
  text += format("  pi-hat:         %s, S = %lld samples (seed %llu)\n",
                 to_string(problem.pihat()).c_str(), static_cast<long long>(problem.samples()),
                 static_cast<unsigned long long>(inputs.options.seed));
  text += format("  algorithm:      %s, %zu budgets\n",
                 to_string(inputs.options.solver.algorithm).c_str(), sweep.budgets.size());
  text += "       k  support  rel. error  forward KL  reverse KL  sym. KL    seconds\n";
  for (const BudgetRun& budget : sweep.budgets) {
    const Quality& q = budget.run.quality;
    text += format(
        "  %6lld  %7lld  %10.4g  %10.4g  %10.4g  %9.4g  %7.3f\n", static_cast<long long>(budget.k),
        static_cast<long long>(budget.run.solve.coreset.size()), q.relative_projection_error,
        q.forward_kl, q.reverse_kl, q.symmetric_kl, budget.seconds);
  }
  const StageSeconds& s = problem.seconds();
  text += format("  time:           %.3f s (preparation %.3f, sweep %.3f)\n",
                 s.total() + sweep.seconds, s.total(), sweep.seconds);
  text += "  written:        " + folder + "/sweep.csv, sweep.svg, report.json, coreset_k<K>.csv\n";
  return text;
}

std::string render_budgets_tried(const ChooseKResult& search, const KTarget& target) {
  std::string text;
  for (const BudgetRun& budget : search.tried) {
    const double value = metric_value(budget.run.quality, target.metric);
    text += format("coreset: -k auto: k = %lld: %s %.6g %s %.6g\n",
                   static_cast<long long>(budget.k), metric_label(target.metric).c_str(), value,
                   value <= target.value ? "<=" : ">", target.value);
  }
  return text;
}

std::string render_target_not_reached(const ChooseKResult& search, const KTarget& target,
                                      index_t rows) {
  const BudgetRun& best = search.result();
  return format(
      "no budget k <= %lld (the data's rows) reaches %s <= %.6g; the best reached was "
      "%.6g at k = %lld (budgets tried: %s)",
      static_cast<long long>(rows), metric_label(target.metric).c_str(), target.value,
      metric_value(best.run.quality, target.metric), static_cast<long long>(best.k),
      budget_list(search).c_str());
}

std::string render_choose_k_line(const ChooseKResult& search, const KTarget& target) {
  const BudgetRun& chosen = search.result();
  std::string text =
      format("  k auto:         k = %lld is the smallest budget tried reaching %s <= %.6g (%.6g)\n",
             static_cast<long long>(chosen.k), metric_label(target.metric).c_str(), target.value,
             metric_value(chosen.run.quality, target.metric));
  text += "                  budgets tried: " + budget_list(search) +
          format(" (%.3f s)\n", search.seconds);
  return text;
}

}  // namespace coreset::cli
