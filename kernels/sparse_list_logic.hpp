// The pure logic of the GPU backend's sparse vectors (cuda/cuda_backend.hpp), host-and-device so
// that it is unit-tested on the CPU (tests/kernels/test_sparse_list_logic.cpp) exactly as the
// device runs it.
//
// A sparse vector is a compact list: `count` strictly ascending indices and one value per index
// (value[p] belongs to index[p]), so every step costs O(|support|), never O(n).
//
// Two supports are united by a merge path: the p-th entry of the merge of lists a and b (a's
// entry first on equal indices) is found by a binary search over the diagonal p, independently
// for every p, so one thread per output slot merges the lists in O(log k) each. On equal indices
// the a slot carries both values and the b slot just after it is void. A slot then gets its value
// from a step's formula (solvers/sparse_steps.hpp) and a flag saying whether it stays, and a
// stream compaction of the flagged slots (CUB on the device, a loop in the tests) gives the result
// list, still ascending.
#pragma once

#include "coreset/types.hpp"
#include "solvers/sparse_steps.hpp"
#include "support/host_device.hpp"

namespace coreset::kernels::sparse {

/// How many of a's entries lie among the first p entries of the merge of the ascending lists a
/// (na entries) and b (nb), a's entry first on equal indices. 0 <= p <= na + nb.
CORESET_HOST_DEVICE inline index_t merge_split(const index_t* a, index_t na, const index_t* b,
                                               index_t nb, index_t p) {
  index_t low = p > nb ? p - nb : 0;
  index_t high = p < na ? p : na;
  // The answer is the least i at which a[i] no longer precedes b[p - i - 1].
  while (low < high) {
    const index_t i = low + (high - low) / 2;
    if (a[i] <= b[p - i - 1]) {
      low = i + 1;
    } else {
      high = i;
    }
  }
  return low;
}

/// One slot of the union of two supports: the index, where it sits in a and in b (-1: absent),
/// and whether the slot holds an entry at all (the b slot of an index both hold is void).
struct UnionSlot {
  index_t index = 0;
  index_t in_a = -1;
  index_t in_b = -1;
  bool valid = false;
};

/// The p-th slot of the merge of a and b, 0 <= p < na + nb.
CORESET_HOST_DEVICE inline UnionSlot union_slot(const index_t* a, index_t na, const index_t* b,
                                                index_t nb, index_t p) {
  const index_t i = merge_split(a, na, b, nb, p);
  const index_t j = p - i;
  UnionSlot slot;
  if (i < na && (j >= nb || a[i] <= b[j])) {
    slot.index = a[i];
    slot.in_a = i;
    slot.in_b = j < nb && b[j] == a[i] ? j : -1;
    slot.valid = true;
  } else {
    slot.index = b[j];
    slot.in_b = j;
    slot.valid = !(i > 0 && a[i - 1] == b[j]);
  }
  return slot;
}

/// A list as a kernel reads it, its count already read from device memory.
template <class T>
struct List {
  const index_t* index = nullptr;
  const T* value = nullptr;
  index_t count = 0;

  CORESET_HOST_DEVICE T at(index_t position) const {
    return position >= 0 ? value[position] : T(0);
  }
};

/// What a slot of a merged or mapped list holds before the compaction.
template <class T>
struct Entry {
  index_t index = 0;
  T value = T(0);
  bool keep = false;
};

// ---- the steps over the union of two supports: value and flag of one slot ----

/// extrapolate: a + tau (a - b), zeros leave.
template <class T>
struct Extrapolate {
  const double* tau;
  CORESET_HOST_DEVICE Entry<T> operator()(const UnionSlot& s, List<T> a, List<T> b) const {
    const T value = solvers::extrapolated(a.at(s.in_a), b.at(s.in_b), *tau);
    return {s.index, value, value != T(0)};
  }
};

/// subtract: a - b, zeros leave.
template <class T>
struct Subtract {
  CORESET_HOST_DEVICE Entry<T> operator()(const UnionSlot& s, List<T> a, List<T> b) const {
    const T value = solvers::difference(a.at(s.in_a), b.at(s.in_b));
    return {s.index, value, value != T(0)};
  }
};

/// convex_step, with b the one-entry list of the vertex j: zeros leave.
template <class T>
struct ConvexStep {
  double gamma;
  double vertex;
  CORESET_HOST_DEVICE Entry<T> operator()(const UnionSlot& s, List<T> a, List<T>) const {
    const T value = solvers::convex_combination(a.at(s.in_a), gamma, s.in_b >= 0, vertex);
    return {s.index, value, value != T(0)};
  }
};

/// restrict_to_union: the dense vector's value at every index of the union, zeros included.
template <class T>
struct GatherDense {
  const T* dense;
  CORESET_HOST_DEVICE Entry<T> operator()(const UnionSlot& s, List<T>, List<T>) const {
    return {s.index, dense[s.index], true};
  }
};

/// projected_step's candidates, a = z (with g on z at the same positions) and b = g outside z
/// (disjoint supports): z + step g on z, step g outside.
template <class T>
struct StepCandidates {
  const T* g_on_z;
  const double* step;
  CORESET_HOST_DEVICE Entry<T> operator()(const UnionSlot& s, List<T> z, List<T> outside) const {
    const T value = s.in_a >= 0 ? solvers::step_from(z.value[s.in_a], *step, g_on_z[s.in_a])
                                : solvers::step_outside(*step, outside.value[s.in_b]);
    return {s.index, value, true};
  }
};

/// The p-th slot of the union of a and b under a step: a void slot, or one past na + nb, is
/// never kept.
template <class T, class Step>
CORESET_HOST_DEVICE inline Entry<T> merged_entry(const Step& step, List<T> a, List<T> b,
                                                 index_t p) {
  if (p >= a.count + b.count) {
    return {};
  }
  const UnionSlot slot = union_slot(a.index, a.count, b.index, b.count, p);
  if (!slot.valid) {
    return {};
  }
  return step(slot, a, b);
}

/// The squared difference of the p-th slot of the union (0 for a void slot): one term of
/// squared_distance.
template <class T>
CORESET_HOST_DEVICE inline double squared_difference_at(List<T> a, List<T> b, index_t p) {
  if (p >= a.count + b.count) {
    return 0.0;
  }
  const UnionSlot slot = union_slot(a.index, a.count, b.index, b.count, p);
  if (!slot.valid) {
    return 0.0;
  }
  const double d = static_cast<double>(a.at(slot.in_a)) - static_cast<double>(b.at(slot.in_b));
  return d * d;
}

// ---- the steps over one support: value and flag of entry p ----

/// clamped_step: x + step g on supp(x) (g shares it), kept when > 0.
template <class T>
struct ClampedStep {
  const T* g;
  const double* step;
  CORESET_HOST_DEVICE Entry<T> operator()(List<T> x, index_t p) const {
    const T value = solvers::step_from(x.value[p], *step, g[p]);
    return {x.index[p], value, value > T(0)};
  }
};

/// scale: c in_i, zeros leave.
template <class T>
struct Scale {
  double c;
  CORESET_HOST_DEVICE Entry<T> operator()(List<T> in, index_t p) const {
    const T value = solvers::scaled(c, in.value[p]);
    return {in.index[p], value, value != T(0)};
  }
};

/// Entry p of a list under a one-list step; none past its count.
template <class T, class Step>
CORESET_HOST_DEVICE inline Entry<T> mapped_entry(const Step& step, List<T> in, index_t p) {
  return p < in.count ? step(in, p) : Entry<T>{};
}

// ---- the top-k's last step ----

/// The p-th position of a top-k selection, 0 <= p < above_count + ties_taken: the positions of
/// the keys above the threshold and the first `ties_taken` positions holding the threshold, both
/// ascending and disjoint, merged into one ascending list.
CORESET_HOST_DEVICE inline index_t selected_position(const index_t* above, index_t above_count,
                                                     const index_t* ties, index_t ties_taken,
                                                     index_t p) {
  return union_slot(above, above_count, ties, ties_taken, p).index;
}

}  // namespace coreset::kernels::sparse
