// `coreset build` (dataset and model in, coreset and quality report out) and `coreset evaluate`
// (the same quality report for any coreset).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_options.hpp"
#include "cli/output_paths.hpp"
#include "cli/outputs.hpp"
#include "cli/report.hpp"
#include "cli/terminal.hpp"
#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::cli {
namespace {

std::string reading_label(const ModelArguments& model) {
  return model.data_path.empty() ? std::string("generating the built-in data")
                                 : "reading " + model.data_path;
}

struct BuildArguments {
  ModelArguments model;
  std::string algorithm = "a-iht-2";
  std::string step_rule = "exact";
  index_t k = 100;
  int max_iterations = 300;
  double tolerance = 1e-5;
  double batch_fraction = 0.0;
  bool refit = false;
  SparseViOptions sparsevi;  // --sparsevi-*: 0 steps or rate = the model's default
  std::string sparsevi_optimizer = "adam";
  std::string out_path;
  std::string report_path;
  DeviceArguments device;
};

int run_build(const BuildArguments& args) {
  const DeviceChoice choice = choose_device(args.device);  // before any file is touched
  check_writable_destination(args.out_path, "--out");
  check_writable_destination(args.report_path, "--report");
  BuildInputs inputs;
  const ModelArguments& model = args.model;
  BuildOptions options = to_build_options(model);
  options.precision = choice.precision;  // --precision auto resolved
  options.solver.device = choice.device;
  options.solver.algorithm = parse_build_algorithm(args.algorithm);
  options.solver.step_rule = parse_step_rule(args.step_rule);
  options.solver.k = args.k;
  options.solver.max_iterations = args.max_iterations;
  options.solver.tolerance = args.tolerance;
  options.solver.batch_fraction = args.batch_fraction;
  options.solver.refit = args.refit;
  options.solver.sparsevi = args.sparsevi;
  options.solver.sparsevi.optimizer = parse_sparsevi_optimizer(args.sparsevi_optimizer);
  TerminalProgress progress;
  progress.task(reading_label(model), 0);
  const Dataset data = load_dataset(model, inputs);
  inputs.options = options;
  options.solver.progress = &progress;  // not in inputs.options: the report shows no pointer
  const BuildResult result = build_coreset(data, options);
  progress.finish();

  // Rendered first, so that a formatting failure cannot leave one file written.
  const std::string report =
      args.report_path.empty() ? std::string() : build_report_json(inputs, result);
  Outputs outputs;
  outputs.add(args.out_path,
              [&](const std::string& path) { io::write_coreset_csv(path, result.solve.coreset); });
  outputs.add(args.report_path,
              [&](const std::string& path) { io::write_file_atomic(path, report); });
  outputs.commit();
  print_summary(
      render_build_summary(inputs, result, false),
      args.out_path.empty() ? render_coreset_listing(result.solve.coreset) : std::string());
  return kSuccess;
}

struct EvaluateArguments {
  ModelArguments model;
  std::string coreset_path;
  std::string report_path;
};

int run_evaluate(const EvaluateArguments& args) {
  check_writable_destination(args.report_path, "--report");
  BuildInputs inputs;
  BuildOptions options = to_build_options(args.model);
  TerminalProgress progress;
  progress.task(reading_label(args.model), 0);
  const Dataset data = load_dataset(args.model, inputs);
  inputs.options = options;
  progress.task("reading " + args.coreset_path, 0);
  const Coreset coreset = io::read_coreset_csv(args.coreset_path);
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    if (coreset.indices[p] >= data.rows()) {
      throw InputError(args.coreset_path,
                       "index " + std::to_string(coreset.indices[p]) + " (entry " +
                           std::to_string(p + 1) + ") is outside the dataset's " +
                           std::to_string(data.rows()) + " rows (0-based indices)");
    }
  }
  options.solver.progress = &progress;
  const Quality quality = evaluate_coreset(data, options, coreset);
  progress.finish();
  const std::string report =
      args.report_path.empty()
          ? std::string()
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
                   "selections)")
      ->capture_default_str();
  command
      ->add_option("--algorithm", args->algorithm,
                   "iht, a-iht, a-iht-2 (sparse regression) or giga, fw, is, uniform, sparsevi "
                   "(baselines)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-steps", args->sparsevi.steps,
                   "sparsevi: gradient steps per selection T; 0 = the papers' 100 (gaussian, "
                   "linear) or 500 (logistic, poisson)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-learning-rate", args->sparsevi.learning_rate,
                   "sparsevi: gamma_t = RATE / t; 0 = the papers' 1 (gaussian, linear) or 0.5 "
                   "(logistic, poisson)")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-samples", args->sparsevi.samples,
                   "sparsevi: fresh draws from the coreset posterior per selection and per step")
      ->capture_default_str();
  command
      ->add_option("--sparsevi-optimizer", args->sparsevi_optimizer,
                   "sparsevi: adam (the authors' code) or sgd (plain SGD as printed)")
      ->capture_default_str();
  command->add_option("--step-rule", args->step_rule, "exact, reference (authors' code) or paper")
      ->capture_default_str();
  command->add_option("--max-iter", args->max_iterations, "iteration cap (iht, a-iht, a-iht-2)")
      ->capture_default_str();
  command->add_option("--tol", args->tolerance, "relative-change tolerance (iht, a-iht, a-iht-2)")
      ->capture_default_str();
  command
      ->add_option("--batch-fraction", args->batch_fraction,
                   "batch A-IHT (a-iht, a-iht-2): gradients on this random fraction of the rows, "
                   "redrawn per iteration (the papers: 0.2); 0 = the full gradient")
      ->capture_default_str();
  command->add_flag("--refit", args->refit,
                    "after any algorithm: refit the weights by non-negative least squares on the "
                    "chosen support (f can only fall; f before and after are reported)");
  command->add_option("--out", args->out_path, "write the coreset here as CSV (index,weight)");
  command->add_option("--report", args->report_path, "write a JSON report here");
  return [args] { return run_build(*args); };
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
      ->required();
  command->add_option("--report", args->report_path, "write a JSON report here");
  return [args] { return run_evaluate(*args); };
}

}  // namespace coreset::cli
