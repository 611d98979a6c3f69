// A Communicator over threads of one process (coreset/distributed.hpp): R "ranks" run as R
// threads and meet at each collective. It lets the distributed solve be tested, sanitized and
// debugged without mpirun; tests/mpi runs the same solves under a real MPI.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "coreset/distributed.hpp"

namespace coreset::test {

class ThreadGroup {
 public:
  /// How long a rank waits for the others at a collective before it gives up.
  static constexpr std::chrono::seconds kPatience{120};

  explicit ThreadGroup(int ranks) : ranks_(ranks), slots_(static_cast<std::size_t>(ranks)) {}

  int ranks() const { return ranks_; }

  /// Every rank's `mine`, in rank order, once all ranks have handed theirs in.
  std::vector<std::string> exchange(int rank, std::string mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    // Wait until the previous exchange has been read by every rank.
    done_.wait(lock, [&] { return readers_left_ == 0; });
    slots_[static_cast<std::size_t>(rank)] = std::move(mine);
    const std::uint64_t round = round_;
    if (++arrived_ == ranks_) {
      arrived_ = 0;
      readers_left_ = ranks_;
      result_ = slots_;
      ++round_;
      ready_.notify_all();
    } else if (!ready_.wait_for(lock, kPatience, [&] { return round_ != round; })) {
      // A rank never came: the ranks took different paths. Fail instead of hanging.
      throw std::runtime_error("ThreadGroup: rank " + std::to_string(rank) + " waited " +
                               std::to_string(kPatience.count()) +
                               " s in a collective that another rank never reached");
    }
    std::vector<std::string> all = result_;
    if (--readers_left_ == 0) {
      done_.notify_all();
    }
    return all;
  }

 private:
  int ranks_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable done_;
  std::vector<std::string> slots_;
  std::vector<std::string> result_;
  int arrived_ = 0;
  int readers_left_ = 0;
  std::uint64_t round_ = 0;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(std::shared_ptr<ThreadGroup> group, int rank)
      : group_(std::move(group)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_->ranks(); }
  void sum(std::int64_t* values, std::size_t count) const override {
    const auto all = group_->exchange(
        rank_, std::string(reinterpret_cast<const char*>(values), count * sizeof(std::int64_t)));
    std::vector<std::int64_t> total(count, 0);
    for (const std::string& part : all) {
      const auto* theirs = reinterpret_cast<const std::int64_t*>(part.data());
      for (std::size_t i = 0; i < count; ++i) {
        total[i] += theirs[i];
      }
    }
    std::copy(total.begin(), total.end(), values);
  }
  std::vector<std::string> all_gather(const std::string& bytes) const override {
    return group_->exchange(rank_, bytes);
  }
  std::string description() const override {
    return "threads, " + std::to_string(size()) + " ranks";
  }

 private:
  std::shared_ptr<ThreadGroup> group_;
  int rank_;
};

/// Runs body(comm) on `ranks` threads, one communicator each; rethrows the first rank's
/// exception (in rank order) after all have finished.
inline void run_ranks(int ranks,
                      const std::function<void(const std::shared_ptr<Communicator>&)>& body) {
  auto group = std::make_shared<ThreadGroup>(ranks);
  std::vector<std::exception_ptr> failure(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        body(std::make_shared<ThreadCommunicator>(group, r));
      } catch (...) {
        failure[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const auto& error : failure) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

}  // namespace coreset::test
