// The sparse non-negative regression at the heart of coreset construction:
//
//     minimise f(w) = ||y - Phi w||^2   subject to  ||w||_0 <= k,  w >= 0,
//
// with Phi S x n (column i = datapoint i's centred, scaled log-likelihood projection) and
// y = Phi 1 by default. Algorithms and their conventions: ../../README.md, "Algorithms".
//
// What k means depends on the algorithm:
//   iht, a-iht, a-iht-2  the sparsity constraint ||w||_0 <= k; k >= n makes the problem NNLS and
//                        the budget actually used is min(k, n). A column equal to an earlier one
//                        (a duplicate datapoint) is never chosen: the first copy carries the
//                        weight of all its copies, and the budget goes to distinct points.
//   giga, fw             the number of greedy steps (spec 2.8, 2.10): each step adds at most one
//                        point, so the coreset has at most min(k, n) points. Both may pick a point
//                        again (it is then reweighted), so fewer than k distinct points is normal;
//                        they also stop early, with fewer steps, when no step can improve the fit
//                        (StopReason::stationary), and take at most 1000 + 100 n steps whatever
//                        k is (StopReason::max_iterations when that limit cuts k short).
//   is, uniform          the number of draws with replacement (spec 2.9, 2.11); repeats merge, so
//                        the coreset has at most min(k, n) points and usually fewer. Both
//                        estimate Phi 1 without looking at y (y only enters the objective).
// For the four baselines k may exceed n, is at most 1e9, and max_iterations, tolerance,
// step_rule and batch_fraction are ignored; k itself is the iteration or draw count. giga, fw and
// is never choose a zero column; uniform ignores Phi.
// SparseVI (BuildAlgorithm::sparsevi) is no Algorithm: it needs the model, so only the build path
// (build.hpp) runs it, and solve() cannot be asked for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coreset/export.hpp"
#include "coreset/matrix.hpp"
#include "coreset/progress.hpp"
#include "coreset/types.hpp"

namespace coreset {

class Communicator;  // coreset/distributed.hpp

/// The algorithms that run on Phi alone: what solve() takes. SparseVI, which also samples from
/// the model's coreset posteriors, is not one of them, so solve()'s options cannot name it; the
/// build path takes a BuildAlgorithm, which adds it.
enum class Algorithm {
  iht,    ///< vanilla IHT (Algorithm 1 of the A-IHT papers) with the safe step 1/L
  aiht,   ///< accelerated IHT (Algorithm 2): subspace expansion, line search, momentum
  aiht2,  ///< accelerated IHT II (Algorithm 3): Algorithm 2 plus a de-bias step; the default
  giga,   ///< Greedy Iterative Geodesic Ascent (GIGA Algorithm 1), optimally scaled at the end
  frank_wolfe,          ///< Hilbert Frank-Wolfe with the exact line search ([HIL] Algorithm 2)
  importance_sampling,  ///< Hilbert importance sampling, p_n proportional to ||Phi_n||
  uniform,              ///< uniform subsampling with replacement, weights N * count / k
};

/// Every coreset construction of the library: each Algorithm (same enumerator, same value) and
/// SparseVI. It is what the build path (BuildOptions, PreparedProblem) runs and what a
/// SolveResult reports; solve() results only ever hold the Algorithm values.
enum class BuildAlgorithm {
  iht = static_cast<int>(Algorithm::iht),
  aiht = static_cast<int>(Algorithm::aiht),
  aiht2 = static_cast<int>(Algorithm::aiht2),
  giga = static_cast<int>(Algorithm::giga),
  frank_wolfe = static_cast<int>(Algorithm::frank_wolfe),
  importance_sampling = static_cast<int>(Algorithm::importance_sampling),
  uniform = static_cast<int>(Algorithm::uniform),
  /// Greedy sparse variational inference ([SVI] Algorithm 1, spec 2.12; build.hpp): k greedy
  /// selections, each followed by SparseViOptions::steps stochastic-gradient steps on the
  /// weights; a point may be selected again, so the coreset has at most k points. It samples
  /// its own coreset posteriors from the model, so it runs only through build_coreset and
  /// PreparedProblem.
  sparsevi,
};

/// The BuildAlgorithm of an Algorithm (always exists).
constexpr BuildAlgorithm to_build_algorithm(Algorithm algorithm) noexcept {
  return static_cast<BuildAlgorithm>(static_cast<int>(algorithm));
}
/// Whether solve() can run it on Phi alone: every BuildAlgorithm but sparsevi.
constexpr bool runs_on_phi(BuildAlgorithm algorithm) noexcept {
  return algorithm != BuildAlgorithm::sparsevi;
}
/// The Algorithm of a BuildAlgorithm that runs on Phi; InvalidArgument for sparsevi, saying
/// that it needs the build path.
CORESET_API Algorithm phi_algorithm(BuildAlgorithm algorithm);

/// True for iht, a-iht and a-iht-2, the algorithms that iterate to a tolerance; false for the
/// four baselines, whose k counts steps or draws (and for sparsevi, whose k counts selections).
constexpr bool is_iht_family(Algorithm algorithm) {
  return algorithm == Algorithm::iht || algorithm == Algorithm::aiht ||
         algorithm == Algorithm::aiht2;
}
constexpr bool is_iht_family(BuildAlgorithm algorithm) {
  return runs_on_phi(algorithm) &&
         is_iht_family(static_cast<Algorithm>(static_cast<int>(algorithm)));
}

/// The papers disagree with their authors' code on the step lengths (spec 7, A1 and A2).
enum class StepRule {
  exact,      ///< both the gradient step and the momentum are the true line-search minimisers
  reference,  ///< the authors' code: half the exact gradient step, the exact momentum
  paper,      ///< the formulas as printed: the exact gradient step, half the exact momentum
};

enum class StopReason {
  tolerance,   ///< ||w_t - w_{t-1}|| <= tol * ||w_t||
  stationary,  ///< no step can change w (giga, fw: no step improves the fit)
  /// The iteration cap was reached first (IHT family: max_iterations; giga, fw: the step limit
  /// of 1000 + 100 n, for k above it).
  max_iterations,
  /// giga, fw: all k steps were taken; is, uniform: the k draws were made. Their normal end,
  /// reported as converged.
  budget,
};

/// Where a solve runs.
enum class Device {
  cpu,        ///< the CPU backend (Eigen + OpenMP): the reference, always available
  gpu,        ///< the CUDA backend on GPU 0; DeviceError when none is usable
  automatic,  ///< the GPU when one is usable (gpu_usable()), else the CPU
};

/// Whether this library was built with CUDA and a GPU is usable now (driver and device present).
/// `why_not` (optional) receives the reason when it is not. Never throws for a missing driver.
CORESET_API bool gpu_usable(std::string* why_not = nullptr);

/// Makes GPU `ordinal` ready for a job (its CUDA context and cuBLAS's state) on a thread of its
/// own, so that this set-up overlaps what the caller does meanwhile, such as reading the dataset;
/// the job's first GPU call then finds it done, or waits for it. The destructor waits for the
/// thread. Starts nothing in a build without CUDA or when the environment sets
/// CORESET_GPU_WARM_UP=0; never throws for a missing or broken GPU (the job's own calls report
/// it). The `coreset` command makes one for each GPU job of a single process before reading
/// its data.
class CORESET_API GpuWarmUp {
 public:
  explicit GpuWarmUp(int ordinal = 0);
  ~GpuWarmUp();
  GpuWarmUp(const GpuWarmUp&) = delete;
  GpuWarmUp& operator=(const GpuWarmUp&) = delete;
  /// The thread moves with the object; assigning over one waits for its thread first.
  GpuWarmUp(GpuWarmUp&& other) noexcept;
  GpuWarmUp& operator=(GpuWarmUp&& other) noexcept;
  /// Whether this object holds a thread it started (false without CUDA, under
  /// CORESET_GPU_WARM_UP=0, or once moved from).
  bool started() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A weighted subset of the datapoints: ascending indices, strictly positive weights.
struct CORESET_API Coreset {
  std::vector<index_t> indices;
  std::vector<double> weights;

  index_t size() const noexcept { return static_cast<index_t>(indices.size()); }
};

/// The largest SolverSettings::max_iterations and sync_every the solvers accept (the least are 1
/// and 0): the library's checks and the command's options both use these.
inline constexpr int kMaxIterationsLimit = 1'000'000'000;
inline constexpr int kSyncEveryLimit = 1'000'000;

/// The settings every algorithm reads, on both paths: solve() takes them as SolverOptions (with
/// an Algorithm and its own seed), the build path as BuildSolverOptions (build.hpp: with a
/// BuildAlgorithm, SparseVI's settings, and the job's seed).
struct CORESET_API SolverSettings {
  /// cpu (the default: the library never picks a device behind the caller's back), gpu or
  /// automatic. On the GPU, Phi is copied to device memory first (DeviceError, saying how much is
  /// needed and free, when it does not fit) and every iteration runs there; `threads` is then
  /// ignored. Results agree with the CPU's to rounding (the summation orders differ).
  Device device = Device::cpu;
  /// >= 1: the sparsity budget of the IHT family (k >= n makes the problem plain NNLS), the
  /// step count of giga and fw, the draw count of is and uniform (<= 1e9 for these four), the
  /// selection count of sparsevi.
  index_t k = 0;
  int max_iterations = 300;  ///< 1 ... 1e9; the IHT family only
  double tolerance = 1e-5;   ///< relative change that counts as converged, >= 0; IHT family only
  StepRule step_rule = StepRule::exact;  ///< a-iht and a-iht-2 only; iht has a fixed step
  /// CPU threads for the dense passes; 0 = build_info().threads (every core, within a CPU quota).
  int threads = 0;
  /// Batch A-IHT (spec 2.6), a-iht and a-iht-2 only: in [0, 1], 0 = off (the full gradient).
  /// Each iteration's gradient Phi^T r is taken on m = max(1, floor(batch_fraction * n)) columns
  /// drawn uniformly without replacement, afresh per iteration (seeded from the solver's seed
  /// and the iteration number), and is 0 on the others (no rescaling; the residual uses all of
  /// Phi, as in the authors' code); the papers use 0.2. The de-bias step of a-iht-2 stays exact
  /// (it reads only supp(x_t)). Stopping: a batch step that meets the tolerance or stays put
  /// proves nothing, since its batch may have missed the columns that would move w, so the next
  /// iteration is taken with the full gradient and the solver stops only if that one meets the
  /// test too; the stopping rule thus means what it means without batches, at the cost of one
  /// full pass per attempt. iht refuses a fraction in (0, 1) (its safe step and monotone descent
  /// rest on the full gradient); the baselines ignore it.
  double batch_fraction = 0.0;
  /// a-iht and a-iht-2 with full gradients: iterations per look of the host at the solve. 1:
  /// the host reads f and ||w_{t+1} - w_t|| after every iteration. m > 1: after the first four
  /// iterations, the rest run m at a time where the solve runs, the stopping rule applied there
  /// and the iterate it stops at kept there, with one synchronisation (and one progress report,
  /// one look at a stop request) per m iterations; on a GPU two iterations are one CUDA graph,
  /// replayed, so the host launches nothing per iteration. The result is the same for every m,
  /// bit for bit; up to m - 1 iterations past the stop are computed and dropped. 0 (the
  /// default): 16 on a GPU, 1 on the CPU. iht, batches and distributed solves always use 1.
  /// 0 ... 1e6.
  int sync_every = 0;
  /// Every algorithm: once it has returned w, replace its weights by the exact non-negative
  /// least-squares fit of y on the columns of supp(w) (min ||y - Phi_T v||^2, v >= 0,
  /// T = supp(w); Lawson-Hanson, started from w). w is feasible there, so f can only fall;
  /// points whose refit weight is 0 leave the coreset. Costs a few least-squares solves of size
  /// S x |T| on the host. SolveResult::objective_before_refit keeps f(w).
  bool refit = false;
  /// IHT family only: the starting iterate w_0, a warm start (e.g. the solution at a smaller
  /// budget, as coreset::sweep and choose_k use it); empty, the default: w_0 = 0, the cold start.
  /// It must be a coreset of Phi with at most k points: strictly ascending indices among Phi's
  /// columns, finite weights > 0 (InvalidArgument naming the first offender otherwise). The
  /// baselines and sparsevi, whose runs start from nothing by construction, refuse a non-empty
  /// one. The first iteration's gradient is taken at w_0; the stopping rule is unchanged, so a
  /// w_0 that is already a fixed point stops after one or two iterations.
  Coreset initial_weights;
  /// Null (the default): this process solves alone. Otherwise the solve is distributed over the
  /// communicator's ranks (coreset/distributed.hpp): each rank calls solve() with its own block of
  /// Phi's columns (contiguous, in rank order, each starting at a multiple of kReductionBlock, as
  /// datapoint_range() gives them), the same y (or none) and the same options, and each gets the
  /// whole coreset, in global column indices; on the CPU it is the one-process coreset bit for
  /// bit. On GPUs (device gpu, or automatic when every rank has one) each rank keeps its block on
  /// its machine's GPU number Communicator::node_rank() mod (GPU count) and the objective agrees
  /// with one GPU's to rounding.
  std::shared_ptr<const Communicator> communicator;
  /// Not owned; null: none. Sees the stages and their progress and can stop the computation
  /// (coreset::Cancelled is then thrown): the solver's iterations here; for build_coreset,
  /// PreparedProblem and evaluate_coreset (through BuildOptions::solver) also the Laplace fit,
  /// the sampling, the projection and the evaluation. See coreset/progress.hpp. It does not
  /// change any result. A PreparedProblem keeps the one it was built with for evaluate(), so
  /// that observer must outlive the problem.
  ProgressObserver* progress = nullptr;
};

/// The options of solve(): the shared settings, an algorithm that runs on Phi alone, and the
/// solve's own seed.
struct CORESET_API SolverOptions : SolverSettings {
  Algorithm algorithm = Algorithm::aiht2;
  /// Seeds the power iteration of `iht`, the draws of `is` and `uniform` (portable: the same
  /// seed gives the same coreset everywhere) and the batches of batch_fraction. giga, fw, and
  /// a-iht and a-iht-2 without batches are deterministic. On the build path the job's seed
  /// (BuildOptions::seed) takes its place.
  std::uint64_t seed = 0;
};

struct CORESET_API SolveResult {
  Coreset coreset;
  /// The algorithm that made it: an Algorithm for solve(), also sparsevi on the build path.
  BuildAlgorithm algorithm = BuildAlgorithm::aiht2;
  StepRule step_rule = StepRule::exact;
  index_t k = 0;  ///< the budget actually used: min(k, n) for the IHT family, k for the baselines
  /// IHT family: iterations run. giga, fw: steps taken (<= k; 0 when y = 0 or no column
  /// correlates positively with y). is, uniform: 1 (one sampling pass; 0 when Phi = 0 for is).
  int iterations = 0;
  /// IHT family: the host's synchronisations with the iterations, to read their progress: one
  /// per iteration, or, with SolverSettings::sync_every = m > 1, one per iteration for the first
  /// four and one per m after them. 0 for the other algorithms.
  int host_looks = 0;
  bool converged = false;  ///< true unless the iteration cap stopped the solver
  StopReason stop_reason = StopReason::max_iterations;
  double objective = 0.0;       ///< f(w) = ||y - Phi w||^2
  double relative_error = 0.0;  ///< ||y - Phi w|| / ||y|| (0 when y = 0)
  double target_norm = 0.0;     ///< ||y||
  double seconds = 0.0;         ///< wall time of the solve, validation included
  /// f(w_t) after every iteration t = 1..iterations (giga: after the optimal scaling of w_t).
  std::vector<double> objective_history;
  /// `iht` only: the L whose inverse was the final step: 2 x the power-iteration estimate of
  /// lambda_max(Phi^T Phi), doubled for every step that had to be retaken because f rose.
  double lipschitz = 0.0;
  /// With SolverOptions::refit: f at the algorithm's own weights, before the refit (then both it
  /// and `objective` are computed in double on the host from the support's columns, and
  /// objective <= objective_before_refit; objective_history stays the algorithm's trace).
  /// Without: equal to `objective`.
  double objective_before_refit = 0.0;
  Device device = Device::cpu;  ///< where the solve ran: cpu or gpu (never automatic)
  /// A distributed solve (SolverSettings::communicator): where each rank ran, in rank order:
  /// "cpu", or "gpu N: name" (N the CUDA ordinal on its machine). Empty for one process.
  std::vector<std::string> rank_devices;
};

/// Solves the sparse non-negative regression on options.device (the CPU by default).
///
/// `phi` is S x n column-major; `y` points to S values, or is null for y = Phi 1. Every entry of
/// Phi and y must be finite. Throws InvalidArgument for bad options or non-finite data (the
/// message names the first bad entry), DeviceError when options.device is gpu and no GPU is
/// usable (or the library was built without CUDA), Phi does not fit in the GPU's free memory, or
/// a CUDA call fails, and Cancelled when options.progress asks to stop; InvalidArgument also
/// when ||y - Phi w||^2 overflows the precision (rescale Phi and y). Thread-safe for distinct
/// arguments; uses `options.threads` threads for the CPU's dense passes.
CORESET_API SolveResult solve(MatrixView<double> phi, const double* y,
                              const SolverOptions& options);
/// The same in single precision: Phi, y and the iterates are float, scalars accumulate in double.
CORESET_API SolveResult solve(MatrixView<float> phi, const float* y, const SolverOptions& options);

/// solve() for a Phi (S x n) that is already in GPU memory, on the GPU that holds it: read there in
/// place when it is column-major with leading dimension S (strides (1, S)), else copied once on
/// that device into that layout; never copied through host memory. `y` points to S values in host
/// or device memory, or is null for y = Phi 1. options.device must be gpu or automatic (both mean
/// that GPU here), and options.communicator null (a distributed solve takes host blocks). Every
/// entry of Phi and y must be finite: the scan runs on the device, and the error names the first
/// bad entry as solve() does. Throws InvalidArgument for a bad view (null data, a size < 1, a
/// negative stride, memory that is not CUDA device or managed memory) or option, DeviceError when
/// the library has no CUDA, no GPU is usable, the solver's state does not fit beside Phi, or a
/// CUDA call fails, and Cancelled when options.progress asks to stop.
CORESET_API SolveResult solve(DeviceArrayView<double> phi, const double* y,
                              const SolverOptions& options);
CORESET_API SolveResult solve(DeviceArrayView<float> phi, const float* y,
                              const SolverOptions& options);
/// The same from log-likelihoods in GPU memory, n x S: datapoint i's value at draw s is
/// loglik(i, s) (any strides: an n x S C-ordered array, an S x n one as (i, s) -> data[s * n + i],
/// ArviZ's (chain, draw, n) flattened). Each datapoint's values are centred over the draws and
/// scaled by 1/sqrt(S) on the device, as projection_from_loglik does on the host (means in
/// double, so the two agree to rounding), into a new device Phi that is solved and then freed.
/// Errors as above; a non-finite log-likelihood is named by its 0-based datapoint and draw.
CORESET_API SolveResult solve_loglik(DeviceArrayView<double> loglik, const double* y,
                                     const SolverOptions& options);
CORESET_API SolveResult solve_loglik(DeviceArrayView<float> loglik, const float* y,
                                     const SolverOptions& options);

/// An array in GPU memory as a column-major host matrix (rows x cols), in one copy from the GPU
/// that holds it (gathered on that GPU first when its strides are not (1, rows)): for inputs the
/// engine keeps on the host, such as a dataset's covariates (Python's build() and evaluate() take
/// GPU arrays so). Waits for view.stream first. Throws InvalidArgument for a bad view or memory
/// that is not CUDA device or managed memory, DeviceError when the library has no CUDA or no GPU
/// is usable. Nothing is checked for finiteness here: the dataset's own checks do that.
CORESET_API Matrix<double> copy_to_host(DeviceArrayView<double> array);
CORESET_API Matrix<float> copy_to_host(DeviceArrayView<float> array);

/// f(w) = ||y - Phi w||^2 for any coreset, in double precision (y null: y = Phi 1).
CORESET_API double objective(MatrixView<double> phi, const double* y, const Coreset& coreset);
CORESET_API double objective(MatrixView<float> phi, const float* y, const Coreset& coreset);

/// Names used on the command line and in reports: "iht", "a-iht", "a-iht-2", "giga", "fw",
/// "is", "uniform" (and "sparsevi" for BuildAlgorithm: an Algorithm and its BuildAlgorithm have
/// the same name); "exact", ...; "cpu", "gpu", "auto".
CORESET_API std::string to_string(Algorithm algorithm);
CORESET_API std::string to_string(BuildAlgorithm algorithm);
CORESET_API std::string to_string(StepRule rule);
CORESET_API std::string to_string(StopReason reason);
CORESET_API std::string to_string(Device device);
/// Inverses of to_string; each throws InvalidArgument listing the accepted names.
/// parse_algorithm("sparsevi") says that SparseVI runs only on the build path.
CORESET_API Algorithm parse_algorithm(const std::string& name);
CORESET_API BuildAlgorithm parse_build_algorithm(const std::string& name);
CORESET_API StepRule parse_step_rule(const std::string& name);
CORESET_API Device parse_device(const std::string& name);
/// Every algorithm parse_algorithm (parse_build_algorithm) accepts, in the order of its name
/// table: the build path's list is solve()'s followed by sparsevi.
CORESET_API std::vector<Algorithm> all_algorithms();
CORESET_API std::vector<BuildAlgorithm> all_build_algorithms();

}  // namespace coreset
