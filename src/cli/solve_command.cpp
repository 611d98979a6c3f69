// `coreset solve`: Phi (and optionally y) from files, a coreset and a report out.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/device_choice.hpp"
#include "cli/exit_codes.hpp"
#include "cli/mpi_run.hpp"
#include "cli/option_checks.hpp"
#include "cli/output_paths.hpp"
#include "cli/outputs.hpp"
#include "cli/report.hpp"
#include "cli/terminal.hpp"
#include "cli/unused_options.hpp"
#include "coreset/build.hpp"
#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/solver.hpp"

namespace coreset::cli {
namespace {

struct SolveArguments {
  std::string phi_path;
  std::string loglik_path;
  std::string y_path;
  std::string out_path;
  std::string report_path;
  std::string algorithm = "a-iht-2";
  std::string step_rule = "exact";
  DeviceArguments device;
  SolverOptions options;
};

template <class T>
int run_solve(const SolveArguments& args, const DeviceChoice& choice, const CLI::App& command) {
  SolveInputs inputs;
  inputs.phi_path = args.phi_path;
  inputs.loglik_path = args.loglik_path;
  inputs.y_path = args.y_path;
  inputs.precision = choice.precision;
  inputs.options = args.options;
  inputs.options.device = choice.device;
  const BuildAlgorithm algorithm = parse_build_algorithm(args.algorithm);
  if (!runs_on_phi(algorithm)) {  // before any file is read
    throw InvalidArgument(
        "sparsevi needs the model and the data, not just Phi: run `coreset build --algorithm "
        "sparsevi` instead");
  }
  inputs.options.algorithm = phi_algorithm(algorithm);
  inputs.options.step_rule = parse_step_rule(args.step_rule);
  check_writable_destination(args.out_path, "--out");
  check_writable_destination(args.report_path, "--report");
  check_distinct_files(
      {{"--out", args.out_path}, {"--report", args.report_path}},
      {{"--phi", args.phi_path}, {"--loglik", args.loglik_path}, {"--y", args.y_path}});

  if (args.phi_path.empty() == args.loglik_path.empty()) {
    throw InvalidArgument("give exactly one of --phi (S x n) and --loglik (n x S)");
  }
  const std::string& phi_source = args.loglik_path.empty() ? args.phi_path : args.loglik_path;
  // Under mpirun: one rank of a distributed solve, holding its block of Phi's columns; rank 0
  // alone shows progress and writes the outputs.
  const std::shared_ptr<const Communicator> comm = distributed_run();
  const bool writer = comm == nullptr || comm->rank() == 0;
  if (writer) {
    print_unused_options(
        unused_solver_options(command, args.algorithm, args.options.batch_fraction, true));
  }
  const std::optional<GpuWarmUp> warm_up = gpu_warm_up(choice, comm.get());  // while Phi is read
  TerminalProgress progress(writer);
  progress.task("reading " + phi_source, 0);
  // --loglik: the user's own log-likelihoods, centred and scaled here as `build` does. Under
  // mpirun each rank reads its block of datapoints: of a .npy file only that block's bytes, of
  // a CSV --loglik its lines (found by byte range); a CSV --phi is read whole, then cut.
  Matrix<T> phi;
  const auto read_share = [&](const std::string& path, io::DatapointAxis axis) {
    return comm == nullptr ? io::read_matrix_share<T>(path, axis, 0, 1)
                           : io::read_matrix_share<T>(path, axis, *comm);
  };
  on_every_rank(comm.get(), [&] {
    if (args.loglik_path.empty()) {
      io::MatrixShare<T> mine = read_share(args.phi_path, io::DatapointAxis::columns);
      inputs.rows = mine.rows;
      inputs.cols = mine.cols;
      phi = std::move(mine.values);
    } else {
      const io::MatrixShare<T> loglik = read_share(args.loglik_path, io::DatapointAxis::rows);
      if (loglik.cols < 2) {  // centred over one draw, every value is 0
        throw InputError(args.loglik_path, "has " + std::to_string(loglik.cols) +
                                               " column (draw); the log-likelihoods need at "
                                               "least 2 draws, one column each");
      }
      inputs.rows = loglik.cols;
      inputs.cols = loglik.rows;
      phi = loglik.values.rows() == 0 ? Matrix<T>(loglik.cols, 0)
                                      : projection_from_loglik(loglik.values, &progress);
    }
  });
  std::vector<T> y;
  if (!args.y_path.empty()) {
    progress.task("reading " + args.y_path, 0);
    on_every_rank(comm.get(), [&] { y = io::read_vector<T>(args.y_path); });
    if (static_cast<index_t>(y.size()) != inputs.rows) {
      throw InputError(args.y_path, "y has " + std::to_string(y.size()) + " entries but Phi (" +
                                        phi_source + ") has " + std::to_string(phi.rows()) +
                                        " rows");
    }
  }
  inputs.options.communicator = comm;
  SolverOptions options = inputs.options;
  options.progress = &progress;  // not in inputs.options: the report shows no pointer
  const SolveResult result = solve(phi.view(), y.empty() ? nullptr : y.data(), options);
  progress.finish();
  if (!writer) {
    return kSuccess;
  }

  // Render everything first so that a formatting failure cannot leave one file written.
  const std::string report =
      args.report_path.empty() ? std::string() : solve_report_json(inputs, result);
  Outputs outputs;
  outputs.add(args.out_path,
              [&](const std::string& path) { io::write_coreset_csv(path, result.coreset); });
  outputs.add(args.report_path,
              [&](const std::string& path) { io::write_file_atomic(path, report); });
  outputs.commit();
  print_summary(render_solve_summary(inputs, result, false),
                args.out_path.empty() ? render_coreset_listing(result.coreset) : std::string());
  return kSuccess;
}

}  // namespace

std::function<int()> add_solve_command(CLI::App& app) {
  auto args = std::make_shared<SolveArguments>();
  CLI::App* command = app.add_subcommand(
      "solve", "Solve min ||y - Phi w||^2 s.t. ||w||_0 <= k, w >= 0 for a given Phi");
  command->add_option("--phi", args->phi_path, "Phi, S x n: .npy (float32/64) or CSV (S lines)")
      ->check(non_empty_path());
  command
      ->add_option("--loglik", args->loglik_path,
                   "instead of --phi: your own log-likelihoods, n x S (row i = datapoint i at "
                   "S posterior draws), centred and scaled by the engine")
      ->check(non_empty_path());
  command->add_option("--y", args->y_path, "target y, S values (.npy or CSV); default Phi 1")
      ->check(non_empty_path());
  command
      ->add_option(
          "-k,--k", args->options.k,
          "coreset size budget, >= 1: the sparsity of iht/a-iht/a-iht-2 (k >= n: NNLS), the "
          "steps of giga/fw, the draws of is/uniform")
      ->required();
  command
      ->add_option("--algorithm", args->algorithm,
                   "iht, a-iht, a-iht-2 (sparse regression) or giga, fw, is, uniform (baselines)")
      ->capture_default_str();
  command
      ->add_option("--max-iter", args->options.max_iterations,
                   "iteration cap (iht, a-iht, a-iht-2)")
      ->capture_default_str()
      ->check(max_iterations_range());
  command
      ->add_option("--tol", args->options.tolerance,
                   "stop when ||w_t - w_{t-1}|| <= tol ||w_t|| (iht, a-iht, a-iht-2)")
      ->capture_default_str()
      ->check(non_negative());
  command
      ->add_option("--sync-every", args->options.sync_every,
                   "a-iht, a-iht-2: iterations per host look at the solve; on a GPU they run as a "
                   "replayed CUDA graph with the stopping rule on the device; same result for "
                   "any value; 1 = every iteration, 0 = 16 on a GPU, 1 on the CPU")
      ->capture_default_str()
      ->check(sync_every_range());
  command
      ->add_option("--step-rule", args->step_rule,
                   "exact (line-search minimisers), reference (authors' code: half gradient "
                   "step) or paper (as printed: half momentum)")
      ->capture_default_str();
  command
      ->add_option("--seed", args->options.seed,
                   "seed of the power iteration (iht) and of the draws (is, uniform)")
      ->capture_default_str()
      ->check(seed_value());
  add_device_options(command, args->device);
  command
      ->add_option("--threads", args->options.threads,
                   "CPU threads, 0 = every core (within a CPU quota)")
      ->capture_default_str()
      ->check(non_negative());
  command
      ->add_option("--batch-fraction", args->options.batch_fraction,
                   "batch A-IHT (a-iht, a-iht-2): each gradient on this random fraction of the "
                   "columns, redrawn per iteration (the papers: 0.2); 0 = the full gradient")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  command->add_flag("--refit", args->options.refit,
                    "after any algorithm: refit the weights by non-negative least squares on the "
                    "chosen support (f can only fall; f before and after are reported)");
  command->add_option("--out", args->out_path, "write the coreset here as CSV (index,weight)")
      ->check(non_empty_path());
  command->add_option("--report", args->report_path, "write a JSON report here")
      ->check(non_empty_path());
  return [args, command] {
    const DeviceChoice choice = choose_run_device(args->device);  // before any file is touched
    return choice.precision == Precision::float32 ? run_solve<float>(*args, choice, *command)
                                                  : run_solve<double>(*args, choice, *command);
  };
}

}  // namespace coreset::cli
