#include "cli/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace coreset::cli {
namespace {

std::atomic<bool> quiet_flag{false};

constexpr auto kRedrawPeriod = std::chrono::milliseconds(100);  // at most 10 redraws a second

std::size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) {
    return size.ws_col;
  }
  return 80;
}

void write_stderr(const std::string& text) {
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

void set_quiet(bool quiet) noexcept {
  quiet_flag.store(quiet);
}

bool quiet() noexcept {
  return quiet_flag.load();
}

void print_summary(const std::string& summary, const std::string& result) {
  if (!quiet()) {
    std::fputs(summary.c_str(), stdout);
  }
  std::fputs(result.c_str(), stdout);
}

TerminalProgress::TerminalProgress(bool display)
    : enabled_(display && !quiet() && ::isatty(STDERR_FILENO) == 1) {
  if (enabled_) {
    ticker_ = std::thread([this] { tick(); });
  }
}

TerminalProgress::~TerminalProgress() {
  finish();
}

void TerminalProgress::finish() {
  if (!enabled_) {
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      return;
    }
    stopping_ = true;
    clear_locked();
  }
  wake_.notify_all();
  ticker_.join();
}

void TerminalProgress::set_prefix(const std::string& prefix) {
  const std::lock_guard<std::mutex> lock(mutex_);
  prefix_ = prefix;
}

void TerminalProgress::task(const std::string& label, std::int64_t total) {
  start_stage(label, total);
}

void TerminalProgress::stage_started(Stage stage, std::int64_t total) {
  start_stage(to_string(stage), total, stage == Stage::solve);
}

void TerminalProgress::start_stage(const std::string& label, std::int64_t total, bool solve) {
  const std::lock_guard<std::mutex> lock(mutex_);
  solve_stage_ = solve;
  label_ = label;
  total_ = std::max<std::int64_t>(total, 0);
  done_.store(0);
  stage_start_ = Clock::now();
}

void TerminalProgress::advanced(std::int64_t done) {
  // Several threads may report; keep the largest.
  std::int64_t seen = done_.load(std::memory_order_relaxed);
  while (done > seen && !done_.compare_exchange_weak(seen, done, std::memory_order_relaxed)) {
  }
}

void TerminalProgress::print_line(const std::string& text) {
  if (!enabled_) {
    write_stderr(text);
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  clear_locked();
  write_stderr(text);
}

void TerminalProgress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, kRedrawPeriod, [this] { return stopping_; })) {
    draw_locked();
  }
}

void TerminalProgress::clear_locked() {
  if (drawn_) {
    write_stderr("\r\033[K");
    drawn_ = false;
  }
}

void TerminalProgress::draw_locked() {
  if (label_.empty()) {
    return;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - stage_start_).count();
  const std::int64_t done = done_.load(std::memory_order_relaxed);
  std::string line = "coreset: ";
  if (!prefix_.empty()) {
    line += prefix_ + ": ";
  }
  line += label_;
  char buffer[128];
  if (solve_stage_) {
    std::snprintf(buffer, sizeof buffer, " %lld/%lld", static_cast<long long>(done),
                  static_cast<long long>(total_));
    line += buffer;
  } else if (total_ > 0) {
    const double fraction =
        std::clamp(static_cast<double>(done) / static_cast<double>(total_), 0.0, 1.0);
    constexpr int kBar = 24;
    const auto filled = static_cast<int>(fraction * kBar);
    line += " [" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(kBar - filled), '.') + "]";
    std::snprintf(buffer, sizeof buffer, " %3d%%", static_cast<int>(fraction * 100.0));
    line += buffer;
  } else if (done > 0) {
    std::snprintf(buffer, sizeof buffer, " step %lld", static_cast<long long>(done));
    line += buffer;
  }
  std::snprintf(buffer, sizeof buffer, "  %.1f s", seconds);
  line += buffer;
  const std::size_t width = terminal_width() - 1;
  if (line.size() > width) {
    line.resize(width);
  }
  write_stderr("\r" + line + "\033[K");
  drawn_ = true;
}

}  // namespace coreset::cli
