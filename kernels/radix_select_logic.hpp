// The pure logic of the GPU top-k (kernels/select.cu), host-and-device so that it is unit-tested
// on the CPU (tests/kernels/test_radix_select_logic.cpp) exactly as the device runs it.
//
// Selection of the k best entries under a rule (solvers/selection_rule.hpp) without sorting n:
//  1. every entry gets an unsigned key: 0 when it can never be selected (zero, -0.0, NaN, a
//     negative under largest_positive, an excluded index), else the bit pattern of its positive
//     score (the value, or |value|). Positive IEEE numbers, +infinity included, order exactly
//     like their bit patterns read as unsigned integers, so comparing keys compares scores.
//  2. the k-th largest key t is found one 8-bit digit at a time, from the most significant: a
//     histogram of the current digit over the keys that share the digits chosen so far, then
//     choose_digit() picks the digit holding the k-th largest and how many of that bucket are
//     still to take. 4 passes for float, 8 for double, each one read of the input.
//  3. the selection is every key > t, plus the `remaining` lowest-index keys equal to t. When
//     fewer than k keys are positive, t ends at 0 and exactly the positive keys are selected.
// Zero keys are never counted in the histograms (they cannot be selected, and counting them
// would make every thread of a mostly-negative gradient hit one shared counter); step 3 is right
// without them because choose_digit falls through to digit 0 when a bucket has too few keys.
#pragma once

#include <cstdint>
#include <cstring>

#include "coreset/types.hpp"
#include "support/host_device.hpp"

namespace coreset::kernels::radix {

constexpr int kDigitBits = 8;
constexpr int kBins = 1 << kDigitBits;

template <class T>
struct KeyType;
template <>
struct KeyType<float> {
  using type = std::uint32_t;
};
template <>
struct KeyType<double> {
  using type = std::uint64_t;
};
template <class T>
using key_t = typename KeyType<T>::type;

template <class T>
CORESET_HOST_DEVICE inline key_t<T> bit_pattern(T value) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) {
    return __float_as_uint(value);
  } else {
    return static_cast<key_t<T>>(__double_as_longlong(value));
  }
#else
  key_t<T> bits;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
#endif
}

/// The key of one entry (see the header): 0 for entries that are never selected.
template <class T>
CORESET_HOST_DEVICE inline key_t<T> selection_key(T value, bool by_magnitude) {
  const T score = by_magnitude && value < T(0) ? -value : value;
  // Fails for 0, -0.0, negatives and NaN (every comparison with NaN is false).
  if (!(score > T(0))) {
    return 0;
  }
  return bit_pattern(score);
}

/// Passes of step 2 for key type Key: its bits in 8-bit digits.
template <class Key>
constexpr int pass_count() {
  return static_cast<int>(sizeof(Key) * 8) / kDigitBits;
}

/// The bit position of the digit examined in pass p (pass 0 = most significant digit).
template <class Key>
CORESET_HOST_DEVICE constexpr int digit_shift(int pass) {
  return (pass_count<Key>() - 1 - pass) * kDigitBits;
}

/// Where the k-th largest key lies within one histogram, and how many of that bucket's keys are
/// still to take (those in higher buckets are all taken).
struct DigitChoice {
  int digit;
  index_t remaining;
};

/// `histogram[d]` counts the keys whose current digit is d among those sharing the digits chosen
/// so far; `remaining` >= 1 of them are still to be taken, largest first. Returns the digit of
/// the remaining-th largest and the count to take within it. When the histogram holds fewer
/// than `remaining` keys every one of them is taken: digit 0, with remaining above its count.
CORESET_HOST_DEVICE inline DigitChoice choose_digit(const unsigned long long* histogram,
                                                    index_t remaining) {
  index_t above = 0;
  for (int digit = kBins - 1; digit > 0; --digit) {
    const auto here = static_cast<index_t>(histogram[digit]);
    if (above + here >= remaining) {
      return {digit, remaining - above};
    }
    above += here;
  }
  // Bucket 0 holds the remaining-th largest, or too few keys were counted: then `remaining`
  // still exceeds bucket 0's count, the next passes fall through again, t ends at 0 and every
  // counted key is taken. (Subtracting bucket 0's own count here would lose its keys.)
  return {0, remaining - above};
}

/// choose_digit() shared by the lanes of a warp: lane L holds the kChunkBins bins below
/// kBins - L * kChunkBins (lane 0 the highest), and is told how many counted keys the bins above
/// its chunk hold (`above`, an exclusive scan of the chunks' sums from the top). Exactly one lane
/// answers, with choose_digit()'s result: the lane whose chunk holds the remaining-th largest, or,
/// when the histogram holds too few keys, the lane holding bin 0 (choose_digit's fall-through).
/// A warp scans 8 bins a lane instead of one thread walking all 256. (remaining <= 0: lane 0
/// answers {255, remaining}, as choose_digit does, and nothing is selected.)
constexpr int kChunkBins = 8;
constexpr int kChunks = kBins / kChunkBins;
CORESET_HOST_DEVICE inline bool choose_digit_in_chunk(const unsigned long long* histogram, int lane,
                                                      index_t above, index_t remaining,
                                                      DigitChoice& choice) {
  if (lane > 0 && above >= remaining) {
    return false;  // an earlier chunk holds it
  }
  const int top = kBins - 1 - lane * kChunkBins;
  for (int digit = top; digit > top - kChunkBins; --digit) {
    const auto here = static_cast<index_t>(histogram[digit]);
    if (digit == 0 || above + here >= remaining) {
      choice = {digit, remaining - above};
      return true;
    }
    above += here;
  }
  return false;
}

/// The state of step 2 between passes: the digits of t chosen so far and the count still to take.
/// Lives in device memory on the GPU, so no pass needs the host.
template <class Key>
struct SelectState {
  Key prefix = 0;         ///< the chosen digits of t, lower digits 0
  index_t remaining = 0;  ///< keys equal to the final t still to take (after the last pass)
  int pass = 0;           ///< the next pass to run

  /// The state before the first pass of a selection of k.
  CORESET_HOST_DEVICE static SelectState fresh(index_t k) {
    SelectState state;
    state.remaining = k;
    return state;
  }

  /// Whether `key` takes part in the histogram of the current pass: positive, and equal to the
  /// prefix in every digit chosen so far.
  CORESET_HOST_DEVICE bool counts(Key key) const {
    if (key == 0) {
      return false;
    }
    const int above = digit_shift<Key>(pass) + kDigitBits;  // first bit of the chosen digits
    return above >= static_cast<int>(sizeof(Key) * 8) || (key >> above) == (prefix >> above);
  }
  CORESET_HOST_DEVICE int digit(Key key) const {
    return static_cast<int>((key >> digit_shift<Key>(pass)) & Key(kBins - 1));
  }
  /// Folds one pass's histogram into the state.
  CORESET_HOST_DEVICE void advance(const unsigned long long* histogram) {
    advance(choose_digit(histogram, remaining));
  }
  /// Folds one pass's digit choice (choose_digit() of its histogram) into the state.
  CORESET_HOST_DEVICE void advance(const DigitChoice& choice) {
    prefix |= static_cast<Key>(choice.digit) << digit_shift<Key>(pass);
    remaining = choice.remaining;
    ++pass;
  }
  CORESET_HOST_DEVICE bool done() const { return pass == pass_count<Key>(); }

  /// After the last pass: a key is taken outright when it beats t (t = 0: when it is positive).
  CORESET_HOST_DEVICE bool above(Key key) const { return key > prefix; }
  /// After the last pass: keys equal to t compete for `remaining` places, lowest index first;
  /// t = 0 means fewer than k positive keys, and zero keys are never taken.
  CORESET_HOST_DEVICE bool tie(Key key) const { return prefix != 0 && key == prefix; }
};

// ---- threshold reuse ----
//
// A solver selects from a gradient that changes little between iterations, so the last
// selection's threshold t nearly tells the next one's. A selection with a hint first gathers, in
// one pass, the candidates: the keys at or above a bound a little below the last t. When at least
// k and at most kCandidateCapacity keys pass, the k best of the candidates, found within one
// block, are exactly the k best of all (see ThresholdHint::fits); otherwise the full passes run.
// Either way the result is the same set; the hint only decides which work finds it.

/// The most candidates one block selects among: 16 keys a thread of 1024, held in shared memory
/// (64 KiB for float, 128 KiB for double). Also the largest dense selection made by one block. A
/// device that gives a block less shared memory gets a smaller capacity, in whole tiles of 4096
/// keys (kernels::prepare_top_k), which its hints carry.
constexpr index_t kCandidateCapacity = 16384;

/// The largest k whose selections use hints by default (CudaBackend::reuse_thresholds). Measured on
/// an H200 (bench/results/gpu_h200_20261127_816332d), A-IHT II per iteration with hints against
/// without, geometric means over n = 1e5 ... 1e7 and S = 100, 500: 0.93 at k = 100, 1.07 at
/// k = 1000, 1.10 at k = 10000. A solver's gradient moves more between iterations, relative to
/// its k-th largest entry, the larger k is: in bench_gpu's solves, bench_hint_replay finds 87-93%
/// of the selections made among the candidates at k = 100, 62-76% at 300 and 9-39% at 1000,
/// and a miss costs the candidates' pass on top of the full passes. 256 lies between the
/// measured budgets; the mechanism serves any k up to 3/4 of the capacity when asked. Under it the
/// projected step's selection (3k entries, hinted only above the capacity) never uses its hint.
constexpr index_t kLargestHintedBudget = 256;

/// Key bits below the exponent (the fraction): a key difference of 1 << fraction_bits is one
/// octave (a factor 2) of the score.
template <class Key>
constexpr int fraction_bits() {
  return sizeof(Key) == 4 ? 23 : 52;
}
/// The bound's distance below t is counted in steps of 1/64 of an octave's keys (the keys of an
/// octave are evenly spaced in value, so a step is 0.8-1.6% of t).
constexpr int kRelaxStepsPerOctaveLog2 = 6;
constexpr int kInitialRelax = 8;     ///< 1/8 of an octave's keys: 6-12.5% below t
constexpr int kMostRelax = 64 * 16;  ///< 16 octaves

/// A selection made among more than kWideHit * k candidates narrows the next bound by a quarter:
/// the one block's work grows with its keys (a hinted selection over n = 1e5 took about 25 us
/// among about 100 keys, 67-70 us among about 10^4, on an H200), and a bound only ever narrowed
/// by too many candidates settles wide. In
/// bench_hint_replay's solves at k = 100 (n = 1e5 and 1e6) the median selection among the
/// candidates had 2402-7742 keys without it and 629-698 with it, for 81-85% of the selections made
/// among the candidates instead of 87-93%: by the H200's costs, about 0.85x and 0.51x of the full
/// passes' time at n = 1e5 and 1e6 instead of 1.46x and 0.58x (a model, not yet measured).
constexpr index_t kWideHit = 4;
/// ... and more than kNarrowHitKeys: below about a thousand keys the block's time is near its
/// floor, and at very small k (k = 1: more than 4 candidates) narrowing would set the bound inside
/// the gaps between the largest values, where hits and misses alternate without ever resting.
constexpr index_t kNarrowHitKeys = 1024;

/// Whether a selection of k among n keys uses its hint: when the keys need more than one block (a
/// selection among at most `capacity` keys is one launch anyway) and k is at most 3/4 of the
/// capacity (nearer, the candidates near t rarely number between k and the capacity).
CORESET_HOST_DEVICE constexpr bool hint_serves(index_t n, index_t k, index_t capacity) {
  return n > capacity && k <= capacity / 4 * 3;
}

/// Misses in a row (selections whose candidates did not fit) before a hint rests, and the longest
/// rest: a vector whose candidates never fit (ties at t by the thousand, a gap in its values)
/// pays the candidates' pass on one selection in 2 to 65 instead of on every one.
constexpr int kMissesBeforeRest = 3;
constexpr int kLongestRest = 64;

/// What a selection leaves for the next one with the same hint, and how the hint has fared. Lives
/// in device memory on the GPU (written by the selection's kernels, read by the next).
template <class Key>
struct ThresholdHint {
  Key bound = ~Key(0);        ///< candidates are the keys >= bound; all ones: no guess (no key
                              ///< is all ones, so none is a candidate)
  int relax = kInitialRelax;  ///< bound = t lowered by relax / 64 of an octave's keys
  int misses = 0;             ///< guesses in a row whose candidates did not fit
  int resting = 0;            ///< selections still to make without a guess
  int rest = 1;               ///< the next rest's length
  index_t capacity = kCandidateCapacity;  ///< the most candidates the device's block holds
  int by_candidates = 0;                  ///< 1: the last selection was made among its candidates
  long long candidate_selections = 0;     ///< selections made among the candidates
  long long full_selections = 0;          ///< selections made by the full passes

  /// Whether this selection has a guess: a bound some keys may reach.
  CORESET_HOST_DEVICE bool guessing() const { return bound != ~Key(0); }

  /// Whether `candidates` keys >= bound let the k best be found among them: at least k of them
  /// (then the k-th largest key of all is >= bound, so every key > t and every tie with t is a
  /// candidate, in index order) and few enough for one block.
  CORESET_HOST_DEVICE bool fits(index_t candidates, index_t k) const {
    return candidates >= k && candidates <= capacity;
  }

  /// After counting a guess's candidates: too few widen the next bound, too many narrow it, as
  /// does a fit among more than kWideHit * k and kNarrowHitKeys; kMissesBeforeRest misses in a
  /// row rest the hint, twice as long as its last rest.
  CORESET_HOST_DEVICE void adapt(index_t candidates, index_t k) {
    if (!guessing()) {
      return;  // there was no guess to judge
    }
    if (fits(candidates, k)) {
      misses = 0;
      rest = 1;
      if (candidates > kWideHit * k && candidates > kNarrowHitKeys && relax > 1) {
        relax = relax * 3 / 4;  // the next selection among fewer keys
      }
      return;
    }
    if (candidates < k) {
      relax = relax * 2 < kMostRelax ? relax * 2 : kMostRelax;
    } else {
      relax = relax / 2 > 1 ? relax / 2 : 1;
    }
    if (++misses == kMissesBeforeRest) {
      misses = 0;
      resting = rest;
      rest = rest * 2 < kLongestRest ? rest * 2 : kLongestRest;
    }
  }

  /// After a selection whose threshold was t: the next bound hangs below it, unless the hint
  /// rests or t is 0 (fewer than k positive keys).
  CORESET_HOST_DEVICE void record(Key t) {
    if (resting > 0) {
      --resting;
      bound = ~Key(0);
    } else {
      bound = t == 0 ? ~Key(0) : bound_below(t, relax);
    }
  }

  /// t lowered by relax / 64 octaves, at least the smallest positive key.
  CORESET_HOST_DEVICE static Key bound_below(Key t, int relax) {
    const Key step = static_cast<Key>(relax) << (fraction_bits<Key>() - kRelaxStepsPerOctaveLog2);
    return t > step ? t - step : Key(1);
  }
};

}  // namespace coreset::kernels::radix
