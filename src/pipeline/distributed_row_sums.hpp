// The full data's sums of the Laplace fit (models/row_sums_provider.hpp) in a distributed build:
// each rank sums its own block of rows exactly, the ranks' exact parts are added, and the total
// is rounded once on every rank. So Newton's steps split their O(n d^2) work over the ranks and
// still see the one-process sums bit for bit (the same pi-hat, hence the same samples and Phi).
// A GPU rank sums its rows on its device instead (rounded there, then added exactly).
#pragma once

#include "coreset/distributed.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "models/row_sums_provider.hpp"
#include "support/collectives.hpp"

namespace coreset::pipeline {

class DistributedRowSums final : public models::RowSumsProvider {
 public:
  /// `model` (kept by reference): the whole data, or this rank's share of it (Model::is_share);
  /// `mine`: the model's rows that are this rank's (datapoint_range's block of the whole data,
  /// or all rows of a share). `on_device` (optional, kept by reference): those rows on this
  /// rank's GPU (cuda::DeviceDataset), whose sums are then taken there and rounded once before
  /// the ranks' exact sum, so that a GPU build agrees with one GPU to rounding, not bit for bit.
  DistributedRowSums(const models::Model& model, DatapointRange mine, const Communicator& comm,
                     const models::RowSumsProvider* on_device = nullptr)
      : model_(model), mine_(mine), comm_(comm), on_device_(on_device) {}

  index_t rows() const noexcept override { return model_.all_rows(); }
  index_t dim() const noexcept override { return model_.dim(); }

  /// A collective: every rank calls it with the same theta.
  models::RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const override {
    // The local part may fail on one rank alone (memory): every rank learns of it before the
    // sum, so none is left waiting in it.
    models::ExactRowSums sums;
    on_every_rank(&comm_, [&] {
      sums = on_device_ != nullptr
                 ? models::exact_row_sums_of(on_device_->link_sums(theta, want_vector, want_matrix),
                                             model_.dim(), want_vector, want_matrix)
                 : models::exact_link_sums(model_, mine_.first, mine_.count, theta, want_vector,
                                           want_matrix);
    });
    support::sum_over_ranks(comm_, sums);
    return models::round_row_sums(sums, model_.dim(), want_vector, want_matrix);
  }
  const Communicator* communicator() const noexcept override { return &comm_; }

 private:
  const models::Model& model_;
  DatapointRange mine_;
  const Communicator& comm_;
  const models::RowSumsProvider* on_device_;
};

}  // namespace coreset::pipeline
