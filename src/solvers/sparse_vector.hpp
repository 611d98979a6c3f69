// A sparse n-vector held on the host: indices strictly ascending, one value per index.
#pragma once

#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "coreset/types.hpp"

namespace coreset::solvers {

/// Throws InvalidArgument unless `index` is strictly ascending within [0, n) and has `values`
/// entries: the support that a backend's from_host takes. An index past Phi's n columns would
/// have its products read past Phi's end (on the GPU, silently: a test once compared two such
/// reads' NaNs).
inline void check_support(const std::vector<index_t>& index, std::size_t values, index_t n) {
  if (values != index.size()) {
    throw InvalidArgument("a support of " + std::to_string(index.size()) + " indices was given " +
                          std::to_string(values) + " values");
  }
  for (std::size_t p = 0; p < index.size(); ++p) {
    const index_t i = index[p];
    if (i < 0 || i >= n || (p > 0 && i <= index[p - 1])) {
      throw InvalidArgument("a support's indices must be strictly ascending in [0, " +
                            std::to_string(n) + "); entry " + std::to_string(p) + " is " +
                            std::to_string(i));
    }
  }
}

template <class T>
struct SparseVector {
  std::vector<index_t> index;
  std::vector<T> value;

  index_t size() const noexcept { return static_cast<index_t>(index.size()); }
  void clear() noexcept {
    index.clear();
    value.clear();
  }
  void push_back(index_t i, T v) {
    index.push_back(i);
    value.push_back(v);
  }
};

/// out = the sparse vector with support `index` (check_support(index, n)) and values T(value):
/// from_host of the host backends.
template <class T>
void assign_support(const std::vector<index_t>& index, const std::vector<double>& value, index_t n,
                    SparseVector<T>& out) {
  check_support(index, value.size(), n);
  out.index = index;
  out.value.assign(value.begin(), value.end());
}

}  // namespace coreset::solvers
