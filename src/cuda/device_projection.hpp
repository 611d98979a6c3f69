// The GPU projection's device side: Phi left in device memory for the backend to take in place
// (cuda/device_phi.hpp). projection_cuda.hpp's projection_on_gpu is this plus one download. It
// reads the design where the job's dataset already is (cuda/device_data.hpp): no upload of its own.
#pragma once

#include <Eigen/Core>

#include "coreset/types.hpp"
#include "cuda/device_data.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "models/model.hpp"

namespace coreset::cuda {

/// Phi (S x n, column-major, ld = S) in device memory, computed on `resources`' stream, which
/// is synchronised on return, from `data`, model's dataset in device memory (its link and shared
/// quadratic are read from `model`). Throws as projection_on_gpu does.
template <class T>
kernels::DeviceBuffer<T> project_on_device(Resources& resources, const models::Model& model,
                                           const DeviceData& data, const Eigen::MatrixXd& samples);

}  // namespace coreset::cuda
