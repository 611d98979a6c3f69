// `coreset sweep`: one dataset and model, many budgets k. pi-hat, the samples and Phi are made
// once (coreset::PreparedProblem); every k is then solved in ascending order, warm-started from
// the one below where the algorithm allows (coreset::sweep), and the folder gets sweep.csv, one
// coreset per k, report.json and sweep.svg, all or none.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/model_options.hpp"
#include "cli/option_checks.hpp"
#include "cli/option_lists.hpp"
#include "cli/output_paths.hpp"
#include "cli/outputs.hpp"
#include "cli/solver_arguments.hpp"
#include "cli/sweep_report.hpp"
#include "cli/terminal.hpp"
#include "cli/unused_options.hpp"
#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/sweep.hpp"

namespace coreset::cli {
namespace {

struct SweepArguments {
  ModelArguments model;
  std::vector<std::string> ks;
  SolverArguments solver;
  std::string out_dir;
  DeviceArguments device;
};

std::vector<index_t> parse_budgets(const std::vector<std::string>& arguments) {
  if (arguments.empty()) {
    throw InvalidArgument("-k: give the budgets, e.g. -k 10,20,50,100");
  }
  return budget_list(arguments, "-k");
}

// The names of the files `ks`' sweep writes in its folder.
std::vector<std::string> sweep_file_names(const std::vector<index_t>& ks) {
  std::vector<std::string> names = {"sweep.csv", "report.json", "sweep.svg"};
  for (const index_t k : std::set<index_t>(ks.begin(), ks.end())) {
    names.push_back(sweep_coreset_file(k));
  }
  return names;
}

// Those files in `folder`, for check_distinct_files.
std::vector<FileArgument> sweep_files(const std::string& folder,
                                      const std::vector<std::string>& names) {
  std::vector<FileArgument> files;
  for (const std::string& name : names) {
    files.push_back({"--out", folder + "/" + name});
  }
  return files;
}

// K when `name` is sweep_coreset_file(K) (the one definition of the name), else -1.
index_t coreset_file_budget(const std::string& name) {
  const std::size_t digits = name.find_first_of("0123456789");
  if (digits == std::string::npos) {
    return -1;
  }
  const index_t k = std::strtoll(name.c_str() + digits, nullptr, 10);
  return sweep_coreset_file(k) == name ? k : -1;
}

// Another sweep's coresets in the folder (coreset_k<K>.csv for a K not in this run) would sit
// beside this run's results as if they were among them, so the run stops before any work. They
// are not removed: they may be the only copy of an earlier run.
void check_no_other_sweep(const std::string& folder, const std::vector<index_t>& ks) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    return;
  }
  const std::set<index_t> ours(ks.begin(), ks.end());
  std::vector<std::string> others;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const index_t k = coreset_file_budget(name);
    if (k >= 0 && ours.count(k) == 0) {
      others.push_back(name);
    }
  }
  if (!others.empty()) {
    std::sort(others.begin(), others.end());
    throw InvalidArgument(
        "--out " + folder + " holds " + others.front() +
        (others.size() > 1 ? " and " + std::to_string(others.size() - 1) + " more coreset(s)"
                           : std::string()) +
        " of another sweep, which would sit beside this one's results: " +
        (others.size() > 1 ? "remove them" : "remove it") + ", or choose another folder");
  }
}

int run_sweep(const SweepArguments& args, const CLI::App& command) {
  const std::vector<index_t> ks = parse_budgets(args.ks);
  const DeviceChoice choice = choose_device(args.device);  // before any file is touched
  const std::vector<std::string> names = sweep_file_names(ks);
  check_output_folder(args.out_dir, "--out", names);
  check_no_other_sweep(args.out_dir, ks);
  check_distinct_files(sweep_files(args.out_dir, names), input_files(args.model));
  BuildInputs inputs;
  BuildOptions options = to_build_options(args.model);
  options.precision = choice.precision;
  options.solver.device = choice.device;
  apply_solver_arguments(args.solver, options.solver);
  print_unused_options(unused_model_options(command, args.model));
  print_unused_options(
      unused_solver_options(command, args.solver.algorithm, args.solver.batch_fraction, false));
  TerminalProgress progress;
  progress.task(args.model.data_path.empty() ? std::string("generating the built-in data")
                                             : "reading " + args.model.data_path,
                0);
  const Dataset data = load_dataset(args.model, inputs);
  for (const index_t k : ks) {  // before the costly stages, as build checks its k
    if (k > data.rows()) {
      throw InputError(data.source.empty() ? std::string("the dataset") : data.source,
                       "has " + std::to_string(data.rows()) + " rows, fewer than k = " +
                           std::to_string(k) + " (-k): a coreset must be smaller than the data");
    }
  }
  inputs.options = options;
  options.solver.progress = &progress;
  const PreparedProblem problem(data, options, PreparedProblem::CovariatesInPlace{});
  const SweepResult result = sweep(problem, options.solver, ks);
  progress.finish();

  // Rendered first, so that a formatting failure cannot leave one file written.
  const std::string csv = render_sweep_csv(result);
  const std::string report = render_sweep_report(inputs, problem, result);
  const std::string svg = render_sweep_svg(inputs, problem, result);
  throw_if_interrupted();  // before the folder appears
  create_output_folder(args.out_dir, "--out");
  const std::string folder = args.out_dir + "/";
  Outputs outputs;
  outputs.add(folder + "sweep.csv",
              [&](const std::string& path) { io::write_file_atomic(path, csv); });
  for (const BudgetRun& budget : result.budgets) {
    outputs.add(folder + sweep_coreset_file(budget.k), [&budget](const std::string& path) {
      io::write_coreset_csv(path, budget.run.solve.coreset);
    });
  }
  outputs.add(folder + "report.json",
              [&](const std::string& path) { io::write_file_atomic(path, report); });
  outputs.add(folder + "sweep.svg",
              [&](const std::string& path) { io::write_file_atomic(path, svg); });
  outputs.commit();
  print_summary(render_sweep_summary(inputs, problem, result, args.out_dir), {});
  return kSuccess;
}

}  // namespace

std::function<int()> add_sweep_command(CLI::App& app) {
  auto args = std::make_shared<SweepArguments>();
  CLI::App* command = app.add_subcommand(
      "sweep",
      "One dataset and model at many budgets k (pi-hat, samples and Phi made once; the IHT "
      "family warm-started from the k below): DIR/sweep.csv, coreset_k<K>.csv, report.json "
      "and the picture sweep.svg");
  add_model_options(command, args->model);
  add_device_options(command, args->device);
  add_list_option(command, "-k,--k", args->ks, "INT",
                  "comma-separated budgets, each >= 1 and <= the data's rows, e.g. "
                  "10,20,50,100")
      ->required();
  add_solver_arguments(command, args->solver);
  command->add_option("--out", args->out_dir, "output folder (created if missing)")
      ->required()
      ->check(non_empty_path());
  return [args, command] { return run_sweep(*args, *command); };
}

}  // namespace coreset::cli
