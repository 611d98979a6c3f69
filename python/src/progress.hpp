// Long computations from Python: the engine runs with the GIL released, and an observer brings
// Ctrl-C and the user's progress callback back to the calling thread. Python handles a signal
// only when its main thread runs Python code, so the observer, whenever the engine polls it on
// the calling thread (between iterations, blocks of datapoints, Newton steps), takes the GIL at
// most every 50 ms, runs PyErr_CheckSignals() and the callback, and asks the engine to stop if
// either raised. The engine then throws Cancelled, and the Python exception that stopped it
// (KeyboardInterrupt, or whatever the callback raised) is what the caller sees.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "coreset/error.hpp"
#include "coreset/progress.hpp"

namespace coreset::python {

class PythonProgress final : public ProgressObserver {
 public:
  /// `callback`: None, or callable(stage: str, done: int, total: int). Construct and destroy
  /// with the GIL held, on the thread that calls the engine.
  explicit PythonProgress(pybind11::object callback);
  ~PythonProgress() override;
  PythonProgress(const PythonProgress&) = delete;
  PythonProgress& operator=(const PythonProgress&) = delete;

  void stage_started(Stage stage, std::int64_t total) override;
  void advanced(std::int64_t done) override;
  bool stop_requested() noexcept override;

  /// With the GIL held, after the engine threw Cancelled: raises the Python exception that
  /// asked it to stop, if any (else returns, and Cancelled becomes KeyboardInterrupt).
  void raise_pending();

 private:
  void poll(bool force) noexcept;

  pybind11::object callback_;
  std::thread::id owner_;
  std::atomic<Stage> stage_{Stage::solve};
  std::atomic<std::int64_t> total_{0};
  std::atomic<std::int64_t> done_{0};
  std::atomic<bool> stop_{false};
  bool staged_ = false;  // a stage has started: the callback has something to report
  std::chrono::steady_clock::time_point last_poll_{};
  PyObject* pending_type_ = nullptr;  // the exception that stopped the engine (owned)
  PyObject* pending_value_ = nullptr;
  PyObject* pending_traceback_ = nullptr;
};

/// Runs `work` with the GIL released, `progress` watching it; a Cancelled it throws becomes the
/// Python exception that caused it.
template <class Work>
auto run_without_gil(PythonProgress& progress, Work&& work) -> decltype(work()) {
  try {
    pybind11::gil_scoped_release release;
    return work();
  } catch (const Cancelled&) {
    progress.raise_pending();
    throw;
  }
}

}  // namespace coreset::python
