// The public entry points: validate everything once, then hand over to a backend.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "cpu/datapoint_sums.hpp"
#include "cpu/solve_cpu.hpp"
#include "cuda/device_arrays.hpp"
#include "cuda/solve_cuda.hpp"
#include "pipeline/distributed.hpp"
#include "pipeline/execution_context.hpp"
#include "pipeline/solve_in.hpp"
#include "support/coreset_checks.hpp"
#include "support/enum_check.hpp"
#include "support/progress.hpp"
#include "support/threads.hpp"
#include "support/wall_clock.hpp"

namespace coreset {

void pipeline::validate_solver_options(const SolverOptions& options) {
  support::check_enum_value(options.algorithm, "algorithm");
  support::check_enum_value(options.step_rule, "step_rule");
  support::check_enum_value(options.device, "device");
  if (options.k < 1) {
    throw InvalidArgument("k must be at least 1 (got " + std::to_string(options.k) + ")");
  }
  if (!is_iht_family(options.algorithm) && options.k > 1'000'000'000) {
    throw InvalidArgument(
        "k must be at most 1e9 for " + to_string(options.algorithm) + ", where it counts " +
        (options.algorithm == Algorithm::giga || options.algorithm == Algorithm::frank_wolfe
             ? "steps"
             : "draws") +
        " (got " + std::to_string(options.k) + ")");
  }
  if (options.max_iterations < 1 || options.max_iterations > kMaxIterationsLimit) {
    throw InvalidArgument("max_iterations must be between 1 and 1e9 (got " +
                          std::to_string(options.max_iterations) + ")");
  }
  if (!(options.tolerance >= 0.0) || !std::isfinite(options.tolerance)) {
    throw InvalidArgument("tolerance must be a finite number >= 0");
  }
  if (options.threads < 0) {
    throw InvalidArgument("threads must be >= 0 (0 = every core)");
  }
  support::resolve_threads(options.threads);  // InvalidArgument above what the machine can run
  if (options.sync_every < 0 || options.sync_every > kSyncEveryLimit) {
    throw InvalidArgument("sync_every must be between 0 (the device's default) and 1e6 (got " +
                          std::to_string(options.sync_every) + ")");
  }
  if (!(options.batch_fraction >= 0.0 && options.batch_fraction <= 1.0)) {
    throw InvalidArgument("batch_fraction must be between 0 (off) and 1 (got " +
                          std::to_string(options.batch_fraction) + ")");
  }
  if (!options.initial_weights.indices.empty() && !is_iht_family(options.algorithm)) {
    throw InvalidArgument("initial_weights (a warm start) is for iht, a-iht and a-iht-2; " +
                          to_string(options.algorithm) + " starts from nothing by construction");
  }
  if (options.algorithm == Algorithm::iht && options.batch_fraction > 0.0 &&
      options.batch_fraction < 1.0) {
    throw InvalidArgument(
        "a batch fraction in (0, 1) is for a-iht and a-iht-2: iht's safe step and monotone "
        "descent need the full gradient");
  }
}

void pipeline::validate_initial_weights(const SolverOptions& options, index_t columns) {
  const Coreset& start = options.initial_weights;
  support::check_coreset_columns(start, columns);
  if (start.size() > std::min(options.k, columns)) {
    throw InvalidArgument("initial_weights has " + std::to_string(start.size()) +
                          " points, more than the budget k = " + std::to_string(options.k));
  }
  for (std::size_t p = 0; p < start.indices.size(); ++p) {
    if (p > 0 && start.indices[p] <= start.indices[p - 1]) {
      throw InvalidArgument("initial_weights: indices must be strictly ascending (entry " +
                            std::to_string(p + 1) + ", index " + std::to_string(start.indices[p]) +
                            ")");
    }
    // Zero weights would sit on the support as explicit zeros, which the drivers' exclusion
    // sets must never hold (solvers/backend.hpp, "Support").
    if (!(start.weights[p] > 0.0) || !std::isfinite(start.weights[p])) {
      throw InvalidArgument("initial_weights: weight " + std::to_string(start.weights[p]) +
                            " of index " + std::to_string(start.indices[p]) +
                            " is not a finite number > 0");
    }
  }
}

namespace {

// y's S entries (null: y = Phi 1, nothing to check).
template <class T>
void validate_target(const T* y, index_t rows) {
  if (y == nullptr) {
    return;
  }
  for (index_t i = 0; i < rows; ++i) {
    if (!std::isfinite(y[i])) {
      throw InvalidArgument("y has a non-finite entry at position " + std::to_string(i) +
                            " (0-based)");
    }
  }
}

// `first_column`: the global index of phi's first column (a rank's block of a distributed solve,
// which may hold no column at all: `may_be_empty`).
template <class T>
void validate_data(MatrixView<T> phi, const T* y, int threads, index_t first_column = 0,
                   bool may_be_empty = false) {
  if (may_be_empty && phi.cols == 0 && phi.rows >= 1 && phi.ld >= phi.rows) {
    return;
  }
  if (phi.data == nullptr || phi.rows < 1 || phi.cols < 1) {
    throw InvalidArgument("Phi must have at least one row and one column (got " +
                          std::to_string(phi.rows) + " x " + std::to_string(phi.cols) + ")");
  }
  if (phi.ld < phi.rows) {
    throw InvalidArgument("Phi's leading dimension (" + std::to_string(phi.ld) +
                          ") is smaller than its row count (" + std::to_string(phi.rows) + ")");
  }
  const index_t bad = cpu::find_non_finite(phi, threads);
  if (bad >= 0) {
    const index_t row = bad % phi.rows;
    const index_t col = bad / phi.rows;
    throw InvalidArgument("Phi has a non-finite entry at row " + std::to_string(row) + ", column " +
                          std::to_string(first_column + col) + " (0-based)");
  }
  validate_target(y, phi.rows);
}

using Clock = support::WallClock;

// The solve stage around `run`, which solves on the context's device: progress and timing (from
// `start`, before the checks, as solve() has always timed it).
template <class Run>
SolveResult solve_stage(const pipeline::ExecutionContext& context, const SolverOptions& options,
                        Clock::time_point start, Run&& run) {
  support::throw_if_stopped(options.progress, options.communicator.get());
  support::stage_started(options.progress, Stage::solve,
                         is_iht_family(options.algorithm) ? options.max_iterations : options.k);
  // The passes that name no team of their own (the pinned staging of an upload) use the job's.
  const support::ScopedDefaultTeam team(context.threads());
  SolveResult result = run();
  result.device = context.device();
  result.seconds = support::seconds_since(start);
  if (options.communicator != nullptr) {
    result.rank_devices = options.communicator->all_gather(context.device_name());
  }
  return result;
}

template <class T>
SolveResult solve_any(MatrixView<T> phi, const T* y, const SolverOptions& options) {
  pipeline::validate_solver_options(options);  // bad options before a missing GPU, as always
  Device device = Device::cpu;
  on_every_rank(options.communicator.get(), [&] { device = pipeline::job_device(options); });
  const pipeline::ExecutionContext context(device, options.threads,
                                           sizeof(T) == 4 ? Precision::float32 : Precision::float64,
                                           options.progress, options.communicator.get());
  return pipeline::solve_in(context, phi, y, options);
}

// A view of an array in GPU memory that the functions taking one can read (InvalidArgument
// naming `what` otherwise): data, a size, and strides that do not run backwards.
template <class T>
void check_device_view(DeviceArrayView<T> array, const std::string& what) {
  if (array.data == nullptr || array.rows < 1 || array.cols < 1) {
    throw InvalidArgument(what + " in GPU memory must have data and at least one row and one " +
                          "column (got " + std::to_string(array.rows) + " x " +
                          std::to_string(array.cols) + ")");
  }
  if (array.row_stride < 0 || array.col_stride < 0) {
    throw InvalidArgument(what + " in GPU memory needs non-negative strides (got " +
                          std::to_string(array.row_stride) + ", " +
                          std::to_string(array.col_stride) + ")");
  }
}

// The CUDA ordinal of the GPU that holds `pointer`: DeviceError without a usable GPU,
// InvalidArgument naming `what` for memory that is not a GPU's.
int gpu_holding(const void* pointer, const std::string& what) {
  if (std::string why; !cuda::gpu_available(&why)) {
    throw DeviceError(what + " is in GPU memory but no GPU is usable: " + why);
  }
  return cuda::device_of(pointer, what);
}

template <class T>
Matrix<T> copy_to_host_any(DeviceArrayView<T> array) {
  check_device_view(array, "the array");
  cuda::GpuSession session(gpu_holding(array.data, "the array"));
  return cuda::copy_to_host(session, array);
}

// solve() and solve_loglik() for an array in GPU memory: `what` names it in errors ("Phi", "the
// log-likelihood matrix"). The checks that need no device come first, so that a bad call is an
// InvalidArgument on any machine.
template <class T>
SolveResult solve_device_any(DeviceArrayView<T> array, bool loglik, const T* y,
                             const SolverOptions& options) {
  const auto start = Clock::now();
  const std::string what = loglik ? "the log-likelihood matrix" : "Phi";
  pipeline::validate_solver_options(options);
  check_device_view(array, what);
  if (options.device == Device::cpu) {
    throw InvalidArgument(what + " is in GPU memory: solve it with device gpu or automatic, or " +
                          "copy it to the host for the CPU");
  }
  if (options.communicator != nullptr) {
    throw InvalidArgument(
        "a distributed solve reads each rank's block of Phi from host memory, not from a GPU "
        "array");
  }
  const index_t draws = loglik ? array.cols : array.rows;
  const index_t points = loglik ? array.rows : array.cols;
  pipeline::validate_initial_weights(options, points);
  const int ordinal = gpu_holding(array.data, what);
  const std::vector<T> target = y == nullptr ? std::vector<T>() : cuda::read_values(y, draws);
  validate_target(y == nullptr ? nullptr : target.data(), draws);
  const pipeline::ExecutionContext context = pipeline::ExecutionContext::on_gpu_number(
      ordinal, options.threads, sizeof(T) == 4 ? Precision::float32 : Precision::float64,
      options.progress);
  return solve_stage(context, options, start, [&] {
    return cuda::solve_device_array(*context.gpu_session(), array, loglik,
                                    y == nullptr ? nullptr : target.data(), options);
  });
}

template <class T>
double objective_any(MatrixView<T> phi, const T* y, const Coreset& coreset) {
  if (phi.data == nullptr || phi.rows < 1 || phi.cols < 1 || phi.ld < phi.rows) {
    throw InvalidArgument("objective: Phi must be a non-empty matrix with ld >= rows");
  }
  support::check_coreset_columns(coreset, phi.cols);
  const std::vector<double> target = y == nullptr ? cpu::exact_column_sums(phi, 0, nullptr, 1)
                                                  : std::vector<double>(y, y + phi.rows);
  return cpu::exact_objective(phi, 0, nullptr, target, coreset);
}

// solve_in for one rank's block of a distributed solve: the checks run on every rank and every
// rank stops alike when one fails (pipeline/distributed.hpp), then the distributed CPU backend.
template <class T>
SolveResult solve_distributed(const pipeline::ExecutionContext& context, MatrixView<T> phi,
                              const T* y, const SolverOptions& options,
                              solvers::BudgetSnapshots* snapshots) {
  const auto start = Clock::now();
  const Communicator& comm = *options.communicator;
  pipeline::validate_solver_options(options);
  pipeline::ColumnLayout layout;
  on_every_rank(&comm, [&] { layout = pipeline::column_layout(comm, phi.cols, phi.rows); });
  on_every_rank(&comm, [&] {
    validate_data(phi, y, context.threads(), layout.first, true);
    pipeline::validate_initial_weights(options, layout.columns);
  });
  on_every_rank(&comm, [&] {
    const std::string target = y == nullptr
                                   ? std::string("Phi 1")
                                   : std::string(reinterpret_cast<const char*>(y),
                                                 static_cast<std::size_t>(phi.rows) * sizeof(T));
    pipeline::check_same_on_every_rank(comm, target, "y");
  });
  const cpu::RankColumns rank{&comm, layout.first, layout.columns};
  if (snapshots != nullptr && context.on_gpu()) {
    throw InvalidArgument("budget snapshots of a host Phi are solved on the CPU only");
  }
  return solve_stage(context, options, start, [&] {
    return context.on_gpu()
               ? cuda::solve_on_gpu(*context.gpu_session(), phi, y, options, &rank)
               : cpu::solve_on_cpu(phi, y, options, context.threads(), snapshots, &rank);
  });
}

}  // namespace

template <class T>
SolveResult pipeline::solve_in(const ExecutionContext& context, MatrixView<T> phi, const T* y,
                               const SolverOptions& options, solvers::BudgetSnapshots* snapshots) {
  if (options.communicator != nullptr) {
    return solve_distributed(context, phi, y, options, snapshots);
  }
  const auto start = Clock::now();
  validate_solver_options(options);
  validate_data(phi, y, context.threads());
  validate_initial_weights(options, phi.cols);
  if (snapshots != nullptr && context.on_gpu()) {
    // Never asked for: a job's Phi on a GPU is a DevicePhi (the overload below).
    throw InvalidArgument("budget snapshots of a host Phi are solved on the CPU only");
  }
  return solve_stage(context, options, start, [&] {
    return context.on_gpu() ? cuda::solve_on_gpu(*context.gpu_session(), phi, y, options)
                            : cpu::solve_on_cpu(phi, y, options, context.threads(), snapshots);
  });
}

template <class T>
SolveResult pipeline::solve_in(const ExecutionContext& context, const cuda::DevicePhi<T>& phi,
                               const SolverOptions& options, solvers::BudgetSnapshots* snapshots) {
  const auto start = Clock::now();
  validate_solver_options(options);
  validate_initial_weights(options, phi.cols());
  return solve_stage(context, options, start, [&] { return phi.solve(options, snapshots); });
}

template SolveResult pipeline::solve_in<float>(const pipeline::ExecutionContext&, MatrixView<float>,
                                               const float*, const SolverOptions&,
                                               solvers::BudgetSnapshots*);
template SolveResult pipeline::solve_in<double>(const pipeline::ExecutionContext&,
                                                MatrixView<double>, const double*,
                                                const SolverOptions&, solvers::BudgetSnapshots*);
template SolveResult pipeline::solve_in<float>(const pipeline::ExecutionContext&,
                                               const cuda::DevicePhi<float>&, const SolverOptions&,
                                               solvers::BudgetSnapshots*);
template SolveResult pipeline::solve_in<double>(const pipeline::ExecutionContext&,
                                                const cuda::DevicePhi<double>&,
                                                const SolverOptions&, solvers::BudgetSnapshots*);

bool gpu_usable(std::string* why_not) {
  return cuda::gpu_available(why_not);
}

SolveResult solve(MatrixView<double> phi, const double* y, const SolverOptions& options) {
  return solve_any(phi, y, options);
}
SolveResult solve(MatrixView<float> phi, const float* y, const SolverOptions& options) {
  return solve_any(phi, y, options);
}
Matrix<double> copy_to_host(DeviceArrayView<double> array) {
  return copy_to_host_any(array);
}
Matrix<float> copy_to_host(DeviceArrayView<float> array) {
  return copy_to_host_any(array);
}
SolveResult solve(DeviceArrayView<double> phi, const double* y, const SolverOptions& options) {
  return solve_device_any(phi, false, y, options);
}
SolveResult solve(DeviceArrayView<float> phi, const float* y, const SolverOptions& options) {
  return solve_device_any(phi, false, y, options);
}
SolveResult solve_loglik(DeviceArrayView<double> loglik, const double* y,
                         const SolverOptions& options) {
  return solve_device_any(loglik, true, y, options);
}
SolveResult solve_loglik(DeviceArrayView<float> loglik, const float* y,
                         const SolverOptions& options) {
  return solve_device_any(loglik, true, y, options);
}
double objective(MatrixView<double> phi, const double* y, const Coreset& coreset) {
  return objective_any(phi, y, coreset);
}
double objective(MatrixView<float> phi, const float* y, const Coreset& coreset) {
  return objective_any(phi, y, coreset);
}

}  // namespace coreset
