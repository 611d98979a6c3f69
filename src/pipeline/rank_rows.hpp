// Which datapoints a process of a build owns: the rows whose columns of Phi it projects, whose
// terms of the sums over datapoints it adds, and whose candidates it offers to a selection. One
// place for the rule, so that the build's Phi and SparseVI's Phi_w split the columns alike.
#pragma once

#include "coreset/distributed.hpp"
#include "models/model.hpp"

namespace coreset::pipeline {

/// This process's datapoints: `global` among the whole dataset's (all of them in one process,
/// datapoint_range's block on a rank), `local` among its model's rows (a share's are all of
/// them; with the whole dataset on every rank, the global block).
struct RankRows {
  DatapointRange global;
  DatapointRange local;
};

inline RankRows rank_rows(const models::Model& model, const Communicator* comm) {
  const index_t n = model.all_rows();
  const DatapointRange mine =
      comm == nullptr ? DatapointRange{0, n} : datapoint_range(n, comm->rank(), comm->size());
  return {mine, model.is_share() ? DatapointRange{0, model.rows()} : mine};
}

}  // namespace coreset::pipeline
