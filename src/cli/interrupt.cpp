#include "cli/interrupt.hpp"

#include <csignal>

#include <atomic>

#include "coreset/error.hpp"

namespace coreset::cli {
namespace {

// Lock-free, hence safe to touch from a signal handler.
std::atomic<int> requested{0};
std::atomic<bool> deferring{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_signal(int signal) {
  int expected = 0;
  if (requested.compare_exchange_strong(expected, signal) || deferring.load()) {
    return;  // the first request: the command stops at its next check
  }
  // A second one: the user insists. Nothing temporary is on disk outside OutputDeferral.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes resume; the flag is polled
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupt_signal() noexcept {
  return requested.load(std::memory_order_relaxed);
}

void throw_if_interrupted() {
  if (interrupt_signal() != 0) {
    throw Cancelled("stopped on request");
  }
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

OutputDeferral::OutputDeferral() noexcept {
  deferring.store(true);
}

OutputDeferral::~OutputDeferral() {
  deferring.store(false);
}

}  // namespace coreset::cli
