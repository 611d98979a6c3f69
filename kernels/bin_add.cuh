// Ways to add one to a bin of a histogram in shared memory for every calling thread, the inner
// step of the radix top-k's histogram passes (select.cu). The first passes send nearly every key
// to a few bins (a vector's entries share the digits of their exponent), so how the lanes of a
// warp that share a digit add decides a pass's speed. select.cu uses add_each in the passes over
// n keys on every SM and add_by_partition in the one-block selection, each the faster where it
// serves (measured, see select.cu); bench/bench_gpu_histogram.cu times the three on the vectors
// a solver selects from, and the one-block selection whole.
#pragma once

#include <cooperative_groups.h>

namespace coreset::kernels::bins {

/// The calling thread's lane in its warp, as the hardware numbers it (whatever the block's shape).
__device__ inline int lane_id() {
  unsigned int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}

/// The lanes that share a digit add once, together: a labelled partition of the lanes active
/// here (__match_any_sync underneath), whose first lane adds the partition's size.
template <class Counter>
__device__ void add_by_partition(Counter* bins, int digit) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group active = cg::coalesced_threads();
  const cg::coalesced_group same_digit = cg::labeled_partition(active, digit);
  if (same_digit.thread_rank() == 0) {
    atomicAdd(&bins[digit], static_cast<Counter>(same_digit.size()));
  }
}

/// Every lane adds its own one; the hardware serialises the lanes that hit one address.
template <class Counter>
__device__ void add_each(Counter* bins, int digit) {
  atomicAdd(&bins[digit], Counter{1});
}

/// When every active lane has the same digit, the first adds their number, in one atomic;
/// otherwise each lane adds its own one. A vote and a shuffle where add_by_partition matches.
template <class Counter>
__device__ void add_uniform_or_each(Counter* bins, int digit) {
  const unsigned active = __activemask();
  const int first_lane = __ffs(static_cast<int>(active)) - 1;
  const int first_digit = __shfl_sync(active, digit, first_lane);
  if (__all_sync(active, digit == first_digit)) {
    if (lane_id() == first_lane) {
      atomicAdd(&bins[digit], static_cast<Counter>(__popc(active)));
    }
  } else {
    atomicAdd(&bins[digit], Counter{1});
  }
}

}  // namespace coreset::kernels::bins
