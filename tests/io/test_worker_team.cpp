// The readers' WorkerTeam: every piece of every round run once, by threads that really share
// the round, under names that no two threads hold at once, round after round.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/worker_team.hpp"

namespace coreset::io::detail {
namespace {

// Runs `pieces` pieces on `team` and returns how often each piece ran; fails the test if a
// worker index is out of range or held by two threads at once.
std::vector<int> run_round(WorkerTeam& team, int pieces) {
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(pieces));
  std::vector<std::atomic<bool>> busy(static_cast<std::size_t>(team.size()));
  std::atomic<int> bad_worker{0};
  std::atomic<int> shared_worker{0};
  team.for_each(pieces, [&](int piece, int worker) {
    if (worker < 0 || worker >= team.size()) {
      ++bad_worker;
      return;
    }
    if (busy[static_cast<std::size_t>(worker)].exchange(true)) {
      ++shared_worker;
    }
    ++runs[static_cast<std::size_t>(piece)];
    busy[static_cast<std::size_t>(worker)] = false;
  });
  EXPECT_EQ(bad_worker.load(), 0);
  EXPECT_EQ(shared_worker.load(), 0);
  std::vector<int> counts;
  for (const std::atomic<int>& count : runs) {
    counts.push_back(count.load());
  }
  return counts;
}

TEST(WorkerTeam, RunsEveryPieceOnceWhateverThePieceCount) {
  for (const int threads : {1, 2, 3, 8}) {
    WorkerTeam team(threads);
    EXPECT_EQ(team.size(), threads);
    for (const int pieces : {0, 1, 2, threads, 4 * threads + 1, 97}) {
      const std::vector<int> runs = run_round(team, pieces);
      EXPECT_EQ(runs, std::vector<int>(static_cast<std::size_t>(pieces), 1))
          << threads << " threads, " << pieces << " pieces";
    }
  }
}

TEST(WorkerTeam, ManyShortRoundsLoseNoPieceAndNoWakeUp) {
  // A lost wake-up hangs the round, a piece run twice or not at all shows in the counts.
  WorkerTeam team(4);
  for (int round = 0; round < 2000; ++round) {
    const int pieces = 1 + round % 9;
    ASSERT_EQ(run_round(team, pieces), std::vector<int>(static_cast<std::size_t>(pieces), 1))
        << "round " << round;
  }
}

TEST(WorkerTeam, TheHelpersTakePartInTheRound) {
  // Each piece waits until every thread of the team holds one: only a team whose helpers run
  // the round's pieces beside the caller gets past it (a caller doing it all alone would time
  // out at the first piece).
  WorkerTeam team(3);
  std::mutex mutex;
  std::condition_variable all_in;
  int holding = 0;
  bool timed_out = false;
  std::vector<std::thread::id> runners(3);
  team.for_each(3, [&](int piece, int) {
    std::unique_lock<std::mutex> lock(mutex);
    runners[static_cast<std::size_t>(piece)] = std::this_thread::get_id();
    ++holding;
    all_in.notify_all();
    if (!all_in.wait_for(lock, std::chrono::seconds(30), [&] { return holding == 3; })) {
      timed_out = true;
    }
  });
  EXPECT_FALSE(timed_out);
  EXPECT_NE(runners[0], runners[1]);
  EXPECT_NE(runners[0], runners[2]);
  EXPECT_NE(runners[1], runners[2]);
}

TEST(WorkerTeam, ARoundOfFewerPiecesThanThreadsTakesThatManyThreads) {
  WorkerTeam team(8);
  for (int round = 0; round < 200; ++round) {
    const int pieces = 1 + round % 3;
    std::atomic<int> beyond{0};
    team.for_each(pieces, [&](int, int worker) { beyond += worker >= pieces ? 1 : 0; });
    ASSERT_EQ(beyond.load(), 0) << "round " << round;
  }
}

TEST(WorkerTeam, AThrowingPieceEndsTheRoundAndIsRethrownAndTheTeamGoesOn) {
  WorkerTeam team(4);
  for (const int thrower : {0, 5, 39}) {  // the first piece, one in the middle, the last
    std::vector<std::atomic<int>> runs(40);
    EXPECT_THROW(team.for_each(40,
                               [&](int piece, int) {
                                 ++runs[static_cast<std::size_t>(piece)];
                                 if (piece == thrower) {
                                   throw std::runtime_error("piece " + std::to_string(piece));
                                 }
                               }),
                 std::runtime_error)
        << "piece " << thrower;
    for (const std::atomic<int>& count : runs) {
      EXPECT_LE(count.load(), 1);  // none run twice, whatever was left out
    }
    // The team is whole again: the next round runs every piece once.
    EXPECT_EQ(run_round(team, 25), std::vector<int>(25, 1));
  }
}

TEST(WorkerTeam, ATeamOfOneRunsOnTheCaller) {
  WorkerTeam team(1);
  EXPECT_EQ(team.size(), 1);
  const std::thread::id caller = std::this_thread::get_id();
  bool elsewhere = false;
  team.for_each(5, [&](int, int worker) {
    elsewhere = elsewhere || worker != 0 || std::this_thread::get_id() != caller;
  });
  EXPECT_FALSE(elsewhere);
}

TEST(WorkerTeam, IsDestroyedCleanlyWithOrWithoutRounds) {
  { WorkerTeam idle(4); }  // helpers waiting for a first round must still be stopped and joined
  WorkerTeam used(4);
  EXPECT_EQ(run_round(used, 10), std::vector<int>(10, 1));
}

}  // namespace
}  // namespace coreset::io::detail
