// Ctrl-C (SIGINT) and SIGTERM: the first one asks the running command to stop; the library polls
// the request through ProgressObserver::stop_requested and throws Cancelled, and main() exits
// with 128 + the signal number after the destructors have removed every temporary file. A second
// signal ends the process at once (the default action), except while the outputs are being
// renamed into place (OutputDeferral), which takes milliseconds.
#pragma once

#include "coreset/progress.hpp"

namespace coreset::cli {

/// Installs the handlers for SIGINT and SIGTERM (SA_RESTART). Call once, early in main().
void install_interrupt_handlers();

/// The signal that asked to stop (SIGINT or SIGTERM), or 0. Async-signal-safe.
int interrupt_signal() noexcept;

/// Throws Cancelled when a signal asked to stop.
void throw_if_interrupted();

/// "SIGINT", "SIGTERM", or "signal N".
const char* signal_name(int signal) noexcept;

/// An observer that only answers stop_requested() from the signal flag: what the library polls
/// when nothing is displayed.
class InterruptObserver : public ProgressObserver {
 public:
  bool stop_requested() noexcept override { return interrupt_signal() != 0; }
};

/// While one exists, a second signal is only recorded, not fatal: the outputs being renamed into
/// place are either all there or none.
class OutputDeferral {
 public:
  OutputDeferral() noexcept;
  ~OutputDeferral();
  OutputDeferral(const OutputDeferral&) = delete;
  OutputDeferral& operator=(const OutputDeferral&) = delete;
};

}  // namespace coreset::cli
