// Exact summation: a sum of doubles held without rounding (a "superaccumulator"), rounded once
// at the end. The sum does not depend on the order of its terms, so a reduction split over
// threads or MPI ranks in any way gives the bits one loop would; it is also the correctly
// rounded sum, more accurate than any order of double additions.
//
// Representation: every finite double is an integer multiple of 2^-1074 (the smallest
// subnormal), so a sum of them is too. It is held as kLimbs signed 64-bit limbs of 32 bits each,
// limb i weighing 2^(32 i - 1074); a term touches at most three limbs (its 53-bit significand
// shifted into place, adding less than 2^33 to each), and the spare bits of each limb absorb 2^29
// terms before the carries
// must be propagated (normalize()). Non-finite terms are counted apart (+inf, -inf, NaN), so
// that they give what a plain sum would (NaN for +inf + -inf).
//
// Partial sums combine exactly by adding their slots() as integers (merge(), or an MPI sum over
// ranks of int64: the slots of normalized partials never overflow for fewer than 2^30 partials).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace coreset::support {

__extension__ typedef unsigned __int128 uint128;  // GCC and Clang; __extension__: no -Wpedantic

class ExactSum {
 public:
  static constexpr int kLimbBits = 32;
  /// Limb 0 weighs 2^-1074; limb 67 reaches 2^1070, above any sum of doubles (< 2^1024 times
  /// 2^45 terms).
  static constexpr int kLimbs = 68;
  /// The limbs, then the counts of +inf, -inf and NaN terms: what a reduction over ranks adds.
  static constexpr int kSlots = kLimbs + 3;

  void add(double x) noexcept {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const auto biased = static_cast<unsigned>((bits >> 52) & 0x7ff);
    std::uint64_t significand = bits & ((std::uint64_t{1} << 52) - 1);
    if (__builtin_expect(biased == 0x7ff, 0)) {  // infinity or NaN
      ++slot_[significand != 0 ? kNan : ((bits >> 63) != 0 ? kMinusInf : kPlusInf)];
      return;
    }
    // The bit, counted from 2^-1074, of the significand's lowest bit.
    unsigned position = 0;
    if (__builtin_expect(biased != 0, 1)) {
      significand |= std::uint64_t{1} << 52;
      position = biased - 1;
    }
    // The 53-bit significand shifted into place spans three 32-bit digits; shifting its two
    // halves apart keeps every step in 64 bits. A zero (+0 or -0) adds zero digits.
    const unsigned shift = position % kLimbBits;
    const std::uint64_t low = (significand & 0xffffffffu) << shift;  // < 2^63
    const std::uint64_t high = (significand >> kLimbBits) << shift;  // < 2^52
    const std::int64_t sign = (bits >> 63) != 0 ? -1 : 1;
    std::int64_t* limb = slot_.data() + position / kLimbBits;
    limb[0] += sign * static_cast<std::int64_t>(low & 0xffffffffu);
    limb[1] += sign * static_cast<std::int64_t>((low >> kLimbBits) + (high & 0xffffffffu));
    limb[2] += sign * static_cast<std::int64_t>(high >> kLimbBits);
    if (__builtin_expect(++pending_ == kTermsBeforeCarry, 0)) {
      normalize();
    }
  }

  /// this += other, exactly.
  void merge(const ExactSum& other) noexcept {
    ExactSum normalized = other;
    normalized.normalize();
    normalize();
    for (int i = 0; i < kSlots; ++i) {
      slot_[i] += normalized.slot_[i];
    }
    pending_ = 1;  // limbs now hold up to two digits' worth: carry before 2^29 more terms
  }

  /// Propagates the carries: limbs 0 ... kLimbs - 2 end in [0, 2^32), the top one holds the
  /// sign. The value is unchanged. A sum of doubles of similar size touches a few of the 68
  /// limbs, so the carries are taken from the lowest nonzero limb up to where nothing is carried
  /// above the highest one: the zeros below and above are already in their normalized form.
  void normalize() noexcept {
    int i = 0;
    while (i + 1 < kLimbs && slot_[i] == 0) {
      ++i;
    }
    int highest = kLimbs - 1;
    while (highest > i && slot_[highest] == 0) {
      --highest;
    }
    for (; i + 1 < kLimbs; ++i) {
      const std::int64_t carry = slot_[i] >> kLimbBits;  // floor division: arithmetic shift
      slot_[i] -= carry * (std::int64_t{1} << kLimbBits);
      slot_[i + 1] += carry;
      if (i >= highest && (carry == 0 || carry == -1)) {
        // Above every nonzero limb, the zeros take what is carried into them: nothing leaves
        // them as they are; a borrow of one ripples up, each becoming 2^32 - 1, and the top limb
        // -1 (the sign), as the loop would leave them. Written at once.
        if (carry == -1) {
          for (int j = i + 1; j + 1 < kLimbs; ++j) {
            slot_[j] = (std::int64_t{1} << kLimbBits) - 1;
          }
          slot_[kLimbs - 1] = -1;
        }
        break;
      }
    }
    pending_ = 0;
  }

  /// The sum rounded to the nearest double (ties to even; a result in the subnormal range may
  /// be rounded twice). +-infinity when it overflows; what a plain sum gives for non-finite terms.
  double value() const noexcept {
    if (slot_[kNan] != 0 || (slot_[kPlusInf] != 0 && slot_[kMinusInf] != 0)) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (slot_[kPlusInf] != 0 || slot_[kMinusInf] != 0) {
      return slot_[kPlusInf] != 0 ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity();
    }
    ExactSum magnitude = *this;
    magnitude.normalize();
    const bool negative = magnitude.slot_[kLimbs - 1] < 0;
    if (negative) {
      // The magnitude from the limbs as they were: their normalized form of a negative sum has
      // every limb above the digits set, and carrying its negation would walk them all.
      for (int i = 0; i < kLimbs; ++i) {
        magnitude.slot_[i] = -slot_[i];
      }
      magnitude.normalize();
    }
    const auto& limb = magnitude.slot_;
    int top = kLimbs - 1;
    while (top >= 0 && limb[top] == 0) {
      --top;
    }
    if (top < 0) {
      return 0.0;
    }
    // The three highest limbs as one integer of at most 96 bits; the rest only as a sticky bit.
    const auto at = [&](int i) { return i >= 0 ? static_cast<std::uint64_t>(limb[i]) : 0u; };
    uint128 head = (static_cast<uint128>(at(top)) << 64) |
                   (static_cast<uint128>(at(top - 1)) << 32) | at(top - 2);
    bool sticky = false;
    for (int i = 0; i < top - 2 && !sticky; ++i) {
      sticky = limb[i] != 0;
    }
    // head's bit length (head != 0: limb[top] is not).
    const auto head_high = static_cast<std::uint64_t>(head >> 64);
    const int bits = head_high != 0 ? 128 - __builtin_clzll(head_high)
                                    : 64 - __builtin_clzll(static_cast<std::uint64_t>(head));
    int dropped = 0;
    if (bits > 64) {  // keep 64 bits: 11 below the rounding position, room for the sticky bit
      dropped = bits - 64;
      sticky = sticky || (head & ((static_cast<uint128>(1) << dropped) - 1)) != 0;
      head >>= dropped;
    }
    const std::uint64_t kept = static_cast<std::uint64_t>(head) | (sticky ? 1u : 0u);
    const double rounded = static_cast<double>(kept);  // round to nearest even
    const double result = std::ldexp(rounded, kLimbBits * (top - 2) + dropped - 1074);
    return negative ? -result : result;
  }

  /// The partial sum as integers, normalized: adding two partials' slots element by element
  /// (e.g. an MPI sum over ranks) gives the slots of their sum.
  const std::array<std::int64_t, kSlots>& slots() noexcept {
    normalize();
    return slot_;
  }
  /// A partial sum from slots() added over ranks.
  static ExactSum from_slots(const std::int64_t* slots) noexcept {
    ExactSum sum;
    std::memcpy(sum.slot_.data(), slots, sizeof(std::int64_t) * kSlots);
    sum.pending_ = kTermsBeforeCarry - 1;  // carry before the next term
    return sum;
  }

 private:
  static constexpr int kPlusInf = kLimbs;
  static constexpr int kMinusInf = kLimbs + 1;
  static constexpr int kNan = kLimbs + 2;
  static constexpr int kTermsBeforeCarry = 1 << 29;

  std::array<std::int64_t, kSlots> slot_{};
  int pending_ = 0;
};

}  // namespace coreset::support
