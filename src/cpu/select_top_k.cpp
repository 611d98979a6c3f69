#include "cpu/select_top_k.hpp"

#include <algorithm>
#include <cmath>

#include <omp.h>

namespace coreset::cpu {
namespace {

template <class T>
struct Candidate {
  T key;
  index_t index;
};

template <class T>
bool better(const Candidate<T>& a, const Candidate<T>& b) {
  return a.key > b.key || (a.key == b.key && a.index < b.index);
}

// Keeps the best k of `buffer` (unordered) and returns the worst key kept.
template <class T>
T compact(std::vector<Candidate<T>>& buffer, index_t k) {
  std::nth_element(buffer.begin(), buffer.begin() + (k - 1), buffer.end(), better<T>);
  buffer.resize(static_cast<std::size_t>(k));
  return buffer.back().key;
}

// Scans values[lo, hi) in index order. Because indices only grow, a new entry beats the current
// k-th best exactly when its key is strictly larger, which makes the threshold test one compare.
template <class T>
void scan(const T* values, index_t lo, index_t hi, index_t k, solvers::SelectionRule rule,
          const std::vector<index_t>& exclude, std::vector<Candidate<T>>& buffer) {
  const std::size_t capacity = static_cast<std::size_t>(2 * k);
  buffer.clear();
  buffer.reserve(static_cast<std::size_t>(std::min(2 * k, hi - lo)));
  T threshold = T(0);  // a key must exceed it: zero, -0.0 and NaN never do
  auto next_excluded = std::lower_bound(exclude.begin(), exclude.end(), lo);
  const bool by_magnitude = rule == solvers::SelectionRule::largest_magnitude;
  for (index_t i = lo; i < hi; ++i) {
    const T key = by_magnitude ? std::abs(values[i]) : values[i];
    if (!(key > threshold)) {
      continue;
    }
    while (next_excluded != exclude.end() && *next_excluded < i) {
      ++next_excluded;
    }
    if (next_excluded != exclude.end() && *next_excluded == i) {
      continue;
    }
    buffer.push_back({key, i});
    if (buffer.size() == capacity) {
      threshold = compact(buffer, k);
    }
  }
}

// Below this size one thread is faster than waking a team.
constexpr index_t kParallelThreshold = index_t{1} << 16;

}  // namespace

template <class T>
void select_top_k(const T* values, index_t n, index_t k, solvers::SelectionRule rule,
                  const std::vector<index_t>& exclude, std::vector<index_t>& out, int threads) {
  out.clear();
  if (k <= 0 || n <= 0) {
    return;
  }
  const int parts = n >= kParallelThreshold ? std::max(1, threads) : 1;
  std::vector<std::vector<Candidate<T>>> buffers(static_cast<std::size_t>(parts));
#pragma omp parallel for num_threads(parts) schedule(static, 1) if (parts > 1)
  for (int p = 0; p < parts; ++p) {
    const index_t lo = n * p / parts;
    const index_t hi = n * (p + 1) / parts;
    scan(values, lo, hi, k, rule, exclude, buffers[static_cast<std::size_t>(p)]);
  }
  std::vector<Candidate<T>>& merged = buffers.front();
  for (std::size_t p = 1; p < buffers.size(); ++p) {
    merged.insert(merged.end(), buffers[p].begin(), buffers[p].end());
  }
  if (static_cast<index_t>(merged.size()) > k) {
    compact(merged, k);
  }
  out.reserve(merged.size());
  for (const auto& candidate : merged) {
    out.push_back(candidate.index);
  }
  std::sort(out.begin(), out.end());
}

template void select_top_k<float>(const float*, index_t, index_t, solvers::SelectionRule,
                                  const std::vector<index_t>&, std::vector<index_t>&, int);
template void select_top_k<double>(const double*, index_t, index_t, solvers::SelectionRule,
                                   const std::vector<index_t>&, std::vector<index_t>&, int);

}  // namespace coreset::cpu
