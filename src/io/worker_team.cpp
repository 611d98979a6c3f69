// WorkerTeam: helpers started once, woken for each round, joined at the end.
#include "io/worker_team.hpp"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <utility>

namespace coreset::io::detail {

WorkerTeam::WorkerTeam(int threads) : threads_(std::max(threads, 1)) {}

void WorkerTeam::start_helpers(int count) {
  while (static_cast<int>(helpers_.size()) < count) {
    const int worker = static_cast<int>(helpers_.size()) + 1;
    // No round runs now and only this thread advances round_: the helper waits for the next.
    const std::uint64_t rounds_seen = round_;
    try {
      // A lambda, not &WorkerTeam::serve: std::thread's instantiations for a local closure type
      // stay internal to this file, where a member pointer's would be exported from the library.
      helpers_.emplace_back([this, worker, rounds_seen] { serve(worker, rounds_seen); });
    } catch (const std::system_error&) {
      threads_ = static_cast<int>(helpers_.size()) + 1;  // no more threads to be had
      return;
    }
  }
}

WorkerTeam::~WorkerTeam() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  round_started_.notify_all();
  for (std::thread& helper : helpers_) {
    helper.join();
  }
}

void WorkerTeam::drain(int worker) noexcept {
  for (int piece = next_piece_++; piece < pieces_; piece = next_piece_++) {
    try {
      (*work_)(piece, worker);
    } catch (...) {
      next_piece_ = pieces_;  // hand out no more pieces: the round ends with those under way
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) {
        error_ = std::current_exception();
      }
    }
  }
}

void WorkerTeam::serve(int worker, std::uint64_t rounds_seen) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      round_started_.wait(lock, [&] { return stopping_ || round_ != rounds_seen; });
      if (stopping_) {
        return;
      }
      rounds_seen = round_;
      if (worker > round_helpers_) {
        continue;  // a round of fewer pieces than threads: back to waiting, nothing to report
      }
    }
    drain(worker);
    bool last = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      last = --helpers_in_round_ == 0;
    }
    if (last) {
      round_done_.notify_one();
    }
  }
}

void WorkerTeam::for_each(int pieces, const std::function<void(int, int)>& work) {
  if (pieces <= 0) {
    return;
  }
  work_ = &work;
  pieces_ = pieces;
  next_piece_ = 0;
  error_ = nullptr;
  // Helpers 1 ... round_helpers_ take part: one piece each at least, with the caller's.
  start_helpers(std::min(threads_, pieces) - 1);
  const int helpers = std::min(static_cast<int>(helpers_.size()), pieces - 1);
  if (helpers > 0) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      round_helpers_ = helpers;
      helpers_in_round_ = helpers;
      ++round_;
    }
    round_started_.notify_all();
  }
  drain(0);
  if (helpers > 0) {
    // Every helper of the round reports, even one that found no piece left: the round's state
    // may change only once none of them can still be reading it.
    std::unique_lock<std::mutex> lock(mutex_);
    round_done_.wait(lock, [&] { return helpers_in_round_ == 0; });
  }
  if (error_) {
    std::rethrow_exception(std::exchange(error_, nullptr));
  }
}

}  // namespace coreset::io::detail
