// The whole job of spec 1.3: dataset -> model -> pi-hat -> S samples -> Phi -> solve -> quality.
#include "coreset/build.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "cpu/projection.hpp"
#include "cpu/solve_cpu.hpp"
#include "cuda/device_dataset.hpp"
#include "cuda/device_phi.hpp"
#include "cuda/memory_plan.hpp"
#include "models/model.hpp"
#include "pipeline/coreset_rows.hpp"
#include "pipeline/distributed.hpp"
#include "pipeline/distributed_row_sums.hpp"
#include "pipeline/execution_context.hpp"
#include "pipeline/host_phi.hpp"
#include "pipeline/rank_rows.hpp"
#include "pipeline/setup_parts.hpp"
#include "pipeline/solve_in.hpp"
#include "pipeline/sparsevi.hpp"
#include "posterior/posterior.hpp"
#include "solvers/budget_snapshots.hpp"
#include "solvers/relative_error.hpp"
#include "support/collectives.hpp"
#include "support/enum_check.hpp"
#include "support/memory.hpp"
#include "support/progress.hpp"
#include "support/threads.hpp"
#include "support/wall_clock.hpp"

namespace coreset {
namespace {

using Clock = support::WallClock;
using support::seconds_since;

bool conjugate(ModelKind kind) {
  return kind == ModelKind::gaussian || kind == ModelKind::linear;
}

Pihat resolve_pihat(Pihat requested, ModelKind kind) {
  if (requested == Pihat::automatic) {
    return conjugate(kind) ? Pihat::exact : Pihat::laplace;
  }
  if (requested == Pihat::exact && !conjugate(kind)) {
    throw InvalidArgument(
        "--pihat exact needs a model with a closed-form posterior (gaussian or "
        "linear); the " +
        to_string(kind) + " model takes laplace or samples");
  }
  return requested;
}

void validate(const BuildOptions& options) {
  support::check_enum_value(options.model.kind, "model");
  support::check_enum_value(options.pihat, "pihat");
  support::check_enum_value(options.precision, "precision");
  support::check_enum_value(options.solver.algorithm, "algorithm");
  support::check_enum_value(options.solver.step_rule, "step_rule");
  support::check_enum_value(options.solver.device, "device");
  support::check_enum_value(options.solver.sparsevi.optimizer, "sparsevi.optimizer");
  if (options.pihat != Pihat::samples && options.samples < 2) {
    throw InvalidArgument("--samples must be at least 2 (got " + std::to_string(options.samples) +
                          "): Phi is centred over the samples");
  }
  if (options.pihat == Pihat::samples && options.user_samples.rows() < 2) {
    const std::string message = "the posterior samples have " +
                                std::to_string(options.user_samples.rows()) +
                                " draw(s); at least 2 are needed (Phi is centred over them)";
    if (!options.user_samples_source.empty()) {
      throw InputError(options.user_samples_source, message);
    }
    throw InvalidArgument(message);
  }
}

// The posterior of the full data (weights null) or of a coreset: closed form when the model has
// one, else the weighted Laplace approximation (spec 4.5).
// `progress` sees the Newton steps (the caller announces the stage). `full_data` (null: the host)
// takes the full data's sums over datapoints, a GPU job's device copy of the dataset.
posterior::Gaussian posterior_of(const models::Model& model, const Coreset* weights,
                                 ProgressObserver* progress,
                                 const models::RowSumsProvider* full_data = nullptr) {
  posterior::LaplaceOptions laplace;
  laplace.progress = progress;
  laplace.full_data = full_data;
  // A share's sums over all rows come from the ranks; a whole model's from its own rows.
  return conjugate(model.kind)
             ? posterior::exact_posterior(model, weights, model.is_share() ? full_data : nullptr)
             : posterior::laplace(model, weights, laplace).posterior;
}

// Everything before the solve: the model, pi-hat and the samples. prepare() checks the inputs
// and builds the model; fit_pihat() fits pi-hat and draws the samples, once the job's context
// is known (a GPU job's Laplace sums run on the device).
struct Prepared {
  models::Model model;
  Pihat pihat = Pihat::automatic;
  std::optional<posterior::Gaussian> fitted;  // pi-hat when it is a Gaussian we fitted
  Eigen::MatrixXd samples;                    // S x d
  StageSeconds seconds;
  Clock::time_point started;  // when the job began: StageSeconds::setup runs from it
};

Prepared prepare(const Dataset& data, const BuildOptions& options,
                 const models::WholeDataset& whole, models::CovariateStorage storage) {
  validate(options);
  Prepared prepared;
  {
    const pipeline::SetupPartTimer timer(pipeline::SetupPart::model);
    prepared.model = models::make_model(data, options.model, options.seed, whole, storage);
  }
  if (options.solver.communicator == nullptr && prepared.model.is_share()) {
    // One process with a "share" of every row (check_share allows no other): the whole data,
    // summed here, not through ranks it does not have.
    prepared.model.total_rows = 0;
  }
  const models::Model& model = prepared.model;
  prepared.pihat = resolve_pihat(options.pihat, model.kind);

  if (prepared.pihat == Pihat::samples) {
    const Matrix<double>& draws = options.user_samples;
    if (draws.cols() != model.dim()) {
      std::string names;
      for (const auto& name : model.parameter_names) {
        names += (names.empty() ? "" : ", ") + name;
      }
      const std::string message = "the posterior samples have " + std::to_string(draws.cols()) +
                                  " columns but the model has " + std::to_string(model.dim()) +
                                  " parameters (" + names + ")";
      if (!options.user_samples_source.empty()) {
        throw InputError(options.user_samples_source, message);
      }
      throw InvalidArgument(message);
    }
    prepared.samples = Eigen::Map<const Eigen::MatrixXd>(draws.data(), draws.rows(), draws.cols());
  }
  return prepared;
}

// S: the user's draws, or the samples the job will draw.
index_t sample_count(const Prepared& prepared, const BuildOptions& options) {
  return prepared.pihat == Pihat::samples ? static_cast<index_t>(prepared.samples.rows())
                                          : static_cast<index_t>(options.samples);
}

// The bytes of one entry of Phi in the job's precision.
std::size_t phi_entry_bytes(const pipeline::ExecutionContext& context) {
  return context.precision() == Precision::float32 ? sizeof(float) : sizeof(double);
}

// The job's large host allocations, checked before the first of them (the samples, then Phi on
// the CPU) so that a job that cannot fit says so, with the sizes, before it spends minutes on
// pi-hat or is killed by the operating system while writing Phi. The GPU's memory is checked
// once before the job's first device allocation (cuda::check_gpu_build_fits), and again by each
// device stage (cuda::check_fits).
// `columns`: the datapoints whose columns of Phi this process holds (a rank's own).
void check_host_memory(const Prepared& prepared, const BuildOptions& options,
                       const pipeline::ExecutionContext& context, index_t columns) {
  const auto s = static_cast<double>(sample_count(prepared, options));
  const auto n = static_cast<double>(columns);
  const double d = static_cast<double>(prepared.model.dim());
  const double phi_bytes = context.on_gpu() ? 0.0 : static_cast<double>(phi_entry_bytes(context));
  // S x d samples in double, then S x n of Phi in the job's precision, per element of S.
  support::check_host_fits(
      s, 8.0 * d + phi_bytes * n, support::host_memory_limit(),
      context.on_gpu() ? "the S samples" : "Phi (S x n, with the S samples)",
      "use fewer --samples" +
          std::string(context.on_gpu() ? "" : ", --precision float or the GPU"));
}

void fit_pihat(Prepared& prepared, const BuildOptions& options,
               const models::RowSumsProvider* full_data) {
  if (prepared.pihat == Pihat::samples) {
    return;  // the user's draws, taken by prepare()
  }
  const models::Model& model = prepared.model;
  ProgressObserver* progress = options.solver.progress;
  auto start = Clock::now();
  if (prepared.pihat == Pihat::exact) {
    prepared.fitted =
        posterior::exact_posterior(model, nullptr, model.is_share() ? full_data : nullptr);
  } else {
    support::stage_started(progress, Stage::laplace, 0);
    posterior::LaplaceOptions laplace;
    laplace.progress = progress;
    laplace.full_data = full_data;
    prepared.fitted = posterior::laplace(model, nullptr, laplace).posterior;
  }
  prepared.seconds.pihat = seconds_since(start);
  support::throw_if_stopped(progress);
  support::stage_started(progress, Stage::sampling, 1);
  start = Clock::now();
  prepared.samples = posterior::draw_samples(*prepared.fitted, options.samples, options.seed);
  prepared.seconds.sampling = seconds_since(start);
  support::advanced(progress, 1);
}

// The posterior comparison of spec 4.3 and 4.4; `full` is the full-data posterior.
void compare_posteriors(const models::Model& model, const posterior::Gaussian& full,
                        const Coreset& coreset, Quality& quality, std::vector<double>* coreset_mean,
                        ProgressObserver* progress) {
  support::throw_if_stopped(progress);
  support::stage_started(progress, Stage::evaluation, 1);
  const posterior::Gaussian approximate = posterior_of(model, &coreset, progress);
  quality.forward_kl = posterior::kl_divergence(full, approximate);
  quality.reverse_kl = posterior::kl_divergence(approximate, full);
  quality.symmetric_kl = quality.forward_kl + quality.reverse_kl;
  // Exact posteriors are Gaussian, so their mode is their mean; Laplace means are MAPs.
  quality.map_distance = (full.mean - approximate.mean).norm();
  quality.posterior_method = conjugate(model.kind) ? "exact" : "laplace";
  if (coreset_mean != nullptr) {
    coreset_mean->assign(approximate.mean.data(),
                         approximate.mean.data() + approximate.mean.size());
  }
  support::advanced(progress, 1);
}

// The full-data posterior for the quality report: pi-hat itself when pi-hat was that posterior.
posterior::Gaussian full_posterior(const Prepared& prepared, ProgressObserver* progress,
                                   const models::RowSumsProvider* full_data) {
  const bool fitted_is_full = prepared.fitted.has_value() &&
                              (prepared.pihat == Pihat::exact || prepared.pihat == Pihat::laplace);
  if (fitted_is_full) {
    return *prepared.fitted;
  }
  if (!conjugate(prepared.model.kind)) {
    support::stage_started(progress, Stage::laplace, 0);
  }
  return posterior_of(prepared.model, nullptr, progress, full_data);
}

std::string dataset_name(const Dataset& data) {
  return data.source.empty() ? "the dataset" : data.source;
}

// solve() accepts k >= n (plain NNLS), but asking for a coreset no smaller than the data is
// almost always a mistake in k or in the file.
void check_budget(const std::string& source, index_t rows, index_t k) {
  if (k > rows) {
    throw InputError(source, "has " + std::to_string(rows) + " rows, fewer than k = " +
                                 std::to_string(k) + ": a coreset must be smaller than the data");
  }
}

void check_rows(const Coreset& coreset, index_t rows) {
  for (const index_t i : coreset.indices) {
    if (i < 0 || i >= rows) {
      throw InvalidArgument("coreset row " + std::to_string(i) + " is outside the dataset's " +
                            std::to_string(rows) + " rows");
    }
  }
}

// Phi where the job solves it: a host matrix on the CPU (pipeline/host_phi.hpp: in one process
// or a rank's block of a distributed build), a device buffer on the GPU. These three are what the
// pipeline does with either besides solving.
using pipeline::HostPhi;
template <class T>
double objective_on(const HostPhi<T>& phi, const Coreset& coreset) {
  return pipeline::objective_of(phi, coreset);
}
template <class T>
double objective_on(const cuda::DevicePhi<T>& phi, const Coreset& coreset) {
  return phi.objective(coreset);
}
template <class T>
void refit_on(const HostPhi<T>& phi, const SolverSettings& solver, SolveResult& result) {
  pipeline::refit_with(phi, solver, result);
}
template <class T>
void refit_on(const cuda::DevicePhi<T>& phi, const SolverSettings& solver, SolveResult& result) {
  phi.refit(solver, result);
}
template <class T>
SolveResult solve_on(const pipeline::ExecutionContext& context, const HostPhi<T>& phi,
                     const SolverOptions& solver, solvers::BudgetSnapshots* snapshots = nullptr) {
  return pipeline::solve_in(context, phi.matrix.view(), static_cast<const T*>(nullptr), solver,
                            snapshots);
}
template <class T>
SolveResult solve_on(const pipeline::ExecutionContext& context, const cuda::DevicePhi<T>& phi,
                     const SolverOptions& solver, solvers::BudgetSnapshots* snapshots = nullptr) {
  return pipeline::solve_in(context, phi, solver, snapshots);
}

// SparseVI draws its own coreset posteriors from the model; only the objective of its coreset
// (after every selection, for the trace) is taken on the build's Phi, as for the other solvers.
// It runs on the problem's ranks `comm` (null: one process), whatever solver.communicator says,
// as the Phi algorithms do (Impl::solver_options).
//
// SparseVI is greedy and its draws at selection m, step t depend only on (seed, m, t)
// (pipeline::sparsevi_seed), never on the budget: its state after m selections is the same in a run
// to k = m as in any run to a larger k. So one run to max(ks) gives, at each k of `ks`
// (ascending, distinct), exactly the result of a run to k alone: the coreset and objective trace
// after selection k (or, when it stopped early, at m' < k selections, the final coreset with
// StopReason::stationary, as a run to k would stop there too), and its own refit. `seconds` is
// the wall time from the start of the run to that snapshot, its refit included; the refit is
// done when the snapshot is taken, as BudgetSnapshots does for GIGA and FW, so the times are
// cumulative and never decrease from one budget to the next (the sweep takes differences).
template <class Phi>
std::vector<SolveResult> solve_sparsevi(const pipeline::ExecutionContext& context,
                                        const models::Model& model, const Phi& phi,
                                        const BuildSolverOptions& solver, std::uint64_t seed,
                                        const std::vector<index_t>& ks,
                                        const std::shared_ptr<const Communicator>& comm) {
  const auto start = Clock::now();
  support::stage_started(solver.progress, Stage::solve, ks.back());
  const double target = objective_on(phi, Coreset{});  // ||y||^2
  std::vector<SolveResult> results(ks.size());
  std::vector<double> history;
  // Where it ran, as solve_stage reports it for the other algorithms (every rank gathers alike).
  const std::vector<std::string> rank_devices =
      comm == nullptr ? std::vector<std::string>() : comm->all_gather(context.device_name());
  std::size_t next = 0;  // the first snapshot not yet taken
  const auto take = [&](std::size_t p, const Coreset& coreset, int selections, StopReason stop) {
    SolveResult& result = results[p];
    result.device = context.device();
    result.rank_devices = rank_devices;
    result.algorithm = solver.algorithm;
    result.step_rule = solver.step_rule;
    result.k = ks[p];
    result.coreset = coreset;
    result.iterations = selections;
    result.converged = true;
    result.stop_reason = stop;
    result.objective_history = history;
    result.objective = history.empty() ? target : history.back();
    result.target_norm = std::sqrt(target);
    result.relative_error = solvers::relative_error(result.objective, result.target_norm);
    refit_on(phi, solver, result);
    result.seconds = seconds_since(start);
  };
  BuildSolverOptions longest = solver;
  longest.k = ks.back();
  longest.threads = context.threads();
  longest.communicator = comm;
  const pipeline::SparseViRun run =
      pipeline::run_sparsevi(model, longest, seed, [&](int m, const Coreset& coreset) {
        history.push_back(objective_on(phi, coreset));
        for (; next < ks.size() && ks[next] == m; ++next) {
          take(next, coreset, m, StopReason::budget);
        }
      });
  for (; next < ks.size(); ++next) {  // it stopped before selection ks[next]
    take(next, run.coreset, run.selections, run.stop_reason);
  }
  return results;
}

// The run of a Phi algorithm: the build's settings, its algorithm as solve() names it, and the
// job's seed as the solver's (BuildOptions::seed).
SolverOptions phi_solver_options(const BuildSolverOptions& solver, std::uint64_t seed) {
  SolverOptions options;
  static_cast<SolverSettings&>(options) = solver;
  options.algorithm = phi_algorithm(solver.algorithm);
  options.seed = seed;
  return options;
}

}  // namespace

struct PreparedProblem::Impl {
  // The context is resolved after the inputs are checked (prepare), so a bad option is
  // reported before a missing GPU, as it always was; pi-hat is fitted in the context.
  Impl(Prepared&& prepared_, const BuildOptions& options)
      : prepared(std::move(prepared_)),
        context(pipeline::job_device(options.solver), options.solver.threads, options.precision,
                options.solver.progress, options.solver.communicator.get()),
        comm(options.solver.communicator) {}

  Prepared prepared;
  // Resolved once for the problem; every stage, solve and evaluation takes it.
  pipeline::ExecutionContext context;
  // Null: one process. Otherwise every rank holds the model and pi-hat (computed alike on each)
  // and its own block of Phi's columns; the solves and every sum over Phi are collectives.
  std::shared_ptr<const Communicator> comm;
  std::string source;  // for the messages: the dataset's file
  posterior::Gaussian full;
  std::vector<double> full_mean;
  std::uint64_t seed = 0;  // BuildOptions::seed, the job's
  // Phi (S x n) where the solves run, in the precision it was built in: one of the four.
  HostPhi<double> phi_double;
  HostPhi<float> phi_float;
  std::unique_ptr<cuda::DevicePhi<double>> device_phi_double;
  std::unique_ptr<cuda::DevicePhi<float>> device_phi_float;
  // On a GPU, the job's one device copy of the dataset (a GPU rank's: of its rows) while a stage
  // needs it: the Laplace fits' sums and the projection read it; released once the full-data
  // posterior is known.
  std::unique_ptr<cuda::DeviceDataset> device_data;
  // A GPU rank holding the whole dataset: its block of rows, while device_data needs it.
  std::optional<models::Model> rank_model;

  /// The problem prepared on `options.solver.threads` threads: the checks, the model, pi-hat,
  /// the samples and Phi (prepare_stages: everything after the model).
  /// `in_place`: the model reads the dataset's covariates in place (CovariatesInPlace). A bool,
  /// not models::CovariateStorage: this class's members are exported, and only public types may
  /// appear in their signatures.
  static std::unique_ptr<Impl> prepare(const Dataset& data, const BuildOptions& options,
                                       bool in_place);
  static void prepare_stages(Impl& impl, const Dataset& data, const BuildOptions& options);

  // A solve names no communicator, or the one this problem was prepared with: its Phi, its
  // shares and SparseVI's posteriors are split over those ranks and no others.

  void check_own_communicator(const BuildSolverOptions& solver) const {
    if (solver.communicator != nullptr && solver.communicator != comm) {
      throw InvalidArgument(
          "a prepared problem solves on the communicator it was prepared with, not another");
    }
  }

  // A solve of this problem's Phi: on its ranks, whatever the caller's settings name.
  SolverOptions solver_options(const BuildSolverOptions& solver) const {
    check_own_communicator(solver);
    SolverOptions options = phi_solver_options(solver, seed);
    options.communicator = comm;
    return options;
  }

  // The posterior comparison of `coreset` with the full data's, on every rank alike.
  void compare(const Coreset& coreset, Quality& quality, std::vector<double>* coreset_mean,
               ProgressObserver* progress) const {
    // A share holds its own rows only: the coreset's are gathered first.
    std::optional<pipeline::CoresetRows> gathered;
    if (prepared.model.is_share()) {
      gathered = pipeline::gather_coreset_rows(prepared.model, coreset, *comm);
    }
    const models::Model& model = gathered ? gathered->model : prepared.model;
    const Coreset& rows = gathered ? gathered->coreset : coreset;
    on_every_rank(comm.get(),
                  [&] { compare_posteriors(model, full, rows, quality, coreset_mean, progress); });
  }

  // A GPU rank of a distributed build: its rows (`local` among the model's) uploaded to its GPU
  // once, before the Laplace fit, whose sums (DistributedRowSums) and the projection both read
  // them there; released with the one-process job's device dataset once the full-data posterior
  // is known. A rank may hold no rows (n < 256 R): it uploads nothing and still takes part in
  // every collective.
  void upload_rank_rows(DatapointRange local) {
    on_every_rank(comm.get(), [&] {
      if (local.count == 0) {
        return;
      }
      if (local.first != 0 || local.count != prepared.model.rows()) {
        rank_model = models::rows_of(prepared.model, local.first, local.count);
      }
      device_data = std::make_unique<cuda::DeviceDataset>(context.gpu_session(), rank_rows());
    });
  }
  // This rank's rows of the model: a copy of its block of the whole data, or its share itself.
  const models::Model& rank_rows() const { return rank_model ? *rank_model : prepared.model; }

  // The GPU rank's block of Phi: its rows, already on its device (upload_rank_rows), projected
  // there and kept as the rank's block of a device Phi (cuda/device_phi.hpp); global datapoints
  // `global`.
  void project_rank_block_on_gpu(DatapointRange global, bool single) {
    const cpu::RankColumns rank{comm.get(), global.first, prepared.model.all_rows()};
    on_every_rank(comm.get(), [&] {
      if (single) {
        device_phi_float = std::make_unique<cuda::DevicePhi<float>>(
            context.gpu_session(), device_data.get(), rank_rows(), prepared.samples, rank);
      } else {
        device_phi_double = std::make_unique<cuda::DevicePhi<double>>(
            context.gpu_session(), device_data.get(), rank_rows(), prepared.samples, rank);
      }
    });
  }

  // `use(phi)` with Phi where and in the precision it was built.
  template <class Use>
  decltype(auto) with_phi(Use&& use) const {
    const bool single = context.precision() == Precision::float32;
    if (context.on_gpu()) {
      return single ? use(*device_phi_float) : use(*device_phi_double);
    }
    return single ? use(phi_float) : use(phi_double);
  }
};

namespace {

// A dataset that holds only some rows (Dataset::is_share) must be this rank's block of a
// distributed build (datapoint_range), as io::DatasetReadOptions::rank reads it.
void check_share(const Dataset& data, const Communicator* comm) {
  if (data.total_rows == 0) {
    return;
  }
  const DatapointRange mine = comm == nullptr
                                  ? DatapointRange{0, data.total_rows}
                                  : datapoint_range(data.total_rows, comm->rank(), comm->size());
  if (data.first_row != mine.first || data.rows() != mine.count) {
    throw InvalidArgument("the dataset holds rows " + std::to_string(data.first_row) + " ... " +
                          std::to_string(data.first_row + data.rows() - 1) + " of " +
                          std::to_string(data.total_rows) + ", but this " +
                          (comm == nullptr
                               ? std::string("process, alone, needs all of them")
                               : "rank's share is rows " + std::to_string(mine.first) + " ... " +
                                     std::to_string(mine.first + mine.count - 1)));
  }
}

// What a rank's share cannot see of the whole dataset (models::WholeDataset), from every rank.
// A collective.
models::WholeDataset whole_dataset(const Dataset& share, const ModelOptions& model,
                                   std::uint64_t seed, const Communicator& comm) {
  models::WholeDataset whole;
  // The logistic labels' encoding is the whole file's: fixed by its first 0 or -1, whichever
  // rank holds that row.
  if (model.kind == ModelKind::logistic) {
    const models::LabelEncoding mine = models::logistic_label_encoding(share);
    const std::vector<models::LabelEncoding> all =
        support::all_gather_values(comm, std::vector<models::LabelEncoding>{mine});
    for (const models::LabelEncoding& encoding : all) {
      if (encoding.row >= 0 && !whole.negative_label.has_value()) {
        whole.negative_label = encoding.negative;  // ranks in order: the lowest row comes first
      }
    }
  }
  // The RBF centres are drawn from all rows, and the near-constant basis sits at their means.
  if (model.kind == ModelKind::linear && model.rbf.enabled) {
    whole.rbf = pipeline::gather_rbf_basis(share, model.rbf, seed, comm);
  }
  return whole;
}

// prepare() on every rank of a distributed build (each holds the whole dataset and builds the
// same model, or its share and the model of its rows); a bad input or option stops all of them
// alike (coreset::on_every_rank).
Prepared prepare_everywhere(const Dataset& data, const BuildOptions& options,
                            models::CovariateStorage storage) {
  const auto started = Clock::now();
  Prepared prepared;
  const Communicator* comm = options.solver.communicator.get();
  on_every_rank(comm, [&] {
    const pipeline::SetupPartTimer timer(pipeline::SetupPart::dataset_checks);
    pipeline::job_device(options.solver);
    check_share(data, comm);
    if (comm != nullptr) {
      // Every rank must take the same paths below (shares sum through the ranks).
      pipeline::check_same_on_every_rank(*comm, data.is_share() ? "a share" : "the whole dataset",
                                         "what each rank holds of the dataset");
    }
  });
  // What a share cannot see of the whole dataset, the ranks find together.
  models::WholeDataset whole;
  if (comm != nullptr && data.is_share()) {
    whole = whole_dataset(data, options.model, options.seed, *comm);
  }
  on_every_rank(comm, [&] { prepared = prepare(data, options, whole, storage); });
  prepared.started = started;
  return prepared;
}

}  // namespace

PreparedProblem::PreparedProblem(const Dataset& data, const BuildOptions& options)
    : impl_(Impl::prepare(data, options, false)) {}

PreparedProblem::PreparedProblem(const Dataset& data, const BuildOptions& options,
                                 CovariatesInPlace)
    : impl_(Impl::prepare(data, options, true)) {}

std::unique_ptr<PreparedProblem::Impl> PreparedProblem::Impl::prepare(const Dataset& data,
                                                                      const BuildOptions& options,
                                                                      bool in_place) {
  // The model's set-up passes and pi-hat's sums run OpenMP's default team: the job's threads.
  const support::ScopedDefaultTeam team(options.solver.threads);
  Prepared prepared = prepare_everywhere(
      data, options,
      in_place ? models::CovariateStorage::borrowed : models::CovariateStorage::copied);
  std::unique_ptr<Impl> made;
  {
    const pipeline::SetupPartTimer timer(pipeline::SetupPart::context);
    made = std::make_unique<Impl>(std::move(prepared), options);
  }
  prepare_stages(*made, data, options);
  return made;
}

void PreparedProblem::Impl::prepare_stages(Impl& impl, const Dataset& data,
                                           const BuildOptions& options) {
  impl.source = dataset_name(data);
  const Prepared& prepared = impl.prepared;
  StageSeconds& seconds = impl.prepared.seconds;
  const pipeline::ExecutionContext& context = impl.context;
  const Communicator* comm = impl.comm.get();
  const pipeline::RankRows held = pipeline::rank_rows(prepared.model, comm);
  std::optional<pipeline::SetupPartTimer> checks_timer(pipeline::SetupPart::memory_checks);
  on_every_rank(comm,
                [&] { check_host_memory(impl.prepared, options, context, held.global.count); });
  if (context.on_gpu()) {
    // The whole job's device memory, before its first allocation there: a job that cannot fit
    // says so, every part named, instead of failing after Laplace (cuda/memory_plan.hpp).
    on_every_rank(comm, [&] {
      if (held.local.count > 0) {
        cuda::check_gpu_build_fits(*context.gpu_session(), held.local.count, prepared.model.dim(),
                                   sample_count(prepared, options), phi_entry_bytes(context));
      }
    });
  }
  checks_timer.reset();
  seconds.setup = seconds_since(prepared.started);
  double upload_seconds = 0.0;
  if (context.on_gpu()) {
    // Uploaded once (a GPU rank: its own rows); the Laplace fit and the projection both read it
    // in place. Its time is the projection's, as when the projection uploaded the design itself.
    const auto upload_start = Clock::now();
    if (comm == nullptr) {
      impl.device_data =
          std::make_unique<cuda::DeviceDataset>(context.gpu_session(), impl.prepared.model);
    } else {
      impl.upload_rank_rows(held.local);
    }
    upload_seconds = seconds_since(upload_start);
  }
  // The full data's sums of the Laplace fits: on the device (a GPU job), split over the ranks
  // (a distributed build: each sums its own rows, on its GPU or exactly on its CPU, the same
  // bits as one process), or the host's.
  std::unique_ptr<pipeline::DistributedRowSums> rank_sums;
  if (comm != nullptr) {
    rank_sums = std::make_unique<pipeline::DistributedRowSums>(impl.prepared.model, held.local,
                                                               *comm, impl.device_data.get());
  }
  const models::RowSumsProvider* full_data =
      rank_sums != nullptr ? static_cast<const models::RowSumsProvider*>(rank_sums.get())
                           : impl.device_data.get();
  on_every_rank(comm, [&] { fit_pihat(impl.prepared, options, full_data); });

  ProgressObserver* progress = context.progress();
  support::throw_if_stopped(progress, comm);
  support::stage_started(progress, Stage::projection, prepared.model.rows());
  auto start = Clock::now();
  impl.seed = options.seed;
  // Phi is built where the solves will run, and stays there: on the GPU it is one GEMM and one
  // fused pass into device memory that every solve of this problem reads in place.
  const bool single = context.precision() == Precision::float32;
  if (context.on_gpu() && comm != nullptr) {
    impl.project_rank_block_on_gpu(held.global, single);
  } else if (context.on_gpu()) {
    if (single) {
      impl.device_phi_float = std::make_unique<cuda::DevicePhi<float>>(
          *impl.device_data, prepared.model, prepared.samples);
    } else {
      impl.device_phi_double = std::make_unique<cuda::DevicePhi<double>>(
          *impl.device_data, prepared.model, prepared.samples);
    }
  } else {
    const auto project = [&](auto& phi) {
      using T = typename std::decay_t<decltype(phi)>::Scalar;
      // Under a communicator this rank projects only its own datapoints, each column the bits
      // one process computes (cpu/projection.hpp).
      phi.rank = cpu::RankColumns{comm, held.global.first, prepared.model.all_rows()};
      on_every_rank(comm, [&] {
        phi.matrix = cpu::projection<T>(prepared.model, prepared.samples, context.threads(),
                                        progress, held.local);
      });
      pipeline::sum_columns(phi, context.threads());
    };
    if (single) {
      project(impl.phi_float);
    } else {
      project(impl.phi_double);
    }
  }
  seconds.projection = upload_seconds + seconds_since(start);

  start = Clock::now();
  on_every_rank(comm, [&] { impl.full = full_posterior(prepared, progress, full_data); });
  // Nothing of the job reads the dataset on the device any more (coreset posteriors are k rows,
  // on the host): its n x d doubles go back to the solves.
  impl.device_data.reset();
  impl.rank_model.reset();
  impl.full_mean.assign(impl.full.mean.data(), impl.full.mean.data() + impl.full.mean.size());
  seconds.evaluation = seconds_since(start);
}

PreparedProblem::~PreparedProblem() = default;
PreparedProblem::PreparedProblem(PreparedProblem&&) noexcept = default;
PreparedProblem& PreparedProblem::operator=(PreparedProblem&&) noexcept = default;

index_t PreparedProblem::rows() const noexcept {
  return impl_->prepared.model.all_rows();
}
index_t PreparedProblem::parameters() const noexcept {
  return impl_->prepared.model.dim();
}
index_t PreparedProblem::samples() const noexcept {
  return impl_->prepared.samples.rows();
}
Pihat PreparedProblem::pihat() const noexcept {
  return impl_->prepared.pihat;
}
const std::vector<std::string>& PreparedProblem::parameter_names() const noexcept {
  return impl_->prepared.model.parameter_names;
}
const std::vector<double>& PreparedProblem::full_posterior_mean() const noexcept {
  return impl_->full_mean;
}
const StageSeconds& PreparedProblem::seconds() const noexcept {
  return impl_->prepared.seconds;
}
Precision PreparedProblem::precision() const noexcept {
  return impl_->context.precision();
}
std::uint64_t PreparedProblem::seed() const noexcept {
  return impl_->seed;
}

SolveResult PreparedProblem::solve(const BuildSolverOptions& solver) const {
  on_every_rank(impl_->comm.get(), [&] { check_budget(impl_->source, rows(), solver.k); });
  // The solve runs where this problem's Phi is (its context's device); solver.device is not
  // asked again. Its threads and progress are the solve's own.
  const pipeline::ExecutionContext context = impl_->context.for_solve(solver);
  const support::ScopedDefaultTeam team(context.threads());
  if (!runs_on_phi(solver.algorithm)) {
    if (!solver.initial_weights.indices.empty()) {
      throw InvalidArgument(
          "initial_weights (a warm start) is for iht, a-iht and a-iht-2; sparsevi starts from "
          "nothing by construction");
    }
    impl_->check_own_communicator(solver);
    return impl_->with_phi([&](const auto& phi) {
      return std::move(solve_sparsevi(context, impl_->prepared.model, phi, solver, impl_->seed,
                                      {solver.k}, impl_->comm)
                           .front());
    });
  }
  const SolverOptions options = impl_->solver_options(solver);
  return impl_->with_phi([&](const auto& phi) { return solve_on(context, phi, options); });
}

Quality PreparedProblem::evaluate(const Coreset& coreset) const {
  check_rows(coreset, rows());
  const support::ScopedDefaultTeam team(impl_->context.threads());
  Quality quality;
  impl_->with_phi([&](const auto& phi) {
    const double target = objective_on(phi, Coreset{});  // ||y||^2, y = Phi 1
    const double residual = objective_on(phi, coreset);
    quality.relative_projection_error = target > 0.0 ? std::sqrt(residual / target) : 0.0;
  });
  impl_->compare(coreset, quality, nullptr, impl_->context.progress());
  return quality;
}

CoresetRun PreparedProblem::solve_and_evaluate(const BuildSolverOptions& solver) const {
  const support::ScopedDefaultTeam team(impl_->context.for_solve(solver).threads());
  CoresetRun run;
  auto start = Clock::now();
  run.solve = solve(solver);
  run.solve_seconds = seconds_since(start);

  start = Clock::now();
  impl_->compare(run.solve.coreset, run.quality, &run.coreset_posterior_mean, solver.progress);
  run.quality.relative_projection_error = run.solve.relative_error;
  run.evaluation_seconds = seconds_since(start);
  return run;
}

SparseViOptions effective_sparsevi_options(const SparseViOptions& options, ModelKind kind) {
  const pipeline::SparseViSettings settings = pipeline::resolve_sparsevi_settings(options, kind);
  SparseViOptions effective;
  effective.steps = settings.steps;
  effective.learning_rate = settings.learning_rate;
  effective.samples = settings.samples;
  effective.optimizer = settings.optimizer;
  return effective;
}

std::vector<CoresetRun> PreparedProblem::solve_and_evaluate_budgets(
    const BuildSolverOptions& solver, std::vector<index_t> ks) const {
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::vector<CoresetRun> runs(ks.size());
  if (ks.empty()) {
    return runs;
  }
  const bool greedy = solver.algorithm == BuildAlgorithm::giga ||
                      solver.algorithm == BuildAlgorithm::frank_wolfe ||
                      solver.algorithm == BuildAlgorithm::sparsevi;
  if (!greedy) {
    for (std::size_t p = 0; p < ks.size(); ++p) {
      BuildSolverOptions one = solver;
      one.k = ks[p];
      runs[p] = solve_and_evaluate(one);
    }
    return runs;
  }
  on_every_rank(impl_->comm.get(), [&] {
    for (const index_t k : ks) {
      check_budget(impl_->source, rows(), k);
    }
    if (ks.front() < 1) {
      throw InvalidArgument("k must be at least 1 (got " + std::to_string(ks.front()) + ")");
    }
  });
  const pipeline::ExecutionContext context = impl_->context.for_solve(solver);
  const support::ScopedDefaultTeam team(context.threads());
  std::vector<SolveResult> results;
  if (solver.algorithm == BuildAlgorithm::sparsevi) {
    impl_->check_own_communicator(solver);
    results = impl_->with_phi([&](const auto& phi) {
      return solve_sparsevi(context, impl_->prepared.model, phi, solver, impl_->seed, ks,
                            impl_->comm);
    });
  } else {
    // GIGA and FW: one run to the largest k, snapshotted at the others; each snapshot is
    // what a run to its k alone returns (solvers/budget_snapshots.hpp).
    BuildSolverOptions longest = solver;
    longest.k = ks.back();
    solvers::BudgetSnapshots snapshots;
    snapshots.budgets = ks;
    impl_->with_phi([&](const auto& phi) {
      return solve_on(context, phi, impl_->solver_options(longest), &snapshots);
    });
    results = std::move(snapshots.results);
    for (SolveResult& result : results) {
      result.device = context.device();
    }
  }
  for (std::size_t p = 0; p < ks.size(); ++p) {
    CoresetRun& run = runs[p];
    run.solve = std::move(results[p]);
    run.solve_seconds = run.solve.seconds;
    const auto start = Clock::now();
    impl_->compare(run.solve.coreset, run.quality, &run.coreset_posterior_mean, solver.progress);
    run.quality.relative_projection_error = run.solve.relative_error;
    run.evaluation_seconds = seconds_since(start);
  }
  return runs;
}

BuildResult build_coreset(const Dataset& data, const BuildOptions& options) {
  on_every_rank(options.solver.communicator.get(), [&] {
    check_budget(dataset_name(data), data.all_rows(),
                 options.solver.k);  // before the costly stages
    if (options.solver.algorithm == BuildAlgorithm::sparsevi) {
      pipeline::resolve_sparsevi_settings(options.solver.sparsevi, options.model.kind);
    }
  });
  // The problem lives within this call, so its model reads the dataset's covariates in place.
  const PreparedProblem problem(data, options, PreparedProblem::CovariatesInPlace{});
  return to_build_result(problem, problem.solve_and_evaluate(options.solver));
}

BuildResult to_build_result(const PreparedProblem& problem, CoresetRun run) {
  BuildResult result;
  result.solve = std::move(run.solve);
  result.quality = std::move(run.quality);
  result.seconds = problem.seconds();
  result.seconds.solve = run.solve_seconds;
  result.seconds.evaluation += run.evaluation_seconds;
  result.pihat = problem.pihat();
  result.parameters = problem.parameters();
  result.samples = problem.samples();
  result.parameter_names = problem.parameter_names();
  result.full_posterior_mean = problem.full_posterior_mean();
  result.coreset_posterior_mean = std::move(run.coreset_posterior_mean);
  return result;
}

Quality evaluate_coreset(const Dataset& data, const BuildOptions& options, const Coreset& coreset) {
  // Before the costly stages.
  on_every_rank(options.solver.communicator.get(), [&] { check_rows(coreset, data.all_rows()); });
  return PreparedProblem(data, options, PreparedProblem::CovariatesInPlace{}).evaluate(coreset);
}

// An n x S column-major matrix: datapoint i's draws are a row, n apart.
Matrix<double> projection_from_loglik(const Matrix<double>& loglik, ProgressObserver* progress) {
  return cpu::projection_from_loglik(loglik.data(), loglik.rows(), loglik.cols(), 1, loglik.rows(),
                                     progress);
}
Matrix<float> projection_from_loglik(const Matrix<float>& loglik, ProgressObserver* progress) {
  return cpu::projection_from_loglik(loglik.data(), loglik.rows(), loglik.cols(), 1, loglik.rows(),
                                     progress);
}
Matrix<double> projection_from_loglik(const double* loglik, index_t datapoints, index_t draws,
                                      index_t datapoint_stride, index_t draw_stride,
                                      ProgressObserver* progress) {
  return cpu::projection_from_loglik(loglik, datapoints, draws, datapoint_stride, draw_stride,
                                     progress);
}
Matrix<float> projection_from_loglik(const float* loglik, index_t datapoints, index_t draws,
                                     index_t datapoint_stride, index_t draw_stride,
                                     ProgressObserver* progress) {
  return cpu::projection_from_loglik(loglik, datapoints, draws, datapoint_stride, draw_stride,
                                     progress);
}

}  // namespace coreset
