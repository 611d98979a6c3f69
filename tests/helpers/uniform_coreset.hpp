// The uniform-subsampling baseline of spec 2.11 ([HIL]/[CODE]): M draws with replacement, weight
// N * count / M per distinct row. Tests compare the engine's coresets against it.
#pragma once

#include <map>
#include <random>

#include "coreset/solver.hpp"

namespace coreset::test {

inline Coreset uniform_coreset(index_t rows, index_t draws, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<index_t> pick(0, rows - 1);
  std::map<index_t, index_t> counts;
  for (index_t m = 0; m < draws; ++m) {
    ++counts[pick(generator)];
  }
  Coreset coreset;
  for (const auto& [row, count] : counts) {
    coreset.indices.push_back(row);
    coreset.weights.push_back(static_cast<double>(rows) * static_cast<double>(count) /
                              static_cast<double>(draws));
  }
  return coreset;
}

}  // namespace coreset::test
