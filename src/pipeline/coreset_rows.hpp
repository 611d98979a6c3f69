// A coreset's rows in a distributed build whose ranks hold only their shares of the dataset:
// the coreset posterior (spec 4.5) needs the k chosen rows on every rank, and each lies on one.
#pragma once

#include "coreset/distributed.hpp"
#include "coreset/solver.hpp"
#include "models/model.hpp"

namespace coreset::pipeline {

/// A model of the coreset's rows alone, in the coreset's order, and the coreset re-indexed to
/// them (0 ... k - 1, the same weights): posterior_of(rows.model, &rows.coreset) is then
/// bitwise what the whole model gives for the coreset.
struct CoresetRows {
  models::Model model;
  Coreset coreset;
};

/// Gathers `coreset`'s rows from every rank's `share` (Model::is_share, or the whole model on
/// one rank). A collective; InvalidArgument for an index that no rank holds.
CoresetRows gather_coreset_rows(const models::Model& share, const Coreset& coreset,
                                const Communicator& comm);

}  // namespace coreset::pipeline
