// Watching and stopping long computations: an observer the library calls as it works, and
// through which the caller can ask it to stop (the `coreset` command uses it for its progress bar
// and for Ctrl-C).
#pragma once

#include <cstdint>

#include "coreset/export.hpp"

namespace coreset {

/// The stages a long computation reports, in the order build_coreset runs them.
enum class Stage {
  laplace,     ///< Newton's method for a Laplace fit; units: Newton steps, total unknown (0)
  sampling,    ///< drawing the S samples from pi-hat; reported as one unit
  projection,  ///< the log-likelihood matrix Phi; units: datapoints (columns of Phi)
  solve,       ///< the solver; units: iterations (IHT family: total = max_iterations, which
               ///< convergence usually cuts short), steps (giga, fw) or selections (sparsevi)
  evaluation,  ///< the quality report: the coreset posterior and the KL divergences; one unit
};

/// The stage's name as the command's progress bar shows it ("laplace", "projection", ...).
CORESET_API const char* to_string(Stage stage) noexcept;

/// Implement the members you need and pass a pointer in SolverOptions::progress (for
/// build_coreset, PreparedProblem and evaluate_coreset: BuildOptions::solver.progress). The
/// library does not own the observer; it must outlive the call.
///
/// Threading: stage_started() is called on the thread that called the library. advanced() and
/// stop_requested() may be called from any thread, also concurrently (the projection calls them
/// from its OpenMP threads, and PreparedProblem's const members may themselves run on several
/// threads), so they must be thread-safe; keep them cheap (an atomic store or load): they are
/// called between units of work, e.g. once per solver iteration or per block of datapoints.
class CORESET_API ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  /// A stage begins; `total` is the number of units it will take, or 0 when not known ahead.
  virtual void stage_started(Stage stage, std::int64_t total) {
    (void)stage;
    (void)total;
  }
  /// `done` units of the current stage are finished (non-decreasing within a stage when called
  /// from one thread; with several threads, calls may arrive out of order).
  virtual void advanced(std::int64_t done) { (void)done; }
  /// Polled between units of work. Once it returns true, the entry point stops at its next
  /// check (within one solver iteration, one block of datapoints or one Newton step) and throws
  /// coreset::Cancelled; nothing partial is returned. Reading a lock-free std::atomic flag that a
  /// signal handler sets is the intended use.
  virtual bool stop_requested() noexcept { return false; }
};

/// In a distributed job (SolverSettings::communicator) a rank's stop request is honoured where
/// every rank polls in step (each solver iteration, Newton step over the ranks' sums, stage):
/// the ranks agree on it there (one 8-byte sum) and all throw coreset::Cancelled with the
/// message kStoppedOnEveryRank (coreset/distributed.hpp), so none is left waiting in a
/// collective.

}  // namespace coreset
