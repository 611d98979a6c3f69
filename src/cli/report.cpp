#include "cli/report.hpp"

#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

#include "coreset/version.hpp"

namespace coreset::cli {
namespace {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char buffer[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

}  // namespace

std::string render_json_report(const SolveInputs& inputs, const SolveResult& result) {
  nlohmann::ordered_json report;
  report["tool"] = "coreset";
  report["version"] = version();
  report["command"] = "solve";
  report["input"] = {{"phi", inputs.phi_path},
                     {"y", inputs.y_path.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(inputs.y_path)},
                     {"rows", inputs.rows},
                     {"cols", inputs.cols},
                     {"precision", inputs.precision}};
  report["algorithm"] = to_string(result.algorithm);
  report["step_rule"] = to_string(result.step_rule);
  report["k_requested"] = inputs.options.k;
  report["k"] = result.k;
  report["max_iterations"] = inputs.options.max_iterations;
  report["tolerance"] = inputs.options.tolerance;
  report["seed"] = inputs.options.seed;
  report["support_size"] = result.coreset.size();
  report["iterations"] = result.iterations;
  report["converged"] = result.converged;
  report["stop_reason"] = to_string(result.stop_reason);
  report["objective"] = result.objective;
  report["relative_error"] = result.relative_error;
  report["target_norm"] = result.target_norm;
  report["seconds"] = result.seconds;
  if (result.algorithm == Algorithm::iht) {
    report["lipschitz"] = result.lipschitz;
  }
  report["objective_history"] = result.objective_history;
  report["coreset"] = {{"indices", result.coreset.indices}, {"weights", result.coreset.weights}};
  return report.dump(2) + "\n";
}

std::string render_summary(const SolveInputs& inputs, const SolveResult& result,
                           bool list_coreset) {
  const double total_weight =
      std::accumulate(result.coreset.weights.begin(), result.coreset.weights.end(), 0.0);
  std::string text;
  text += format("coreset solve: %s (step rule %s), k = %lld, Phi %lld x %lld (%s)\n",
                 to_string(result.algorithm).c_str(), to_string(result.step_rule).c_str(),
                 static_cast<long long>(result.k), static_cast<long long>(inputs.rows),
                 static_cast<long long>(inputs.cols), inputs.precision.c_str());
  text += format("  stopped:        %s after %d iterations (%s)\n",
                 to_string(result.stop_reason).c_str(), result.iterations,
                 result.converged ? "converged" : "NOT converged: raise --max-iter");
  text += format("  objective:      ||y - Phi w||^2 = %.6g\n", result.objective);
  text += format("  relative error: ||y - Phi w|| / ||y|| = %.6g\n", result.relative_error);
  text += format("  coreset:        %lld of %lld datapoints, total weight %.6g\n",
                 static_cast<long long>(result.coreset.size()), static_cast<long long>(inputs.cols),
                 total_weight);
  text += format("  time:           %.3f s\n", result.seconds);
  if (list_coreset) {
    text += "index,weight\n";
    for (std::size_t p = 0; p < result.coreset.indices.size(); ++p) {
      text += format("%lld,%.17g\n", static_cast<long long>(result.coreset.indices[p]),
                     result.coreset.weights[p]);
    }
  }
  return text;
}

}  // namespace coreset::cli
