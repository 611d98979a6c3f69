// `coreset build` (dataset and model in, coreset and quality report out) and `coreset evaluate`
// (the same quality report for any coreset).
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_options.hpp"
#include "cli/mpi_run.hpp"
#include "cli/option_checks.hpp"
#include "cli/output_paths.hpp"
#include "cli/outputs.hpp"
#include "cli/report.hpp"
#include "cli/solver_arguments.hpp"
#include "cli/sweep_report.hpp"
#include "cli/terminal.hpp"
#include "cli/unused_options.hpp"
#include "coreset/build.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli {
namespace {

std::string reading_label(const ModelArguments& model) {
  return model.data_path.empty() ? std::string("generating the built-in data")
                                 : "reading " + model.data_path;
}

struct BuildArguments {
  ModelArguments model;
  std::string k = "100";  // a budget, or "auto" with one of the targets
  std::optional<double> target_kl;
  std::optional<double> target_error;
  SolverArguments solver;
  std::string out_path;
  std::string report_path;
  DeviceArguments device;
};

// -k auto needs exactly one target, and a target needs -k auto: checked before anything runs.
std::optional<KTarget> k_target(const BuildArguments& args) {
  const bool automatic = args.k == "auto";
  if (args.target_kl && args.target_error) {
    throw InvalidArgument("--target-kl and --target-error: give one of them, not both");
  }
  const std::optional<double>& value = args.target_kl ? args.target_kl : args.target_error;
  if (!automatic) {
    if (value) {
      throw InvalidArgument(std::string(args.target_kl ? "--target-kl" : "--target-error") +
                            " needs -k auto (got -k " + args.k + ")");
    }
    return std::nullopt;
  }
  if (!value) {
    throw InvalidArgument("-k auto needs a target: --target-kl X or --target-error E");
  }
  const char* option = args.target_kl ? "--target-kl" : "--target-error";
  if (!(*value > 0.0) || !std::isfinite(*value)) {
    char shown[32];  // %g: std::to_string's six decimals showed -1e-9 as -0.000000
    std::snprintf(shown, sizeof shown, "%g", *value);
    throw InvalidArgument(std::string(option) + " must be a finite number > 0 (got " + shown + ")");
  }
  return KTarget{args.target_kl ? TargetMetric::symmetric_kl : TargetMetric::relative_error,
                 *value};
}

// -k auto: the smallest k that reaches the target (coreset::choose_k) on one prepared problem.
// A target that no k <= n reaches is an error (kTargetNotReached) naming the best reached, and
// writes nothing.
BuildResult build_auto(const Dataset& data, const BuildOptions& options, const KTarget& target,
                       TerminalProgress& progress, ChooseKResult& search) {
  const PreparedProblem problem(data, options, PreparedProblem::CovariatesInPlace{});
  search = choose_k(problem, options.solver, target);
  progress.finish();
  const Communicator* comm = options.solver.communicator.get();
  if (!quiet() && (comm == nullptr || comm->rank() == 0)) {
    progress.print_line(render_budgets_tried(search, target));
  }
  if (!search.reached) {
    throw TargetNotReached(render_target_not_reached(search, target, problem.rows()));
  }
  return to_build_result(problem, search.result().run);
}

int run_build(const BuildArguments& args, const CLI::App& command) {
  const std::optional<KTarget> target = k_target(args);
  const index_t k = target ? 0 : parse_budget(args.k, "-k");
  const DeviceChoice choice = choose_run_device(args.device);  // before any file is touched
  // Under mpirun: one rank of a distributed build (coreset/distributed.hpp), holding its block of
  // Phi's columns; rank 0 alone shows progress and writes the outputs.
  const std::shared_ptr<const Communicator> comm = distributed_run();
  const bool writer = comm == nullptr || comm->rank() == 0;
  on_every_rank(comm.get(), [&] {
    if (writer) {
      check_writable_destination(args.out_path, "--out");
      check_writable_destination(args.report_path, "--report");
      check_distinct_files({{"--out", args.out_path}, {"--report", args.report_path}},
                           input_files(args.model));
    }
  });
  BuildInputs inputs;
  const ModelArguments& model = args.model;
  BuildOptions options = to_build_options(model);
  options.precision = choice.precision;  // --precision auto resolved
  options.solver.device = choice.device;
  apply_solver_arguments(args.solver, options.solver);
  if (writer) {
    print_unused_options(unused_model_options(command, model));
    print_unused_options(
        unused_solver_options(command, args.solver.algorithm, args.solver.batch_fraction, false));
  }
  options.solver.k = target ? 1 : k;  // -k auto: each budget of the search sets its own
  options.solver.communicator = comm;
  const std::optional<GpuWarmUp> warm_up = gpu_warm_up(choice, comm.get());  // while data is read
  TerminalProgress progress(writer);
  progress.task(reading_label(model), 0);
  // Under mpirun each rank reads only its share of the rows; what needs rows of other shares (the
  // coreset's, SparseVI's, the RBF centres) or sums over all of them comes from the ranks.
  const bool share = comm != nullptr && comm->size() > 1;
  Dataset data;
  on_every_rank(comm.get(), [&] {
    data = share ? load_dataset(model, inputs, comm) : load_dataset(model, inputs);
  });
  inputs.options = options;
  options.solver.progress = &progress;  // not in inputs.options: the report shows no pointer
  ChooseKResult search;
  BuildResult result;
  try {
    result = target ? build_auto(data, options, *target, progress, search)
                    : build_coreset(data, options);
  } catch (const TargetNotReached& error) {
    if (comm == nullptr) {
      throw;
    }
    // Every rank's search found the same: rank 0 alone says so, and no rank is stopped.
    return report_shared_failure(kTargetNotReached, "target not reached", error.what());
  }
  progress.finish();
  if (!writer) {
    return kSuccess;
  }
  if (target) {
    inputs.options.solver.k = result.solve.k;  // the report's k_requested: the chosen one
  }

  // Rendered first, so that a formatting failure cannot leave one file written.
  const std::string report = args.report_path.empty() ? std::string()
                             : target ? build_report_json(inputs, result, search, *target)
                                      : build_report_json(inputs, result);
  Outputs outputs;
  outputs.add(args.out_path,
              [&](const std::string& path) { io::write_coreset_csv(path, result.solve.coreset); });
  outputs.add(args.report_path,
              [&](const std::string& path) { io::write_file_atomic(path, report); });
  outputs.commit();
  std::string summary = render_build_summary(inputs, result, false);
  if (target) {
    summary += render_choose_k_line(search, *target);
  }
  print_summary(summary, args.out_path.empty() ? render_coreset_listing(result.solve.coreset)
                                               : std::string());
  return kSuccess;
}

struct EvaluateArguments {
  ModelArguments model;
  std::string coreset_path;
  std::string report_path;
};

int run_evaluate(const EvaluateArguments& args, const CLI::App& command) {
  check_writable_destination(args.report_path, "--report");
  std::vector<FileArgument> inputs_read = input_files(args.model);
  inputs_read.push_back({"--coreset", args.coreset_path});
  check_distinct_files({{"--report", args.report_path}}, inputs_read);
  BuildInputs inputs;
  BuildOptions options = to_build_options(args.model);
  print_unused_options(unused_model_options(command, args.model));
  TerminalProgress progress;
  progress.task(reading_label(args.model), 0);
  const Dataset data = load_dataset(args.model, inputs);
  inputs.options = options;
  progress.task("reading " + args.coreset_path, 0);
  const Coreset coreset = io::read_coreset_csv(args.coreset_path, data.rows());
  options.solver.progress = &progress;
  const Quality quality = evaluate_coreset(data, options, coreset);
  progress.finish();
  const std::string report =
      args.report_path.empty() ? std::string()
                               : evaluate_report_json(inputs, args.coreset_path, coreset, quality);
  Outputs outputs;
  outputs.add(args.report_path,
              [&](const std::string& path) { io::write_file_atomic(path, report); });
  outputs.commit();
  print_summary(render_evaluate_summary(inputs, args.coreset_path, coreset, quality), {});
  return kSuccess;
}

}  // namespace

std::function<int()> add_build_command(CLI::App& app) {
  auto args = std::make_shared<BuildArguments>();
  CLI::App* command = app.add_subcommand(
      "build", "Build a coreset from a dataset and a model, with a quality report");
  add_model_options(command, args->model);
  add_device_options(command, args->device);
  command
      ->add_option("-k,--k", args->k,
                   "coreset size budget, >= 1 (giga/fw: steps; is/uniform: draws; sparsevi: "
                   "selections), or auto: the smallest k reaching --target-kl or --target-error")
      ->capture_default_str();
  command->add_option("--target-kl", args->target_kl,
                      "-k auto: reach symmetrised KL(full || coreset) + KL(coreset || full) <= X");
  command->add_option("--target-error", args->target_error,
                      "-k auto: reach ||y - Phi w|| / ||y|| <= E");
  add_solver_arguments(command, args->solver);
  command->add_option("--out", args->out_path, "write the coreset here as CSV (index,weight)")
      ->check(non_empty_path());
  command->add_option("--report", args->report_path, "write a JSON report here")
      ->check(non_empty_path());
  return [args, command] { return run_build(*args, *command); };
}

std::function<int()> add_evaluate_command(CLI::App& app) {
  auto args = std::make_shared<EvaluateArguments>();
  CLI::App* command = app.add_subcommand(
      "evaluate", "Report how close a coreset's posterior is to the full-data posterior");
  add_model_options(command, args->model);
  command->add_option("--precision", args->model.precision, "double or float (Phi)")
      ->check(CLI::IsMember({"double", "float"}))
      ->capture_default_str();
  command->add_option("--coreset", args->coreset_path, "coreset CSV (index,weight), 0-based rows")
      ->required()
      ->check(non_empty_path());
  command->add_option("--report", args->report_path, "write a JSON report here")
      ->check(non_empty_path());
  return [args, command] { return run_evaluate(*args, *command); };
}

}  // namespace coreset::cli
