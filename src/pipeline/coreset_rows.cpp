#include "pipeline/coreset_rows.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "support/collectives.hpp"

namespace coreset::pipeline {

namespace {

// Entries 0 ... count - 1 of `width` doubles each, every one held by some rank, gathered onto
// every rank in entry order (row-major, count x width). `held(p, out)` appends entry p's values
// to `out` and returns true when this rank holds it. `name(p)` names an entry that no rank
// holds, for the InvalidArgument that every rank then throws alike. A collective.
template <class Held, class Name>
std::vector<double> gather_entries(const Communicator& comm, index_t count, index_t width,
                                   Held&& held, Name&& name) {
  // Each entry this rank holds as 1 + width doubles: its position (exact below 2^53), then its
  // values.
  std::vector<double> mine;
  for (index_t p = 0; p < count; ++p) {
    mine.push_back(static_cast<double>(p));
    if (!held(p, mine)) {
      mine.pop_back();
    }
  }
  const std::vector<double> all = support::all_gather_values(comm, mine);
  std::vector<double> entries(static_cast<std::size_t>(count * width));
  std::vector<bool> found(static_cast<std::size_t>(count), false);
  const auto record = static_cast<std::size_t>(width + 1);
  for (std::size_t at = 0; at + record <= all.size(); at += record) {
    const auto p = static_cast<std::size_t>(all[at]);
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(at + 1),
              all.begin() + static_cast<std::ptrdiff_t>(at + record),
              entries.begin() + static_cast<std::ptrdiff_t>(p * (record - 1)));
    found[p] = true;
  }
  for (index_t p = 0; p < count; ++p) {
    if (!found[static_cast<std::size_t>(p)]) {
      throw InvalidArgument(name(p));
    }
  }
  return entries;
}

}  // namespace

CoresetRows gather_coreset_rows(const models::Model& share, const Coreset& coreset,
                                const Communicator& comm) {
  const index_t d = share.dim();
  const auto k = static_cast<index_t>(coreset.indices.size());
  // Each row as its design row, the response and the offset.
  const std::vector<double> rows = gather_entries(
      comm, k, d + 2,
      [&](index_t p, std::vector<double>& out) {
        const index_t row = coreset.indices[static_cast<std::size_t>(p)] - share.first_row;
        if (row < 0 || row >= share.rows()) {
          return false;
        }
        for (index_t c = 0; c < d; ++c) {
          out.push_back(share.design(row, c));
        }
        out.push_back(share.response[row]);
        out.push_back(share.offset[row]);
        return true;
      },
      [&](index_t p) {
        return "coreset row " + std::to_string(coreset.indices[static_cast<std::size_t>(p)]) +
               " is on no rank's share of the " + std::to_string(share.all_rows()) + " rows";
      });

  CoresetRows gathered;
  // Everything of the share but its rows (which would double a rank's memory for a moment).
  gathered.model = models::without_rows(share);
  models::Model& model = gathered.model;
  Eigen::MatrixXd design(k, d);
  model.response.resize(k);
  Eigen::VectorXd offset(k);
  for (index_t p = 0; p < k; ++p) {
    const double* row = rows.data() + p * (d + 2);
    for (index_t c = 0; c < d; ++c) {
      design(p, c) = row[c];
    }
    model.response[p] = row[d];
    offset[p] = row[d + 1];
  }
  model.design = models::Design(std::move(design));
  // Offsets shared by the share's rows stay shared (the same values, nothing stored).
  model.offset = share.offset.stored() ? models::RowOffsets(std::move(offset))
                                       : models::RowOffsets::shared(k, share.offset.shared_value());
  gathered.coreset.weights = coreset.weights;
  gathered.coreset.indices.resize(static_cast<std::size_t>(k));
  for (index_t p = 0; p < k; ++p) {
    gathered.coreset.indices[static_cast<std::size_t>(p)] = p;
  }
  return gathered;
}

models::RbfBasis gather_rbf_basis(const Dataset& share, const RbfOptions& rbf, std::uint64_t seed,
                                  const Communicator& comm) {
  const index_t dims = share.dims();
  std::vector<index_t> centre_rows;
  on_every_rank(&comm,
                [&] { centre_rows = models::rbf_centre_rows(rbf, dims, share.all_rows(), seed); });
  const auto count = static_cast<index_t>(centre_rows.size());
  const std::vector<double> centres = gather_entries(
      comm, count, dims,
      [&](index_t p, std::vector<double>& out) {
        const index_t row = centre_rows[static_cast<std::size_t>(p)] - share.first_row;
        if (row < 0 || row >= share.rows()) {
          return false;
        }
        for (index_t c = 0; c < dims; ++c) {
          out.push_back(share.covariates(row, c));
        }
        return true;
      },
      [&](index_t p) {
        return "RBF centre row " + std::to_string(centre_rows[static_cast<std::size_t>(p)]) +
               " is on no rank's share of the " + std::to_string(share.all_rows()) + " rows";
      });
  std::vector<support::ExactSum> sums = models::exact_covariate_sums(share);
  support::sum_over_ranks(comm, sums);
  // gather_entries lays the centres out row-major, one centre after another.
  const Eigen::MatrixXd centre_covariates =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          centres.data(), count, dims);
  return models::rbf_basis(rbf, centre_covariates, sums, share.all_rows());
}

}  // namespace coreset::pipeline
