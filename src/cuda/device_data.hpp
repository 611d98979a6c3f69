// The device buffers behind cuda/device_dataset.hpp, for the cuda layer's device code: the
// design column-major (ld = rows), responses and offsets, each uploaded once; the design's unit
// column, which the host does not store, written on the device; offsets shared by every row held
// as their one value, as the host holds them.
#pragma once

#include <vector>

#include "coreset/types.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/transfer.hpp"
#include "models/model.hpp"
#include "models/offsets_view.hpp"

namespace coreset::cuda {

struct DeviceData {
  index_t rows = 0;                        ///< n
  index_t dim = 0;                         ///< d
  kernels::DeviceBuffer<double> design;    ///< n x d, column-major
  kernels::DeviceBuffer<double> response;  ///< n
  kernels::DeviceBuffer<double> offset;    ///< n when stored; empty when every row shares one
  double shared_offset = 0.0;              ///< every row's offset when `offset` is empty

  /// The offsets as the device kernels read them.
  models::OffsetsView offsets() const noexcept {
    return {offset.size() > 0 ? offset.data() : nullptr, shared_offset};
  }
};

/// `data` sized for `model` (rows, dim, the buffers, the shared offset), and the copies of the
/// model's host arrays into it for kernels::copy_all_to_device_async: the design's stored
/// columns (one array, or one a column when the rows were cut from a longer design), the
/// responses and the offsets when they are stored. The design's unit column (models/design.hpp),
/// which the host does not store, is no copy: fill_unit_column writes it on the device. Offsets
/// shared by every row (models/row_offsets.hpp) are no copy and no buffer: their one value.
std::vector<kernels::HostToDevice> sized_for(DeviceData& data, const models::Model& model);

/// The design's unit column, when it has one, written as ones into `data.design` on `stream`.
void fill_unit_column(cudaStream_t stream, DeviceData& data, const models::Design& design);

/// Uploads model's design, response and offset on `resources`' stream (counted copies through
/// kernels/transfer.hpp; fill_unit_column writes the design's ones) and synchronises.
/// DeviceError, saying how much is needed, when they do not fit beside `working_bytes` more.
DeviceData upload_data(Resources& resources, const models::Model& model,
                       std::size_t working_bytes = 0);

}  // namespace coreset::cuda
