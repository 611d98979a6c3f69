// `coreset experiment NAME`: the A-IHT papers' experiments (spec 3.1, 3.5, 3.6, 3.7, 4.6, 5.1, 8).
// For each dataset and trial, pi-hat, the samples and Phi are prepared once; every algorithm and
// budget k is then solved and scored on that Phi. Trial t seeds everything random with t, as the
// authors' code does.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/experiment_report.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_checks.hpp"
#include "cli/option_lists.hpp"
#include "cli/output_paths.hpp"
#include "cli/outputs.hpp"
#include "cli/terminal.hpp"
#include "cli/unused_options.hpp"
#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/version.hpp"

namespace coreset::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The synthetic Gaussian mean problem of spec 3.1 as the IHT papers run it: d = 200, N = 600,
// prior N(0, I), noise Sigma = I.
constexpr index_t kGaussianRows = 600;
constexpr index_t kGaussianDims = 200;
// The RBF experiment's records per trial ([IHT] sec. 5.2: N = 1000, subsampled per trial).
constexpr index_t kRbfRows = 1000;
// The large-scale synthetic logistic data of [IHT2] (spec 3.6, 5.1).
constexpr index_t kLargeLogisticRows = 9000;

// Where an experiment's dataset comes from.
enum class Origin {
  file,       ///< NAME.csv in --data-dir, read once before the first run
  fixed,      ///< generated once (generate(0)), the same in every trial
  per_trial,  ///< generated anew for each trial t (generate(t))
};

struct DatasetSpec {
  const char* name;  // the `dataset` column of results.csv; the file stem for Origin::file
  ModelKind model;
  Origin origin;
  Dataset (*generate)(std::uint64_t trial);  // Origin::fixed and Origin::per_trial
  bool rbf;  // linear with the radial-basis features and data-derived prior and noise of 3.5
};

struct Experiment {
  const char* name;
  std::vector<DatasetSpec> datasets;
  std::vector<index_t> ks;                 // the default budgets
  int trials;                              // the default number of trials (spec 4.6)
  int max_iterations;                      // the IHT family's cap: 300, 500 at large scale (2.5)
  std::vector<BuildAlgorithm> algorithms;  // the default; empty: every algorithm
  bool symmetric_kl_and_time;              // summarise as spec 5.1's large-scale figure does
  const char* description;
  const char* note;  // printed with the summary (nullptr: none)
};

// The synthetic data of trial t come from a stream of their own (the library derives it from t).
Dataset gaussian_dataset(std::uint64_t trial) {
  return synthetic_gaussian_dataset(kGaussianRows, kGaussianDims, trial);
}

Dataset uk_house_price_standin(std::uint64_t trial) {
  return uk_house_price_standin_dataset(kRbfRows, trial);
}

// The first 9000 rows of the built-in synthetic logistic data (seed 0; spec 3.6), the same in
// every trial, as a file would be.
Dataset large_logistic_dataset(std::uint64_t) {
  Dataset data = synthetic_logistic_dataset(kLargeLogisticRows, 0);
  data.source = "built-in synthetic logistic data, first 9000 rows";
  return data;
}

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> table = {
      {"gaussian",
       {{"synthetic_gaussian", ModelKind::gaussian, Origin::per_trial, gaussian_dataset, false}},
       {1, 2, 5, 10, 20, 30, 40, 50, 75, 100, 125, 150, 200, 250, 300},
       10,
       300,
       {},
       false,
       "synthetic Gaussian mean, d = 200, N = 600, x_n ~ N(1, I) regenerated per trial; prior "
       "N(0, I); pi-hat and both posteriors exact",
       nullptr},
      {"logistic",
       {{"synth_lr", ModelKind::logistic, Origin::file, nullptr, false},
        {"phishing", ModelKind::logistic, Origin::file, nullptr, false},
        {"ds1", ModelKind::logistic, Origin::file, nullptr, false}},
       {1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
       20,
       300,
       {},
       false,
       "logistic regression, prior N(0, I), intercept; Laplace pi-hat; weighted-Laplace coreset "
       "posterior",
       nullptr},
      {"poisson",
       {{"synth_poiss", ModelKind::poisson, Origin::file, nullptr, false},
        {"biketrips", ModelKind::poisson, Origin::file, nullptr, false},
        {"airportdelays", ModelKind::poisson, Origin::file, nullptr, false}},
       {1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
       20,
       300,
       {},
       false,
       "Poisson regression (softplus link), prior N(0, I), intercept; Laplace pi-hat; "
       "weighted-Laplace coreset posterior",
       nullptr},
      {"rbf",
       {{"uk_houses_standin", ModelKind::linear, Origin::per_trial, uk_house_price_standin, true}},
       {1, 2, 5, 10, 20, 30, 40, 50, 75, 100, 125, 150, 200, 250, 300},
       10,
       300,
       {},
       false,
       "Bayesian radial-basis regression (spec 3.5): 301 bases (50 centres from the data per "
       "scale 0.2, 0.4, 0.8, 1.2, 1.6, 2.0, and one of scale 100 at the mean location), "
       "N = 1000 per trial, prior N(0, mean(y^2) I), noise variance var(y); pi-hat and both "
       "posteriors exact",
       "the data are a SYNTHETIC STAND-IN for the UK house-price data (not available): 1000 "
       "sales per trial around 13 British cities, log10 price with a south-east premium, a "
       "north-south trend, an urban premium and noise (README, Experiments)"},
      {"large",
       {{"synth_lr_large", ModelKind::logistic, Origin::fixed, large_logistic_dataset, false},
        {"synth_poiss_large", ModelKind::poisson, Origin::file, nullptr, false},
        {"biketrips_large", ModelKind::poisson, Origin::file, nullptr, false},
        {"airportdelays_large", ModelKind::poisson, Origin::file, nullptr, false}},
       {10, 20, 50, 100, 200, 300, 500, 1000},
       10,
       500,
       {BuildAlgorithm::aiht, BuildAlgorithm::aiht2, BuildAlgorithm::giga, BuildAlgorithm::uniform},
       true,
       "large scale (spec 3.6, 3.7, 5.1): synthetic logistic N = 9000 and the large Poisson "
       "files (N = 9000, 15641, 6822); priors N(0, I), intercept; Laplace pi-hat; IHT cap 500 "
       "iterations; each k solved from scratch",
       "the papers' large phishing file (N = 11055, D = 68) is not available and is left out"},
  };
  return table;
}

const Experiment& find_experiment(const std::string& name) {
  std::string names;
  for (const Experiment& experiment : experiments()) {
    if (name == experiment.name) {
      return experiment;
    }
    names += (names.empty() ? "" : ", ") + std::string(experiment.name);
  }
  throw InvalidArgument("unknown experiment '" + name + "' (expected one of: " + names + ")");
}

struct ExperimentArguments {
  std::string name;
  std::optional<int> trials;
  std::vector<std::string> ks;          // unsplit: see option_lists.hpp
  std::vector<std::string> algorithms;  // unsplit
  std::string out_dir;
  std::string data_dir = "../shared/data";
  index_t samples = 500;
  int threads = 0;
};

// A dataset of the experiment: read or generated once, or (per_trial) left empty.
struct DatasetSource {
  const DatasetSpec* spec;
  Dataset data;
};

bool reads_files(const Experiment& experiment) {
  return std::any_of(experiment.datasets.begin(), experiment.datasets.end(),
                     [](const DatasetSpec& spec) { return spec.origin == Origin::file; });
}

std::vector<DatasetSource> load_datasets(const Experiment& experiment,
                                         const std::string& data_dir) {
  std::error_code error;
  if (reads_files(experiment) && !fs::is_directory(data_dir, error)) {
    throw InputError(data_dir,
                     "no such folder (--data-dir must name the folder holding the "
                     "papers' datasets, e.g. ../shared/data)");
  }
  std::vector<DatasetSource> sources;
  for (const DatasetSpec& spec : experiment.datasets) {
    sources.push_back({&spec, {}});
    if (spec.origin == Origin::file) {
      const std::string path = (fs::path(data_dir) / (std::string(spec.name) + ".csv")).string();
      sources.back().data = io::read_dataset_csv(path);
    } else if (spec.origin == Origin::fixed) {
      sources.back().data = spec.generate(0);
    }
  }
  return sources;
}

// The model of a dataset in a trial. RBF (spec 3.5): centres drawn with the trial's seed t (the
// job's, BuildOptions::seed), prior variance mean(y^2) and noise variance var(y) of the trial's
// data (the paper's sigma_0^2 and sigma^2; its prior mean mean(y) is not offered, the prior has
// mean 0).
ModelOptions model_for(const DatasetSpec& spec, const Dataset& data) {
  ModelOptions model;
  model.kind = spec.model;
  if (spec.rbf) {
    model.rbf.enabled = true;
    double sum = 0.0;
    double sum_squares = 0.0;
    for (const double y : data.response) {
      sum += y;
      sum_squares += y * y;
    }
    const auto n = static_cast<double>(data.response.size());
    const double mean = sum / n;
    model.prior_sd = std::sqrt(sum_squares / n);
    model.noise_sd = std::sqrt(std::max(sum_squares / n - mean * mean, 1e-12));
  }
  return model;
}

std::vector<BuildAlgorithm> chosen_algorithms(const std::vector<std::string>& arguments,
                                              const Experiment& experiment) {
  if (arguments.empty()) {
    return experiment.algorithms.empty() ? all_build_algorithms() : experiment.algorithms;
  }
  std::vector<BuildAlgorithm> algorithms;
  for (const std::string& name : list_items(arguments, "--algorithms")) {
    const BuildAlgorithm algorithm = parse_build_algorithm(name);
    if (std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end()) {
      algorithms.push_back(algorithm);
    }
  }
  return algorithms;
}

std::vector<index_t> chosen_budgets(const std::vector<std::string>& arguments,
                                    const Experiment& experiment) {
  if (arguments.empty()) {
    return experiment.ks;
  }
  std::vector<index_t> ks = budget_list(arguments, "--k");
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

int worker_count(int threads) {
  if (threads > 0) {
    return threads;
  }
  // The library's default team: every core the process may use, within its CPU limit.
  return std::max(1, build_info().threads);
}

// One (algorithm, k) of a trial: its row, or why it failed.
struct TrialRun {
  std::string algorithm;
  index_t k = 0;
  std::optional<ExperimentRow> row;  // dataset and trial are filled in by the caller
  std::string error;                 // set when the library refused this run
  std::exception_ptr fatal;          // anything else: rethrown on the main thread
};

// Every (algorithm, k) on the prepared problem, `workers` jobs at a time, each solve on one
// thread (these problems are far too small for the solver's own threads to pay). A job is one
// (algorithm, k), except for SparseVI: it is greedy, so one job runs it once to the largest k
// and records its coreset at every k of the grid (PreparedProblem::solve_and_evaluate_budgets;
// each is what a run to that k alone gives, and its time is the time to reach it), instead of
// k_max separate runs from scratch. The jobs share only the const problem, so the results do
// not depend on the scheduling; they come back in the order algorithm, then k.
// `progress` counts the finished runs; the solves themselves only poll for Ctrl-C.
std::vector<TrialRun> run_trial(const PreparedProblem& problem,
                                const std::vector<BuildAlgorithm>& algorithms,
                                const std::vector<index_t>& ks, int max_iterations, int workers,
                                TerminalProgress& progress) {
  std::vector<TrialRun> runs;
  struct Job {
    BuildAlgorithm algorithm;
    std::size_t first;  // its runs: first .. first + count - 1
    std::size_t count;
  };
  std::vector<Job> jobs;
  for (const BuildAlgorithm algorithm : algorithms) {
    const std::size_t first = runs.size();
    for (const index_t k : ks) {
      runs.push_back({to_string(algorithm), k, std::nullopt, {}, nullptr});
    }
    if (algorithm == BuildAlgorithm::sparsevi) {
      jobs.push_back({algorithm, first, ks.size()});
    } else {
      for (std::size_t p = 0; p < ks.size(); ++p) {
        jobs.push_back({algorithm, first + p, 1});
      }
    }
  }
  progress.task("runs", static_cast<std::int64_t>(runs.size()));
  InterruptObserver interrupt;
  // The long SparseVI paths first, so that the short jobs fill in around them.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return a.count > b.count; });
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> finished{0};
  const auto work = [&] {
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      const Job& job = jobs[j];
      BuildSolverOptions solver;  // the seed is the problem's: the trial's
      solver.algorithm = job.algorithm;
      solver.max_iterations = max_iterations;
      solver.threads = 1;
      // A budget above n is refused on its own (as a run to it alone would be), not the path.
      std::size_t count = job.count;
      while (job.count > 1 && count > 0 && runs[job.first + count - 1].k > problem.rows()) {
        --count;
      }
      for (std::size_t p = count; p < job.count; ++p) {
        runs[job.first + p].error = "k = " + std::to_string(runs[job.first + p].k) +
                                    " is larger than the data's " + std::to_string(problem.rows()) +
                                    " rows";
      }
      std::vector<index_t> budgets;
      for (std::size_t p = 0; p < count; ++p) {
        budgets.push_back(runs[job.first + p].k);
      }
      solver.progress = &interrupt;
      try {
        const std::vector<CoresetRun> results = problem.solve_and_evaluate_budgets(solver, budgets);
        for (std::size_t p = 0; p < count; ++p) {
          TrialRun& run = runs[job.first + p];
          run.row = experiment_row({}, run.algorithm, run.k, 0, results[p]);
        }
      } catch (const Cancelled&) {
        runs[job.first].fatal = std::current_exception();
      } catch (const Error& error) {
        for (std::size_t p = 0; p < count; ++p) {
          runs[job.first + p].error = error.what();
        }
      } catch (...) {
        runs[job.first].fatal = std::current_exception();
      }
      progress.advanced(finished += static_cast<std::int64_t>(job.count));
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::min<int>(workers, static_cast<int>(jobs.size())); ++t) {
    threads.emplace_back(work);
  }
  work();
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const TrialRun& run : runs) {
    if (run.fatal) {
      std::rethrow_exception(run.fatal);
    }
  }
  return runs;
}

int run_experiment(const ExperimentArguments& args, const CLI::App& command) {
  const auto start = Clock::now();
  const Experiment& experiment = find_experiment(args.name);
  const std::vector<BuildAlgorithm> algorithms = chosen_algorithms(args.algorithms, experiment);
  const std::vector<index_t> ks = chosen_budgets(args.ks, experiment);
  const int trials = args.trials.value_or(experiment.trials);
  if (trials < 1) {
    throw InvalidArgument("--trials must be >= 1 (got " + std::to_string(trials) + ")");
  }
  if (args.threads < 0) {
    throw InvalidArgument("--threads must be >= 0 (got " + std::to_string(args.threads) + ")");
  }
  if (!reads_files(experiment)) {
    print_unused_options(
        unused_if_given(command, "--data-dir", "the " + args.name + " experiment reads no files"));
  }
  const fs::path out_dir =
      args.out_dir.empty() ? fs::path("experiment-" + args.name) : fs::path(args.out_dir);
  const fs::path results_path = out_dir / "results.csv";
  std::vector<std::string> files = {"results.csv"};
  for (const DatasetSpec& spec : experiment.datasets) {
    files.push_back(std::string(spec.name) + ".svg");
  }
  check_output_folder(out_dir.string(), "--out", files);
  TerminalProgress progress;
  progress.task("reading the datasets", 0);
  const std::vector<DatasetSource> datasets = load_datasets(experiment, args.data_dir);

  const int workers = worker_count(args.threads);
  std::vector<ExperimentRow> rows;
  int failed = 0;
  for (const DatasetSource& source : datasets) {
    const DatasetSpec& spec = *source.spec;
    for (int trial = 0; trial < trials; ++trial) {
      throw_if_interrupted();
      progress.set_prefix(std::string(spec.name) + " trial " + std::to_string(trial + 1) + "/" +
                          std::to_string(trials));
      const auto seed = static_cast<std::uint64_t>(trial);
      Dataset generated;
      if (spec.origin == Origin::per_trial) {
        generated = spec.generate(seed);
      }
      const Dataset& data = spec.origin == Origin::per_trial ? generated : source.data;
      BuildOptions options;
      options.model = model_for(spec, data);
      options.samples = args.samples;
      options.seed = seed;  // the trial's: its samples, RBF centres and solver draws
      options.solver.threads = workers;
      options.solver.progress = &progress;
      const PreparedProblem problem(data, options, PreparedProblem::CovariatesInPlace{});
      for (TrialRun& run :
           run_trial(problem, algorithms, ks, experiment.max_iterations, workers, progress)) {
        if (run.row) {
          run.row->dataset = spec.name;
          run.row->trial = trial;
          rows.push_back(std::move(*run.row));
        } else {
          progress.print_line("coreset: experiment: skipped " + std::string(spec.name) + " " +
                              run.algorithm + " k=" + std::to_string(run.k) + " trial " +
                              std::to_string(trial) + ": " + run.error + "\n");
          ++failed;
        }
      }
    }
  }
  progress.finish();
  if (rows.empty()) {
    throw InvalidArgument("experiment: all " + std::to_string(failed) +
                          " runs were skipped (the reasons are above): nothing to write");
  }

  ExperimentSummary summary;
  summary.experiment = args.name;
  summary.description = std::string(experiment.description) +
                        "; S = " + std::to_string(args.samples) + " samples; trial t uses seed t";
  if (experiment.note != nullptr) {
    summary.note = experiment.note;
  }
  summary.symmetric_kl_and_time = experiment.symmetric_kl_and_time;
  for (const DatasetSource& source : datasets) {
    summary.datasets.push_back(source.spec->name);
  }
  for (const BuildAlgorithm algorithm : algorithms) {
    summary.algorithms.push_back(to_string(algorithm));
  }
  summary.ks = ks;
  summary.trials = trials;
  summary.failed_runs = failed;
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.results_path = results_path.string();

  // Rendered first, so that a formatting failure cannot leave one file written.
  const std::string csv = render_experiment_csv(args.name, rows);
  std::vector<std::string> pictures;
  for (const std::string& dataset : summary.datasets) {
    pictures.push_back(render_experiment_svg(summary, rows, dataset));
  }
  throw_if_interrupted();  // before the folder appears
  create_output_folder(out_dir.string(), "--out");
  Outputs outputs;
  outputs.add(results_path.string(),
              [&](const std::string& path) { io::write_file_atomic(path, csv); });
  for (std::size_t d = 0; d < pictures.size(); ++d) {
    outputs.add(
        (out_dir / (summary.datasets[d] + ".svg")).string(),
        [&pictures, d](const std::string& path) { io::write_file_atomic(path, pictures[d]); });
  }
  outputs.commit();
  print_summary(render_experiment_summary(summary, rows), {});
  return kSuccess;
}

}  // namespace

std::function<int()> add_experiment_command(CLI::App& app) {
  auto args = std::make_shared<ExperimentArguments>();
  CLI::App* command = app.add_subcommand(
      "experiment",
      "Reproduce an A-IHT paper experiment (gaussian, logistic, poisson, rbf, large): every "
      "algorithm at every k over several trials, results in DIR/results.csv and one picture per "
      "dataset, DIR/DATASET.svg");
  command->add_option("name", args->name, "gaussian, logistic, poisson, rbf or large")->required();
  command->add_option("--trials", args->trials,
                      "trials (trial t seeds everything with t); default 10 for gaussian, rbf "
                      "and large, 20 for logistic and poisson");
  add_list_option(command, "--k", args->ks, "INT",
                  "comma-separated budgets; default gaussian and rbf 1,2,5,10,20,30,40,50,75,"
                  "100,125,150,200,250,300, logistic/poisson 1,2,5,10,20,...,100, large 10,20,"
                  "50,100,200,300,500,1000");
  add_list_option(command, "--algorithms", args->algorithms, "NAME",
                  "comma-separated algorithm names; default: every algorithm (large: a-iht, "
                  "a-iht-2, giga, uniform, as spec 5.1)");
  command->add_option("--out", args->out_dir, "output folder; default ./experiment-NAME")
      ->check(non_empty_path());
  command
      ->add_option("--data-dir", args->data_dir,
                   "folder of the papers' datasets (logistic, poisson, large)")
      ->capture_default_str()
      ->check(non_empty_path());
  command->add_option("--samples", args->samples, "S, samples from pi-hat per trial")
      ->capture_default_str();
  command
      ->add_option("--threads", args->threads,
                   "runs solved at once, each on one thread; 0 = every core")
      ->capture_default_str();
  return [args, command] { return run_experiment(*args, *command); };
}

}  // namespace coreset::cli
