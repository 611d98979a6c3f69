// `coreset experiment NAME`: the A-IHT papers' experiments (spec 3.1, 3.6, 3.7, 4.6, 5.1, 8).
// For each dataset and trial, pi-hat, the samples and Phi are prepared once; every algorithm and
// budget k is then solved and scored on that Phi. Trial t seeds everything random with t, as the
// authors' code does.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include "core/random.hpp"
#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The synthetic Gaussian mean problem of spec 3.1 as the IHT papers run it: d = 200, N = 600,
// prior N(0, I), noise Sigma = I, and (as the authors' code does) x_n ~ N(1_d, I).
constexpr index_t kGaussianRows = 600;
constexpr index_t kGaussianDims = 200;

struct Experiment {
  const char* name;
  ModelKind model;
  std::vector<const char*> datasets;  // CSV file stems in --data-dir; empty: synthetic Gaussian
  std::vector<index_t> ks;            // the default budgets
  int trials;                         // the default number of trials (spec 4.6)
  const char* description;
};

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> table = {
      {"gaussian",
       ModelKind::gaussian,
       {},
       {1, 2, 5, 10, 20, 30, 40, 50, 75, 100, 125, 150, 200, 250, 300},
       10,
       "synthetic Gaussian mean, d = 200, N = 600, x_n ~ N(1, I) regenerated per trial; prior "
       "N(0, I); pi-hat and both posteriors exact"},
      {"logistic",
       ModelKind::logistic,
       {"synth_lr", "phishing", "ds1"},
       {1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
       20,
       "logistic regression, prior N(0, I), intercept; Laplace pi-hat; weighted-Laplace coreset "
       "posterior"},
      {"poisson",
       ModelKind::poisson,
       {"synth_poiss", "biketrips", "airportdelays"},
       {1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100},
       20,
       "Poisson regression (softplus link), prior N(0, I), intercept; Laplace pi-hat; "
       "weighted-Laplace coreset posterior"},
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
  const std::string pending = "rbf, large";
  if (name == "rbf" || name == "large") {
    throw InvalidArgument("experiment '" + name + "' is not implemented yet: " + pending +
                          " (available: " + names + ")");
  }
  throw InvalidArgument("unknown experiment '" + name + "' (expected one of: " + names +
                        "; not implemented yet: " + pending + ")");
}

struct ExperimentArguments {
  std::string name;
  std::optional<int> trials;
  std::vector<index_t> ks;
  std::vector<std::string> algorithms;
  std::string out_dir;
  std::string data_dir = "../shared/data";
  index_t samples = 500;
  int threads = 0;
};

// A dataset of the experiment: loaded from --data-dir, or generated for each trial.
struct DatasetSource {
  std::string name;
  Dataset data;  // empty for the synthetic Gaussian
};

// The synthetic data of trial t come from a stream of their own, derived from t (splitmix64):
// seeded with t itself, like the samples, row j's noise would be sample j's.
std::uint64_t data_seed(std::uint64_t trial) {
  std::uint64_t z = trial + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Dataset gaussian_dataset(std::uint64_t trial) {
  Dataset data;
  data.covariates = Matrix<double>(kGaussianRows, kGaussianDims);
  core::NormalGenerator random(data_seed(trial));
  for (index_t i = 0; i < kGaussianRows; ++i) {  // row by row: x_n = 1 + N(0, I)
    for (index_t c = 0; c < kGaussianDims; ++c) {
      data.covariates(i, c) = 1.0 + random();
    }
  }
  for (index_t c = 0; c < kGaussianDims; ++c) {
    data.covariate_names.push_back("x" + std::to_string(c + 1));
  }
  data.source = "synthetic Gaussian data (trial " + std::to_string(trial) + ")";
  return data;
}

std::vector<DatasetSource> load_datasets(const Experiment& experiment,
                                         const std::string& data_dir) {
  std::vector<DatasetSource> sources;
  if (experiment.datasets.empty()) {
    sources.push_back({"synthetic_gaussian", {}});
    return sources;
  }
  std::error_code error;
  if (!fs::is_directory(data_dir, error)) {
    throw InputError(data_dir,
                     "no such folder (--data-dir must name the folder holding the "
                     "papers' datasets, e.g. ../shared/data)");
  }
  for (const char* stem : experiment.datasets) {
    const std::string path = (fs::path(data_dir) / (std::string(stem) + ".csv")).string();
    sources.push_back({stem, io::read_dataset_csv(path)});
  }
  return sources;
}

std::vector<Algorithm> chosen_algorithms(const std::vector<std::string>& names) {
  if (names.empty()) {
    return all_algorithms();
  }
  std::vector<Algorithm> algorithms;
  for (const std::string& name : names) {
    const Algorithm algorithm = parse_algorithm(name);
    if (std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end()) {
      algorithms.push_back(algorithm);
    }
  }
  return algorithms;
}

std::vector<index_t> chosen_budgets(std::vector<index_t> ks, const Experiment& experiment) {
  if (ks.empty()) {
    return experiment.ks;
  }
  for (const index_t k : ks) {
    if (k < 1) {
      throw InvalidArgument("--k: every budget must be >= 1 (got " + std::to_string(k) + ")");
    }
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

// Fails now, not after the runs, when the output folder could never be created or written.
void check_output_folder(const fs::path& folder) {
  std::error_code error;
  fs::path existing = folder;
  while (!existing.empty() && !fs::exists(existing, error)) {
    existing = existing.parent_path();
  }
  if (existing.empty()) {
    existing = ".";
  }
  if (!fs::is_directory(existing, error)) {
    throw OutputError("--out " + folder.string() + ": '" + existing.string() +
                      "' exists and is not a folder");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw OutputError("--out " + folder.string() + ": folder '" + existing.string() +
                      "' is not writable");
  }
}

int worker_count(int threads) {
  if (threads > 0) {
    return threads;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// One (algorithm, k) of a trial: its row, or why it failed.
struct TrialRun {
  std::string algorithm;
  index_t k = 0;
  std::optional<ExperimentRow> row;  // dataset and trial are filled in by the caller
  std::string error;                 // set when the library refused this run
  std::exception_ptr fatal;          // anything else: rethrown on the main thread
};

// Every (algorithm, k) on the prepared problem, `workers` at a time, each solve on one thread
// (these problems are far too small for the solver's own threads to pay). The runs share only
// the const problem, so the results do not depend on the scheduling; they come back in the
// order algorithm, then k.
std::vector<TrialRun> run_trial(const PreparedProblem& problem,
                                const std::vector<Algorithm>& algorithms,
                                const std::vector<index_t>& ks, std::uint64_t seed, int workers) {
  std::vector<TrialRun> runs;
  for (const Algorithm algorithm : algorithms) {
    for (const index_t k : ks) {
      runs.push_back({to_string(algorithm), k, std::nullopt, {}, nullptr});
    }
  }
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t j = next++; j < runs.size(); j = next++) {
      TrialRun& run = runs[j];
      SolverOptions solver;
      solver.algorithm = algorithms[j / ks.size()];
      solver.k = run.k;
      solver.seed = seed;
      solver.threads = 1;
      try {
        run.row = experiment_row({}, run.algorithm, run.k, 0, problem.solve_and_evaluate(solver));
      } catch (const Error& error) {
        run.error = error.what();
      } catch (...) {
        run.fatal = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::min<int>(workers, static_cast<int>(runs.size())); ++t) {
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

int run_experiment(const ExperimentArguments& args) {
  const auto start = Clock::now();
  const Experiment& experiment = find_experiment(args.name);
  const std::vector<Algorithm> algorithms = chosen_algorithms(args.algorithms);
  const std::vector<index_t> ks = chosen_budgets(args.ks, experiment);
  const int trials = args.trials.value_or(experiment.trials);
  if (trials < 1) {
    throw InvalidArgument("--trials must be >= 1 (got " + std::to_string(trials) + ")");
  }
  if (args.threads < 0) {
    throw InvalidArgument("--threads must be >= 0 (got " + std::to_string(args.threads) + ")");
  }
  const fs::path out_dir =
      args.out_dir.empty() ? fs::path("experiment-" + args.name) : fs::path(args.out_dir);
  const fs::path results_path = out_dir / "results.csv";
  check_output_folder(out_dir);
  const std::vector<DatasetSource> datasets = load_datasets(experiment, args.data_dir);

  const bool progress = ::isatty(STDERR_FILENO) != 0;
  const int workers = worker_count(args.threads);
  std::vector<ExperimentRow> rows;
  int failed = 0;
  for (const DatasetSource& source : datasets) {
    for (int trial = 0; trial < trials; ++trial) {
      if (progress) {
        std::fprintf(stderr, "\r%s trial %d/%d ", source.name.c_str(), trial + 1, trials);
      }
      const auto seed = static_cast<std::uint64_t>(trial);
      BuildOptions options;
      options.model.kind = experiment.model;
      options.samples = args.samples;
      options.seed = seed;
      options.solver.threads = workers;
      const PreparedProblem problem(
          experiment.datasets.empty() ? gaussian_dataset(seed) : source.data, options);
      for (TrialRun& run : run_trial(problem, algorithms, ks, seed, workers)) {
        if (run.row) {
          run.row->dataset = source.name;
          run.row->trial = trial;
          rows.push_back(std::move(*run.row));
        } else {
          std::fprintf(stderr, "%scoreset: experiment: skipped %s %s k=%lld trial %d: %s\n",
                       progress ? "\n" : "", source.name.c_str(), run.algorithm.c_str(),
                       static_cast<long long>(run.k), trial, run.error.c_str());
          ++failed;
        }
      }
    }
  }
  if (progress) {
    std::fprintf(stderr, "\r%40s\r", "");
  }

  const std::string csv = render_experiment_csv(args.name, rows);
  std::error_code error;
  fs::create_directories(out_dir, error);
  if (error) {
    throw OutputError("--out " + out_dir.string() +
                      ": cannot create the folder: " + error.message());
  }
  io::write_file_atomic(results_path.string(), csv);

  ExperimentSummary summary;
  summary.experiment = args.name;
  summary.description = std::string(experiment.description) +
                        "; S = " + std::to_string(args.samples) + " samples; trial t uses seed t";
  for (const DatasetSource& source : datasets) {
    summary.datasets.push_back(source.name);
  }
  for (const Algorithm algorithm : algorithms) {
    summary.algorithms.push_back(to_string(algorithm));
  }
  summary.ks = ks;
  summary.trials = trials;
  summary.failed_runs = failed;
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.results_path = results_path.string();
  std::fputs(render_experiment_summary(summary, rows).c_str(), stdout);
  return kSuccess;
}

}  // namespace

std::function<int()> add_experiment_command(CLI::App& app) {
  auto args = std::make_shared<ExperimentArguments>();
  CLI::App* command = app.add_subcommand(
      "experiment",
      "Reproduce an A-IHT paper experiment (gaussian, logistic, poisson): every algorithm at "
      "every k over several trials, results in DIR/results.csv");
  command->add_option("name", args->name, "gaussian, logistic or poisson")->required();
  command->add_option("--trials", args->trials,
                      "trials (trial t seeds everything with t); default 10 for gaussian, 20 "
                      "for logistic and poisson");
  command
      ->add_option("--k", args->ks,
                   "comma-separated budgets; default gaussian 1,2,5,10,20,30,40,50,75,100,125,"
                   "150,200,250,300, logistic/poisson 1,2,5,10,20,...,100")
      ->delimiter(',');
  command
      ->add_option("--algorithms", args->algorithms,
                   "comma-separated algorithm names; default: every algorithm")
      ->delimiter(',');
  command->add_option("--out", args->out_dir, "output folder; default ./experiment-NAME");
  command
      ->add_option("--data-dir", args->data_dir,
                   "folder of the papers' datasets (logistic, poisson)")
      ->capture_default_str();
  command->add_option("--samples", args->samples, "S, samples from pi-hat per trial")
      ->capture_default_str();
  command
      ->add_option("--threads", args->threads,
                   "runs solved at once, each on one thread; 0 = every core")
      ->capture_default_str();
  return [args] { return run_experiment(*args); };
}

}  // namespace coreset::cli
