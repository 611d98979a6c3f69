// The Communicator's own code (coreset/distributed.hpp): what a transport need not write itself.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {

Communicator::~Communicator() = default;

// Every rank gathers every rank's parts, each prefixed by its 64-bit length, and keeps the ones
// addressed to it.
std::vector<std::string> Communicator::all_to_all(const std::vector<std::string>& to_each) const {
  const auto ranks = static_cast<std::size_t>(size());
  if (to_each.size() != ranks) {
    throw InvalidArgument("all_to_all: " + std::to_string(to_each.size()) + " parts for " +
                          std::to_string(ranks) + " ranks");
  }
  std::string packed;
  for (const std::string& part : to_each) {
    const auto length = static_cast<std::int64_t>(part.size());
    packed.append(reinterpret_cast<const char*>(&length), sizeof length);
    packed += part;
  }
  const auto me = static_cast<std::size_t>(rank());
  std::vector<std::string> received;
  received.reserve(ranks);
  for (const std::string& theirs : all_gather(packed)) {
    std::size_t at = 0;
    for (std::size_t q = 0;; ++q) {
      std::int64_t length = 0;
      std::memcpy(&length, theirs.data() + at, sizeof length);
      at += sizeof length;
      if (q == me) {
        received.push_back(theirs.substr(at, static_cast<std::size_t>(length)));
        break;
      }
      at += static_cast<std::size_t>(length);
    }
  }
  return received;
}

}  // namespace coreset
