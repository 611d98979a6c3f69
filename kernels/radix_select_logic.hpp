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
    const DigitChoice choice = choose_digit(histogram, remaining);
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

}  // namespace coreset::kernels::radix
