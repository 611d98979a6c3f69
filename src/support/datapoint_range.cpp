// The split of n datapoints over the ranks of a distributed job (coreset/distributed.hpp). Here,
// in the lowest layer, because the readers (a rank's share of a file) and the pipeline both
// need it.
#include <algorithm>
#include <string>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"

namespace coreset {

DatapointRange datapoint_range(index_t n, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks || n < 0) {
    throw InvalidArgument("datapoint_range: rank " + std::to_string(rank) + " of " +
                          std::to_string(ranks) + " ranks, n = " + std::to_string(n));
  }
  const index_t blocks = (n + kReductionBlock - 1) / kReductionBlock;
  const auto block_at = [&](int r) { return blocks * r / ranks; };
  const index_t first = std::min(n, block_at(rank) * kReductionBlock);
  const index_t end = std::min(n, block_at(rank + 1) * kReductionBlock);
  return {first, end - first};
}

}  // namespace coreset
