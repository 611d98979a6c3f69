// The device buffers behind cuda/device_dataset.hpp, for the cuda layer's device code: the
// design column-major (ld = rows), responses and offsets, each uploaded once.
#pragma once

#include "coreset/types.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "models/model.hpp"

namespace coreset::cuda {

struct DeviceData {
  index_t rows = 0;                        ///< n
  index_t dim = 0;                         ///< d
  kernels::DeviceBuffer<double> design;    ///< n x d, column-major
  kernels::DeviceBuffer<double> response;  ///< n
  kernels::DeviceBuffer<double> offset;    ///< n
};

/// Uploads model's design, response and offset on `resources`' stream (counted copies through
/// kernels/transfer.hpp) and synchronises. DeviceError, saying how much is needed, when they do
/// not fit beside `working_bytes` more.
DeviceData upload_data(Resources& resources, const models::Model& model,
                       std::size_t working_bytes = 0);

}  // namespace coreset::cuda
