// The GPU backend's compact sparse lists (kernels/sparse_list_logic.hpp), run on the CPU: the merge
// path against std::merge and std::set_union, then every small sparse step emulated as the device
// runs it (one Entry per slot, then a stable compaction of the kept entries in slot order) and
// compared bit for bit with cpu::CpuBackend, the reference; projected_step's top-k is the radix
// selection (kernels/radix_select_logic.hpp) replayed on the host, its positions merged by
// selected_position. These run in CI, without a GPU.
#include "kernels/sparse_list_logic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "coreset/matrix.hpp"
#include "cpu/cpu_backend.hpp"
#include "kernels/radix_select_logic.hpp"
#include "solvers/sparse_vector.hpp"

namespace coreset::kernels::sparse {
namespace {

using solvers::SparseVector;
using Indices = std::vector<index_t>;

// ---- inputs ----

/// `size` distinct indices out of [offset, offset + n), ascending.
Indices random_support(index_t n, index_t size, std::mt19937_64& generator, index_t offset = 0) {
  Indices all(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    all[static_cast<std::size_t>(i)] = offset + i;
  }
  std::shuffle(all.begin(), all.end(), generator);
  all.resize(static_cast<std::size_t>(std::min(size, n)));
  std::sort(all.begin(), all.end());
  return all;
}

/// A support of a size drawn uniformly from 0 ... n, out of [offset, offset + n).
Indices random_support(index_t n, std::mt19937_64& generator, index_t offset = 0) {
  const index_t size = std::uniform_int_distribution<index_t>(0, n)(generator);
  return random_support(n, size, generator, offset);
}

/// A value that often ties or is exactly 0 (multiples of 1/4 in [-2, 2]), else a Gaussian one.
template <class T>
T random_value(std::mt19937_64& generator) {
  if (std::uniform_int_distribution<int>(0, 1)(generator) == 0) {
    return static_cast<T>(0.25 * std::uniform_int_distribution<int>(-8, 8)(generator));
  }
  return static_cast<T>(std::normal_distribution<double>()(generator));
}

template <class T>
SparseVector<T> random_sparse(const Indices& support, std::mt19937_64& generator) {
  SparseVector<T> v;
  for (const index_t i : support) {
    v.push_back(i, random_value<T>(generator));
  }
  return v;
}

/// Two sparse vectors over n indices that share part of their supports, with equal values at
/// half of the shared indices (so that differences there are exactly 0).
template <class T>
std::array<SparseVector<T>, 2> random_pair(index_t n, std::mt19937_64& generator) {
  const SparseVector<T> a = random_sparse<T>(random_support(n, generator), generator);
  SparseVector<T> b = random_sparse<T>(random_support(n, generator), generator);
  std::size_t p = 0;
  for (std::size_t q = 0; q < b.index.size(); ++q) {
    while (p < a.index.size() && a.index[p] < b.index[q]) {
      ++p;
    }
    if (p < a.index.size() && a.index[p] == b.index[q] && (generator() & 1u) != 0) {
      b.value[q] = a.value[p];
    }
  }
  return {a, b};
}

// ---- the device's two phases on the host ----

/// A list as the device holds it: `count` entries at the front of a larger buffer whose tail is
/// stale. The stale entries here (index -1, value 1) would show in any result read past count.
template <class T>
class PaddedList {
 public:
  explicit PaddedList(const SparseVector<T>& v) : index_(v.index), value_(v.value) {
    index_.resize(v.index.size() + kStale, -1);
    value_.resize(v.value.size() + kStale, T(1));
    count_ = v.size();
  }
  List<T> list() const { return {index_.data(), value_.data(), count_}; }

 private:
  static constexpr std::size_t kStale = 4;
  Indices index_;
  std::vector<T> value_;
  index_t count_ = 0;
};

/// One Entry per slot of the union of a and b, then the kept ones in slot order. Slots past the
/// counts (the device runs up to a bound set on the host) must never be kept.
template <class T, class Step>
SparseVector<T> run_merged(const Step& step, const SparseVector<T>& a, const SparseVector<T>& b) {
  const PaddedList<T> da(a);
  const PaddedList<T> db(b);
  const List<T> la = da.list();
  const List<T> lb = db.list();
  SparseVector<T> out;
  for (index_t p = 0; p < la.count + lb.count + 3; ++p) {
    const Entry<T> entry = merged_entry<T>(step, la, lb, p);
    EXPECT_TRUE(!entry.keep || p < la.count + lb.count) << "slot " << p << " past the end";
    if (entry.keep) {
      out.push_back(entry.index, entry.value);
    }
  }
  return out;
}

/// One Entry per position of `in`, then the kept ones in order; none past the count.
template <class T, class Step>
SparseVector<T> run_mapped(const Step& step, const SparseVector<T>& in) {
  const PaddedList<T> device(in);
  const List<T> list = device.list();
  SparseVector<T> out;
  for (index_t p = 0; p < list.count + 3; ++p) {
    const Entry<T> entry = mapped_entry<T>(step, list, p);
    EXPECT_TRUE(!entry.keep || p < list.count) << "position " << p << " past the end";
    if (entry.keep) {
      out.push_back(entry.index, entry.value);
    }
  }
  return out;
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

/// Same indices, and values with the same bits (so -0.0 differs from 0.0, and NaN matches NaN).
template <class T>
void expect_same(const SparseVector<T>& got, const SparseVector<T>& want, const std::string& what) {
  EXPECT_EQ(got.index, want.index) << what;
  ASSERT_EQ(got.value.size(), want.value.size()) << what;
  for (std::size_t p = 0; p < want.value.size(); ++p) {
    EXPECT_TRUE(same_bits(got.value[p], want.value[p]))
        << what << " at index " << want.index[p] << ": " << got.value[p] << " vs " << want.value[p];
  }
}

// ---- the merge path ----

/// Every slot of the union of a and b against std::merge (a first on equal indices), and the
/// valid slots against std::set_union. The lists sit in buffers padded with `stale` indices, as on
/// the device, so a read past either count changes the answer.
void check_union(const Indices& a, const Indices& b, index_t stale, const std::string& what) {
  const auto na = static_cast<index_t>(a.size());
  const auto nb = static_cast<index_t>(b.size());
  // The merge, each entry tagged with its list and position; std::merge takes a's entry first.
  struct Tagged {
    index_t index;
    bool from_a;
    index_t position;
  };
  std::vector<Tagged> ta;
  std::vector<Tagged> tb;
  for (index_t i = 0; i < na; ++i) {
    ta.push_back({a[static_cast<std::size_t>(i)], true, i});
  }
  for (index_t j = 0; j < nb; ++j) {
    tb.push_back({b[static_cast<std::size_t>(j)], false, j});
  }
  std::vector<Tagged> merged;
  std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(merged),
             [](const Tagged& x, const Tagged& y) { return x.index < y.index; });

  Indices expected_union;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected_union));
  Indices both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  const auto in_b_at = [&](index_t index) {
    const auto it = std::lower_bound(b.begin(), b.end(), index);
    return it != b.end() && *it == index ? static_cast<index_t>(it - b.begin()) : index_t{-1};
  };

  Indices a_buffer = a;
  Indices b_buffer = b;
  a_buffer.resize(a.size() + 4, stale);
  b_buffer.resize(b.size() + 4, stale);
  const index_t* pa = a_buffer.data();
  const index_t* pb = b_buffer.data();
  index_t taken_from_a = 0;
  Indices valid;
  index_t void_slots = 0;
  for (index_t p = 0; p <= na + nb; ++p) {
    ASSERT_EQ(merge_split(pa, na, pb, nb, p), taken_from_a) << what << " split at " << p;
    if (p == na + nb) {
      break;
    }
    const Tagged& m = merged[static_cast<std::size_t>(p)];
    taken_from_a += m.from_a ? 1 : 0;
    const UnionSlot slot = union_slot(pa, na, pb, nb, p);
    ASSERT_EQ(slot.index, m.index) << what << " slot " << p;
    if (m.from_a) {
      ASSERT_TRUE(slot.valid) << what << " slot " << p;
      ASSERT_EQ(slot.in_a, m.position) << what << " slot " << p;
      ASSERT_EQ(slot.in_b, in_b_at(m.index)) << what << " slot " << p;
    } else {
      ASSERT_EQ(slot.in_b, m.position) << what << " slot " << p;
      ASSERT_EQ(slot.in_a, -1) << what << " slot " << p;
      ASSERT_EQ(slot.valid, !std::binary_search(a.begin(), a.end(), m.index))
          << what << " slot " << p;
    }
    if (slot.in_a >= 0) {
      ASSERT_EQ(a[static_cast<std::size_t>(slot.in_a)], slot.index) << what << " slot " << p;
    }
    if (slot.in_b >= 0) {
      ASSERT_EQ(b[static_cast<std::size_t>(slot.in_b)], slot.index) << what << " slot " << p;
    }
    if (slot.valid) {
      valid.push_back(slot.index);
    } else {
      ++void_slots;
    }
  }
  EXPECT_EQ(valid, expected_union) << what;
  EXPECT_EQ(void_slots, static_cast<index_t>(both.size())) << what;
}

Indices shifted(Indices v, index_t by) {
  for (index_t& i : v) {
    i += by;
  }
  return v;
}

TEST(SparseMerge, EdgeCasesMatchStdMergeAndSetUnion) {
  const Indices none;
  const Indices some = {0, 3, 4, 9, 20};
  const Indices evens = {0, 2, 4, 6, 8, 10};
  const Indices odds = {1, 3, 5, 7, 9, 11};
  const index_t big = index_t{1} << 40;  // past 2^31: index_t is 64-bit
  const index_t top = std::numeric_limits<index_t>::max();
  struct Case {
    const char* what;
    Indices a;
    Indices b;
  };
  const Case cases[] = {
      {"both empty", none, none},
      {"empty a", none, some},
      {"empty b", some, none},
      {"identical", some, some},
      {"interleaved", evens, odds},
      {"interleaved, b first", odds, evens},
      {"a before b", {1, 2, 3}, {10, 11}},
      {"b before a", {10, 11}, {1, 2, 3}},
      {"a prefix of b", {0, 3, 4}, some},
      {"b prefix of a", some, {0, 3, 4}},
      {"a suffix of b", {9, 20}, some},
      {"b suffix of a", some, {4, 9, 20}},
      {"single equal", {7}, {7}},
      {"single a below", {6}, {7}},
      {"single a above", {8}, {7}},
      {"single a, empty b", {5}, none},
      {"empty a, single b", none, {5}},
      {"one inside many", {4}, some},
      {"many around one", some, {5}},
      {"large", shifted(some, big), shifted(evens, big)},
      {"largest indices", {top - 5, top - 1, top}, {top - 3, top - 1, top}},
      {"straddling 2^31",
       {(index_t{1} << 31) - 1, index_t{1} << 31},
       {index_t{1} << 31, (index_t{1} << 31) + 1}},
  };
  for (const Case& c : cases) {
    for (const index_t stale : {index_t{-1}, top}) {
      check_union(c.a, c.b, stale, c.what);
    }
  }
}

TEST(SparseMerge, RandomListsMatchStdMergeAndSetUnion) {
  std::mt19937_64 generator(20261201);
  for (const index_t n : {1, 2, 5, 50, 1000}) {
    for (int trial = 0; trial < 40; ++trial) {
      std::uniform_int_distribution<index_t> size(0, std::min<index_t>(n, 120));
      const index_t offset = trial % 4 == 3 ? (index_t{3} << 33) : 0;
      const Indices a = random_support(n, size(generator), generator, offset);
      const Indices b = random_support(n, size(generator), generator, offset);
      for (const index_t stale : {index_t{-1}, std::numeric_limits<index_t>::max()}) {
        check_union(a, b, stale, "n " + std::to_string(n) + " trial " + std::to_string(trial));
      }
    }
  }
}

// ---- the steps against the CPU backend ----

template <class T>
class SparseSteps : public ::testing::Test {
 protected:
  // These ops never read Phi.
  Matrix<T> phi_{2, 3};
  cpu::CpuBackend<T> cpu_{phi_.view(), 1};
  std::mt19937_64 generator_{42};
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseSteps, Precisions);

constexpr index_t kSizes[] = {1, 7, 50, 1000};

TYPED_TEST(SparseSteps, ExtrapolateMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 6; ++trial) {
      const auto [a, b] = random_pair<T>(n, this->generator_);
      for (const double tau : {0.0, 0.5, 1.7, -0.3, -1.0}) {
        SparseVector<T> want;
        this->cpu_.extrapolate(a, b, tau, want);
        expect_same(run_merged(Extrapolate<T>{&tau}, a, b), want,
                    "n " + std::to_string(n) + " tau " + std::to_string(tau));
      }
    }
  }
}

TYPED_TEST(SparseSteps, SubtractMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 10; ++trial) {
      const auto [a, b] = random_pair<T>(n, this->generator_);
      SparseVector<T> want;
      this->cpu_.subtract(a, b, want);
      expect_same(run_merged(Subtract<T>{}, a, b), want, "n " + std::to_string(n));
      // a - a is empty.
      EXPECT_TRUE(run_merged(Subtract<T>{}, a, a).index.empty());
    }
  }
}

TYPED_TEST(SparseSteps, ConvexStepMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 6; ++trial) {
      const SparseVector<T> w =
          random_sparse<T>(random_support(n, this->generator_), this->generator_);
      // j on supp(w) (when it has one) and j off it (when there is room).
      Indices vertices;
      if (!w.index.empty()) {
        vertices.push_back(w.index[this->generator_() % w.index.size()]);
      }
      for (index_t j = 0; j < n; ++j) {
        if (!std::binary_search(w.index.begin(), w.index.end(), j)) {
          vertices.push_back(j);
          break;
        }
      }
      for (const index_t j : vertices) {
        SparseVector<T> unit;
        unit.push_back(j, T(1));
        for (const double gamma : {0.0, 0.3, 1.0}) {
          for (const double vertex : {2.5, -0.75, 0.0}) {
            SparseVector<T> want;
            this->cpu_.convex_step(w, gamma, j, vertex, want);
            expect_same(run_merged(ConvexStep<T>{gamma, vertex}, w, unit), want,
                        "n " + std::to_string(n) + " j " + std::to_string(j) + " gamma " +
                            std::to_string(gamma) + " vertex " + std::to_string(vertex));
          }
        }
      }
    }
  }
}

TYPED_TEST(SparseSteps, RestrictToUnionKeepsZeros) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 6; ++trial) {
      const auto [a, b] = random_pair<T>(n, this->generator_);
      // About a third of v is exactly zero: those entries stay in the support.
      std::vector<T> v(static_cast<std::size_t>(n));
      for (T& x : v) {
        x = this->generator_() % 3 == 0 ? T(0) : random_value<T>(this->generator_);
      }
      SparseVector<T> want;
      this->cpu_.restrict_to_union(v, a, b, want);
      const SparseVector<T> got = run_merged(GatherDense<T>{v.data()}, a, b);
      expect_same(got, want, "n " + std::to_string(n));
      Indices expected_support;
      std::set_union(a.index.begin(), a.index.end(), b.index.begin(), b.index.end(),
                     std::back_inserter(expected_support));
      EXPECT_EQ(got.index, expected_support);
    }
  }
}

TYPED_TEST(SparseSteps, ClampedStepMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 6; ++trial) {
      const Indices support = random_support(n, this->generator_);
      const SparseVector<T> x = random_sparse<T>(support, this->generator_);
      const SparseVector<T> g = random_sparse<T>(support, this->generator_);
      const PaddedList<T> g_device(g);
      for (const double step : {0.0, 0.5, 3.0}) {
        SparseVector<T> want;
        this->cpu_.clamped_step(x, step, g, want);
        const SparseVector<T> got = run_mapped(ClampedStep<T>{g_device.list().value, &step}, x);
        expect_same(got, want, "n " + std::to_string(n) + " step " + std::to_string(step));
        for (const T value : got.value) {
          EXPECT_GT(value, T(0));
        }
      }
    }
  }
}

TYPED_TEST(SparseSteps, ScaleMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 6; ++trial) {
      const SparseVector<T> in =
          random_sparse<T>(random_support(n, this->generator_), this->generator_);
      // 1e-300 rounds every float entry (and some double ones) to zero.
      for (const double c : {1.0, -2.5, 0.1, 1e-300, 0.0}) {
        SparseVector<T> want;
        this->cpu_.scale(c, in, want);
        const SparseVector<T> got = run_mapped(Scale<T>{c}, in);
        expect_same(got, want, "n " + std::to_string(n) + " c " + std::to_string(c));
        if (c == 0.0) {
          EXPECT_TRUE(got.index.empty());
        }
      }
    }
  }
}

// The CPU sums (x - y)^2 in double in merge order, and the void slots add exactly 0.0 to a sum
// that is never -0.0, so the host sum over the slots in slot order has the same bits. (The
// device's block reduction adds the same terms in another order, so it may differ in the last
// bits: this checks the terms, not that order.)
TYPED_TEST(SparseSteps, SquaredDistanceSummedInSlotOrderMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 10; ++trial) {
      const auto [a, b] = random_pair<T>(n, this->generator_);
      const PaddedList<T> da(a);
      const PaddedList<T> db(b);
      const List<T> la = da.list();
      const List<T> lb = db.list();
      double sum = 0.0;
      for (index_t p = 0; p < la.count + lb.count + 3; ++p) {
        sum += squared_difference_at(la, lb, p);
      }
      const double want = this->cpu_.squared_distance(a, b);
      EXPECT_TRUE(same_bits(sum, want)) << "n " << n << ": " << sum << " vs " << want;
      double self = 0.0;
      for (index_t p = 0; p < 2 * la.count; ++p) {
        self += squared_difference_at(la, la, p);
      }
      EXPECT_EQ(self, 0.0);
    }
  }
}

// ---- projected_step: candidates, the radix top-k, the positions merged ----

/// The radix selection of the candidates' positions under largest_positive, as the device runs it
/// (the state machine of kernels/radix_select_logic.hpp, one histogram per pass), ending with the
/// positions above the threshold and the ties taken merged by selected_position.
template <class T>
Indices device_top_k(const std::vector<T>& values, index_t k) {
  using Key = radix::key_t<T>;
  if (k <= 0) {
    return {};
  }
  std::vector<Key> keys(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    keys[i] = radix::selection_key(values[i], false);
  }
  auto state = radix::SelectState<Key>::fresh(k);
  while (!state.done()) {
    std::array<unsigned long long, radix::kBins> histogram{};
    for (const Key key : keys) {
      if (state.counts(key)) {
        ++histogram[static_cast<std::size_t>(state.digit(key))];
      }
    }
    state.advance(histogram.data());
  }
  Indices above;
  Indices ties;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (state.above(keys[i])) {
      above.push_back(static_cast<index_t>(i));
    } else if (state.tie(keys[i])) {
      ties.push_back(static_cast<index_t>(i));
    }
  }
  const index_t ties_taken = std::min(state.remaining, static_cast<index_t>(ties.size()));
  const auto above_count = static_cast<index_t>(above.size());
  Indices selected;
  for (index_t p = 0; p < above_count + ties_taken; ++p) {
    selected.push_back(selected_position(above.data(), above_count, ties.data(), ties_taken, p));
  }
  return selected;
}

TYPED_TEST(SparseSteps, ProjectedStepMatchesTheCpu) {
  using T = TypeParam;
  for (const index_t n : kSizes) {
    for (int trial = 0; trial < 8; ++trial) {
      // supp(z) and supp(g outside z) split a random support at random.
      const Indices support = random_support(n, this->generator_);
      Indices on_z;
      Indices outside;
      for (const index_t i : support) {
        (this->generator_() % 2 == 0 ? on_z : outside).push_back(i);
      }
      const SparseVector<T> z = random_sparse<T>(on_z, this->generator_);
      const SparseVector<T> g_on_z = random_sparse<T>(on_z, this->generator_);
      const PaddedList<T> g_device(g_on_z);
      const SparseVector<T> g_outside = random_sparse<T>(outside, this->generator_);
      const auto count = static_cast<index_t>(support.size());
      // Multiples of 1/4 times 0.5 or 2 stay exact, so many candidates tie.
      for (const double step : {0.0, 0.5, 2.0, 0.3}) {
        // The candidates: every slot is valid (disjoint supports) and kept.
        const SparseVector<T> candidates =
            run_merged(StepCandidates<T>{g_device.list().value, &step}, z, g_outside);
        ASSERT_EQ(candidates.index, support);
        for (const index_t k : {index_t{0}, index_t{1}, index_t{3}, count / 2, count, count + 5}) {
          SparseVector<T> got;
          for (const index_t position : device_top_k(candidates.value, k)) {
            got.push_back(candidates.index[static_cast<std::size_t>(position)],
                          candidates.value[static_cast<std::size_t>(position)]);
          }
          SparseVector<T> want;
          this->cpu_.projected_step(z, g_on_z, g_outside, step, k, want);
          expect_same(got, want,
                      "n " + std::to_string(n) + " step " + std::to_string(step) + " k " +
                          std::to_string(k));
        }
      }
    }
  }
}

TYPED_TEST(SparseSteps, ProjectedStepTiesGoToTheLowerIndex) {
  using T = TypeParam;
  // Every candidate is 1 (z + 0.5 g on z, 0.5 g outside), but for a 2 at index 40 and a -1.
  SparseVector<T> z;
  SparseVector<T> g_on_z;
  SparseVector<T> g_outside;
  for (const index_t i : {3, 10, 40, 41}) {
    z.push_back(i, T(0.5));
    g_on_z.push_back(i, i == 40 ? T(3) : T(1));
  }
  for (const index_t i : {0, 5, 20, 30}) {
    g_outside.push_back(i, i == 5 ? T(-2) : T(2));
  }
  const double step = 0.5;
  const PaddedList<T> g_device(g_on_z);
  const SparseVector<T> candidates =
      run_merged(StepCandidates<T>{g_device.list().value, &step}, z, g_outside);
  const auto top = [&](index_t k) {
    SparseVector<T> x;
    for (const index_t position : device_top_k(candidates.value, k)) {
      x.push_back(candidates.index[static_cast<std::size_t>(position)],
                  candidates.value[static_cast<std::size_t>(position)]);
    }
    return x;
  };
  EXPECT_EQ(top(1).index, (Indices{40}));
  EXPECT_EQ(top(3).index, (Indices{0, 3, 40}));
  EXPECT_EQ(top(7).index, (Indices{0, 3, 10, 20, 30, 40, 41}));
  EXPECT_EQ(top(100).index, (Indices{0, 3, 10, 20, 30, 40, 41}));
  for (const index_t k : {1, 3, 7, 100}) {
    SparseVector<T> want;
    this->cpu_.projected_step(z, g_on_z, g_outside, step, k, want);
    expect_same(top(k), want, "k " + std::to_string(k));
  }
}

// ---- selected_position ----

TEST(SparseSelectedPosition, MergesTheAboveAndTheTiesTaken) {
  std::mt19937_64 generator(7);
  for (const index_t n : {1, 2, 10, 300}) {
    for (int trial = 0; trial < 50; ++trial) {
      const index_t offset = trial % 5 == 4 ? (index_t{1} << 35) : 0;
      const Indices positions = random_support(n, generator, offset);
      Indices above;
      Indices ties;
      for (const index_t i : positions) {
        (generator() % 3 == 0 ? above : ties).push_back(i);
      }
      const auto above_count = static_cast<index_t>(above.size());
      const auto tie_count = static_cast<index_t>(ties.size());
      for (const index_t taken : {index_t{0}, tie_count / 2, tie_count}) {
        Indices expected;
        std::merge(above.begin(), above.end(), ties.begin(), ties.begin() + taken,
                   std::back_inserter(expected));
        // The ties past `taken` stay in the buffer, and stale entries follow the above ones.
        Indices above_buffer = above;
        above_buffer.resize(above.size() + 4, -1);
        Indices got;
        for (index_t p = 0; p < above_count + taken; ++p) {
          got.push_back(selected_position(above_buffer.data(), above_count, ties.data(), taken, p));
        }
        EXPECT_EQ(got, expected) << "n " << n << " trial " << trial << " ties taken " << taken;
      }
    }
  }
}

}  // namespace
}  // namespace coreset::kernels::sparse
