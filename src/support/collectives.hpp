// The engine's collectives (coreset::Communicator: a sum of int64, an all_gather and an
// all_to_all of bytes) in the shapes its callers need: plain values gathered from every rank or
// sent to each, and exact partial sums (support/exact_sum.hpp) added over the ranks. Each is a
// collective: every rank calls it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "coreset/distributed.hpp"
#include "support/exact_sum.hpp"

namespace coreset::support {

/// Plain values to and from the byte strings of Communicator::all_gather.
template <class V>
std::string to_bytes(const std::vector<V>& values) {
  static_assert(std::is_trivially_copyable_v<V>);
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(V));
}
template <class V>
void append_from_bytes(const std::string& bytes, std::vector<V>& out) {
  const std::size_t count = bytes.size() / sizeof(V);
  if (count == 0) {
    return;  // out may be empty, its data() null: no memcpy, even of 0 bytes
  }
  const std::size_t at = out.size();
  out.resize(at + count);
  std::memcpy(out.data() + at, bytes.data(), count * sizeof(V));
}

/// Every rank's values, concatenated in rank order.
template <class V>
std::vector<V> all_gather_values(const Communicator& comm, const std::vector<V>& mine) {
  std::vector<V> all;
  for (const std::string& part : comm.all_gather(to_bytes(mine))) {
    append_from_bytes(part, all);
  }
  return all;
}

/// to_each[q]'s values to rank q; what every rank sent to this one, one list per rank.
template <class V>
std::vector<std::vector<V>> all_to_all_values(const Communicator& comm,
                                              const std::vector<std::vector<V>>& to_each) {
  std::vector<std::string> parts;
  parts.reserve(to_each.size());
  for (const std::vector<V>& values : to_each) {
    parts.push_back(to_bytes(values));
  }
  std::vector<std::vector<V>> received;
  for (const std::string& part : comm.all_to_all(parts)) {
    append_from_bytes(part, received.emplace_back());
  }
  return received;
}

/// Exact partial sums added over the ranks, in place.
inline void sum_over_ranks(const Communicator& comm, std::vector<ExactSum>& sums) {
  constexpr std::size_t kSlots = ExactSum::kSlots;
  std::vector<std::int64_t> slots(sums.size() * kSlots);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const auto& mine = sums[i].slots();
    std::copy(mine.begin(), mine.end(), slots.begin() + static_cast<std::ptrdiff_t>(i * kSlots));
  }
  comm.sum(slots.data(), slots.size());
  for (std::size_t i = 0; i < sums.size(); ++i) {
    sums[i] = ExactSum::from_slots(slots.data() + i * kSlots);
  }
}

}  // namespace coreset::support
