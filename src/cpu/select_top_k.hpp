// Top-k selection on the host in O(n): the thresholding step of every IHT iteration.
#pragma once

#include <vector>

#include "coreset/types.hpp"
#include "solvers/selection_rule.hpp"

namespace coreset::cpu {

/// Writes to `out`, in ascending order, the indices of the (at most) k best entries of
/// values[0..n) under `rule`, skipping the indices listed in `exclude` (ascending, may be empty).
/// Best means larger key, then smaller index, so the result is deterministic. Entries whose key
/// is not strictly positive (zeros, -0.0, NaN, and negatives under largest_positive) are never
/// selected, so fewer than k indices come back when fewer qualify.
///
/// Cost: one read of `values` split over `threads` threads; each thread keeps a buffer of 2k
/// candidates above a rising threshold and compacts it with nth_element when full, so the work
/// is O(n + k) per thread, never a sort of n.
template <class T>
void select_top_k(const T* values, index_t n, index_t k, solvers::SelectionRule rule,
                  const std::vector<index_t>& exclude, std::vector<index_t>& out, int threads);

}  // namespace coreset::cpu
