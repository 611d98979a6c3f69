// Rows' offsets as a pass over them reads them, on the host or the device: one per row, or one
// value that every row shares (models/row_offsets.hpp holds them; the GPU's copy is
// cuda/device_data.hpp's). Apart from row_offsets.hpp so that device code takes it without Eigen.
#pragma once

#include "coreset/types.hpp"
#include "support/host_device.hpp"

namespace coreset::models {

/// Rows' offsets at `stored`, one per row, or, when it is null, `shared` for every row (a view
/// of no rows may be null either way). It holds nothing.
struct OffsetsView {
  const double* stored = nullptr;
  double shared = 0.0;

  CORESET_HOST_DEVICE double operator[](index_t row) const noexcept {
    return stored != nullptr ? stored[row] : shared;
  }
};

}  // namespace coreset::models
