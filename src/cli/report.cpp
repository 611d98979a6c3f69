#include "cli/report.hpp"

#include "cli/report_parts.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <numeric>

namespace coreset::cli {
namespace report_parts {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char buffer[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

std::string total_weight(const Coreset& coreset) {
  return format("%.6g", std::accumulate(coreset.weights.begin(), coreset.weights.end(), 0.0));
}

std::string coreset_listing(const Coreset& coreset) {
  std::string text = "index,weight\n";
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    text += format("%lld,%.17g\n", static_cast<long long>(coreset.indices[p]), coreset.weights[p]);
  }
  return text;
}

std::string quality_lines(const Quality& quality) {
  std::string text;
  text +=
      format("  projection:     ||y - Phi w|| / ||y|| = %.6g\n", quality.relative_projection_error);
  text += format("  posterior (%s): KL(full || coreset) = %.6g, KL(coreset || full) = %.6g,\n",
                 quality.posterior_method.c_str(), quality.forward_kl, quality.reverse_kl);
  text += format("                  symmetrised %.6g; MAP distance %.6g\n", quality.symmetric_kl,
                 quality.map_distance);
  return text;
}

// "a-iht-2 (step rule exact)"; the baselines have no step rule.
std::string solver_label(const SolveResult& result) {
  return is_iht_family(result.algorithm)
             ? to_string(result.algorithm) + " (step rule " + to_string(result.step_rule) + ")"
             : to_string(result.algorithm);
}

}  // namespace report_parts

using namespace report_parts;

namespace {

std::string stop_line(const SolveResult& result) {
  const bool sampler = result.algorithm == BuildAlgorithm::importance_sampling ||
                       result.algorithm == BuildAlgorithm::uniform;
  if (result.stop_reason == StopReason::budget && sampler) {
    return format("  stopped:        budget (one pass of k = %lld draws)\n",
                  static_cast<long long>(result.k));
  }
  const bool step_limit =
      result.stop_reason == StopReason::max_iterations && !is_iht_family(result.algorithm);
  const char* outcome = result.stop_reason == StopReason::budget ? "all k steps taken"
                        : step_limit       ? "the step limit 1000 + 100 n, for k far above n"
                        : result.converged ? "converged"
                                           : "NOT converged: raise --max-iter";
  return format("  stopped:        %s after %d iterations (%s)\n",
                to_string(result.stop_reason).c_str(), result.iterations, outcome);
}

// With --refit: f at the algorithm's weights and after the NNLS refit on their support.
std::string refit_line(const SolverSettings& options, const SolveResult& result) {
  if (!options.refit) {
    return "";
  }
  return format("  refit:          NNLS on the support: f = %.6g before, %.6g after\n",
                result.objective_before_refit, result.objective);
}

// The iteration (1-based) whose f was lowest, when it was clearly below the last iterate's; 0
// otherwise. The accelerated variants are not monotone, and the papers return the last iterate.
int better_earlier_iteration(const SolveResult& result) {
  const std::vector<double>& history = result.objective_history;
  const auto best = std::min_element(history.begin(), history.end());
  if (best == history.end() || !(*best < result.objective_before_refit * (1.0 - 1e-9))) {
    return 0;
  }
  return static_cast<int>(best - history.begin()) + 1;
}

// When the coreset has fewer points than the budget, why (README, "Fewer than k points").
std::string fewer_points_line(const SolverSettings& options, const SolveResult& result) {
  if (result.coreset.size() >= result.k) {
    return "";
  }
  std::string why = "a point chosen again is reweighted, not added";
  if (const int t = is_iht_family(result.algorithm) ? better_earlier_iteration(result) : 0) {
    why = format(
        "iteration %d had f = %.6g, below the last iterate's (the accelerated steps are not "
        "monotone and, as in the papers, the last iterate is returned; --max-iter %d returns "
        "iteration %d's coreset)",
        t, result.objective_history[static_cast<std::size_t>(t - 1)], t, t);
  } else if (is_iht_family(result.algorithm)) {
    why =
        "no other point lowers f (copies of a chosen datapoint and datapoints whose "
        "log-likelihood does not vary are never chosen)";
  } else if (result.algorithm == BuildAlgorithm::importance_sampling ||
             result.algorithm == BuildAlgorithm::uniform) {
    why = "repeated draws of a point merge into one weight";
  }
  return format("  note:           %lld points, fewer than k = %lld: %s%s\n",
                static_cast<long long>(result.coreset.size()), static_cast<long long>(result.k),
                why.c_str(),
                options.refit ? "; the refit drops points whose best weight is 0" : "");
}

}  // namespace

std::string render_coreset_listing(const Coreset& coreset) {
  return coreset_listing(coreset);
}

std::string render_solve_summary(const SolveInputs& inputs, const SolveResult& result,
                                 bool list_coreset) {
  std::string text;
  text +=
      format("coreset solve: %s, k = %lld, Phi %lld x %lld (%s)\n", solver_label(result).c_str(),
             static_cast<long long>(result.k), static_cast<long long>(inputs.rows),
             static_cast<long long>(inputs.cols), to_string(inputs.precision).c_str());
  text += stop_line(result);
  text += format("  objective:      ||y - Phi w||^2 = %.6g\n", result.objective);
  text += refit_line(inputs.options, result);
  text += format("  relative error: ||y - Phi w|| / ||y|| = %.6g\n", result.relative_error);
  text += format("  coreset:        %lld of %lld datapoints, total weight %s\n",
                 static_cast<long long>(result.coreset.size()), static_cast<long long>(inputs.cols),
                 total_weight(result.coreset).c_str());
  text += fewer_points_line(inputs.options, result);
  text += format("  time:           %.3f s\n", result.seconds);
  return list_coreset ? text + coreset_listing(result.coreset) : text;
}

std::string render_build_summary(const BuildInputs& inputs, const BuildResult& result,
                                 bool list_coreset) {
  const SolveResult& solve = result.solve;
  const StageSeconds& s = result.seconds;
  std::string text;
  text += format("coreset build: %s model on %s (%lld rows, %lld parameters)\n",
                 to_string(inputs.options.model.kind).c_str(), inputs.data_description.c_str(),
                 static_cast<long long>(inputs.rows), static_cast<long long>(result.parameters));
  text += format("  pi-hat:         %s, S = %lld samples (seed %llu)\n",
                 to_string(result.pihat).c_str(), static_cast<long long>(result.samples),
                 static_cast<unsigned long long>(inputs.options.seed));
  text += format("  solver:         %s, k = %lld\n", solver_label(solve).c_str(),
                 static_cast<long long>(solve.k));
  text += stop_line(solve);
  text += refit_line(inputs.options.solver, solve);
  text += format("  coreset:        %lld of %lld rows, total weight %s\n",
                 static_cast<long long>(solve.coreset.size()), static_cast<long long>(inputs.rows),
                 total_weight(solve.coreset).c_str());
  text += fewer_points_line(inputs.options.solver, solve);
  text += quality_lines(result.quality);
  text += format(
      "  time:           %.3f s (setup %.3f, pi-hat %.3f, sampling %.3f, projection %.3f, "
      "solve %.3f, evaluation %.3f)\n",
      s.total(), s.setup, s.pihat, s.sampling, s.projection, s.solve, s.evaluation);
  return list_coreset ? text + coreset_listing(solve.coreset) : text;
}

std::string render_evaluate_summary(const BuildInputs& inputs, const std::string& coreset_path,
                                    const Coreset& coreset, const Quality& quality) {
  std::string text;
  text += format("coreset evaluate: %s (%lld rows, total weight %s) for the %s model on %s\n",
                 coreset_path.c_str(), static_cast<long long>(coreset.size()),
                 total_weight(coreset).c_str(), to_string(inputs.options.model.kind).c_str(),
                 inputs.data_description.c_str());
  return text + quality_lines(quality);
}

}  // namespace coreset::cli
