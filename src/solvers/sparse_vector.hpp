// A sparse n-vector held on the host: indices strictly ascending, one value per index.
#pragma once

#include <vector>

#include "coreset/types.hpp"

namespace coreset::solvers {

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

}  // namespace coreset::solvers
