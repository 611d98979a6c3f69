// The readers' threads: started once per read and reused for every block, not started and joined
// for each of the block's steps.
//
// A parallel CSV read hands work to its threads three times per block (the reads out of the page
// cache, the count of the lines, the parse), and a 512 MB file on 16 threads is 8 blocks: 24
// rounds. Starting and joining the helpers for each round cost about 60 us for one helper and
// 600 us for fifteen on the 2-vCPU build VM (a bare fork-join of std::threads), on the calling
// thread before the round could end. A team starts its helpers once; between rounds they block on
// a condition variable, so an idle helper takes no core from a busy one (why the readers use no
// OpenMP team: parallel_rows.hpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace coreset::io::detail {

class WorkerTeam {
 public:
  /// A team of up to `threads` threads (>= 1), the caller's among them. No helper is started
  /// here: each is started by the first round that has a piece for it, so a team that only
  /// ever sees rounds of one piece (a small file's one range) costs nothing. If the system will
  /// not start more, the team stays at the helpers it has (the others then do their share).
  explicit WorkerTeam(int threads);
  /// Stops and joins the helpers (none may be running work: for_each has returned).
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  /// The most threads that take part in a round, the caller's among them: every `worker` a
  /// round names is below it.
  int size() const noexcept { return threads_; }

  /// Calls work(piece, worker) for every piece in [0, pieces) on the team's threads, each
  /// taking the next piece when it is done with one; `worker` in [0, size()) names the thread
  /// (0 is the caller), for per-thread buffers. Only min(size(), pieces) threads take part.
  /// Returns when every piece is done. If a call of `work` throws, no further piece is started,
  /// the pieces under way finish, and the first exception is rethrown here. Not reentrant: one
  /// round at a time, from one calling thread.
  void for_each(int pieces, const std::function<void(int, int)>& work);

 private:
  // Takes pieces of the current round as `worker` until none is left; keeps the round's first
  // exception for for_each.
  void drain(int worker) noexcept;
  // A helper's life from round `rounds_seen` on: wait for a round (or the end), drain it,
  // report it done.
  void serve(int worker, std::uint64_t rounds_seen);
  // Starts helpers until there are `count` (between rounds, when none is running).
  void start_helpers(int count);

  int threads_ = 1;
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable round_started_;
  std::condition_variable round_done_;
  // The current round, written by the caller before it advances round_ under mutex_ (which
  // orders these writes before any helper's reads of them).
  const std::function<void(int, int)>* work_ = nullptr;
  int pieces_ = 0;
  std::atomic<int> next_piece_{0};
  // Under mutex_:
  std::uint64_t round_ = 0;   // rounds started
  int round_helpers_ = 0;     // helpers 1 ... this take part in the current round
  int helpers_in_round_ = 0;  // of those, the ones still draining it
  std::exception_ptr error_;  // the round's first exception
  bool stopping_ = false;
};

}  // namespace coreset::io::detail
