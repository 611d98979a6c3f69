// The device buffers behind cuda/device_dataset.hpp, for the cuda layer's device code: the
// design column-major (ld = rows), responses and offsets, each uploaded once or, what the host
// does not store (the unit column, shared offsets), written on the device.
#pragma once

#include <vector>

#include "coreset/types.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/transfer.hpp"
#include "models/model.hpp"

namespace coreset::cuda {

struct DeviceData {
  index_t rows = 0;                        ///< n
  index_t dim = 0;                         ///< d
  kernels::DeviceBuffer<double> design;    ///< n x d, column-major
  kernels::DeviceBuffer<double> response;  ///< n
  kernels::DeviceBuffer<double> offset;    ///< n
};

/// `data` sized for `model` (rows, dim and the three buffers), and the copies of the model's
/// host arrays into it for kernels::copy_all_to_device_async: the design's stored columns (one
/// array, or one a column when the rows were cut from a longer design), the responses and the
/// offsets when they are stored. What the host does not store, the design's unit column
/// (models/design.hpp) and offsets shared by every row (models/row_offsets.hpp), is no copy:
/// fill_unstored writes it on the device.
std::vector<kernels::HostToDevice> sized_for(DeviceData& data, const models::Model& model);

/// The design's unit column (ones) and the shared offsets, when `model` has them, written into
/// `data` (sized by sized_for) on `stream`.
void fill_unstored(cudaStream_t stream, DeviceData& data, const models::Model& model);

/// Uploads model's design, response and offset on `resources`' stream (counted copies through
/// kernels/transfer.hpp; fill_unstored writes what the host does not store) and synchronises.
/// DeviceError, saying how much is needed, when they do not fit beside `working_bytes` more.
DeviceData upload_data(Resources& resources, const models::Model& model,
                       std::size_t working_bytes = 0);

}  // namespace coreset::cuda
