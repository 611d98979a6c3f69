// Rows of the whole dataset that every rank of a distributed build needs while each holds only
// its share: the coreset's k rows for the coreset posterior (spec 4.5), and the linear model's
// RBF centres with the covariate means (spec 3.5). Each row lies on one rank and is gathered from
// it; the shares' sums are added exactly.
#pragma once

#include <cstdint>

#include "coreset/dataset.hpp"
#include "coreset/distributed.hpp"
#include "coreset/model.hpp"
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

/// The whole dataset's RBF basis (models::rbf_basis) from the ranks' shares: the centre rows that
/// models::rbf_centre_rows draws over all rows, the same on every rank, gathered from the ranks
/// that hold them, and the covariate means from the ranks' exact sums; so the basis, hence every
/// share's design, is the one make_model builds from the whole dataset, bit for bit. A
/// collective; InvalidArgument (on every rank alike) for bad options or a row that no rank holds.
models::RbfBasis gather_rbf_basis(const Dataset& share, const RbfOptions& rbf, std::uint64_t seed,
                                  const Communicator& comm);

}  // namespace coreset::pipeline
