#include "pipeline/coreset_rows.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "support/collectives.hpp"

namespace coreset::pipeline {

CoresetRows gather_coreset_rows(const models::Model& share, const Coreset& coreset,
                                const Communicator& comm) {
  const index_t d = share.dim();
  const auto k = static_cast<index_t>(coreset.indices.size());
  // Each row this rank holds as d + 3 doubles: its position in the coreset (exact below 2^53),
  // the design row, the response and the offset.
  const index_t record = d + 3;
  std::vector<double> mine;
  for (index_t p = 0; p < k; ++p) {
    const index_t row = coreset.indices[static_cast<std::size_t>(p)] - share.first_row;
    if (row < 0 || row >= share.rows()) {
      continue;
    }
    mine.push_back(static_cast<double>(p));
    for (index_t c = 0; c < d; ++c) {
      mine.push_back(share.design(row, c));
    }
    mine.push_back(share.response[row]);
    mine.push_back(share.offset[row]);
  }
  const std::vector<double> all = support::all_gather_values(comm, mine);

  CoresetRows rows;
  // Everything of the share but its rows (which would double a rank's memory for a moment).
  models::Model& model = rows.model;
  model.kind = share.kind;
  model.link = share.link;
  model.shared_quadratic = share.shared_quadratic;
  model.noise_precision = share.noise_precision;
  model.prior_precision = share.prior_precision;
  model.prior_log_normalizer = share.prior_log_normalizer;
  model.parameter_names = share.parameter_names;
  model.design.resize(k, d);
  model.response.resize(k);
  model.offset.resize(k);
  std::vector<bool> found(static_cast<std::size_t>(k), false);
  const auto width = static_cast<std::size_t>(record);
  for (std::size_t at = 0; at + width <= all.size(); at += width) {
    const auto p = static_cast<index_t>(all[at]);
    for (index_t c = 0; c < d; ++c) {
      model.design(p, c) = all[at + 1 + static_cast<std::size_t>(c)];
    }
    model.response[p] = all[at + 1 + static_cast<std::size_t>(d)];
    model.offset[p] = all[at + 2 + static_cast<std::size_t>(d)];
    found[static_cast<std::size_t>(p)] = true;
  }
  for (index_t p = 0; p < k; ++p) {
    if (!found[static_cast<std::size_t>(p)]) {
      throw InvalidArgument(
          "coreset row " + std::to_string(coreset.indices[static_cast<std::size_t>(p)]) +
          " is on no rank's share of the " + std::to_string(share.all_rows()) + " rows");
    }
  }
  rows.coreset.weights = coreset.weights;
  rows.coreset.indices.resize(static_cast<std::size_t>(k));
  for (index_t p = 0; p < k; ++p) {
    rows.coreset.indices[static_cast<std::size_t>(p)] = p;
  }
  return rows;
}

}  // namespace coreset::pipeline
