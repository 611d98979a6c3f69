// What the command shows on the terminal besides its results: --quiet, and the progress line on
// stderr for long stages (reading, Laplace, sampling, projection, solve, evaluation). The line is
// drawn only when stderr is a terminal and --quiet is not given, redrawn at most 10 times a
// second by a thread of its own, and cleared when the command ends, so pipes, log files and
// --report JSON never see it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "cli/interrupt.hpp"

namespace coreset::cli {

/// --quiet: no progress line and no summary; errors (and a coreset listed on stdout in place of
/// --out) still print. Set by main() before the command runs.
void set_quiet(bool quiet) noexcept;
bool quiet() noexcept;

/// Prints `summary` on stdout unless --quiet, then `result` (e.g. the coreset listed in place of
/// --out), which --quiet does not silence.
void print_summary(const std::string& summary, const std::string& result);

/// The progress line; as a ProgressObserver it also carries Ctrl-C to the library.
class TerminalProgress : public InterruptObserver {
 public:
  /// `display` false: never draws (e.g. the ranks of a distributed run other than 0).
  explicit TerminalProgress(bool display = true);
  /// Clears the line.
  ~TerminalProgress() override;
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  /// Whether the line is drawn at all.
  bool enabled() const noexcept { return enabled_; }
  /// Shown before the stage, e.g. "synth_lr trial 3/20"; empty: none.
  void set_prefix(const std::string& prefix);
  /// A stage of the command's own (e.g. "reading data.csv"), `total` units (0: unknown).
  void task(const std::string& label, std::int64_t total);

  void stage_started(Stage stage, std::int64_t total) override;
  void advanced(std::int64_t done) override;

  /// Prints `text` (ending in a newline) on stderr without mixing it into the progress line.
  void print_line(const std::string& text);
  /// Stops drawing and clears the line; the destructor does it too.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void start_stage(const std::string& label, std::int64_t total, bool solve = false);
  void draw_locked();
  void clear_locked();
  void tick();

  bool enabled_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool drawn_ = false;  // a line is on the terminal
  std::string prefix_;
  std::string label_;
  bool solve_stage_ = false;  // counts iterations rather than a fraction of work
  std::int64_t total_ = 0;
  std::atomic<std::int64_t> done_{0};
  Clock::time_point stage_start_ = Clock::now();
  std::thread ticker_;
};

}  // namespace coreset::cli
