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

/// Where project_on_device's time went, when asked (bench_gpu --end-to-end): the allocation of
/// its buffers and its set-up on the host clock, then the device time of its two kernels, summed
/// over the blocks of datapoints from events around each, and the time between one block's link
/// pass and the next block's GEMM (the stream waiting for the host's launches), in seconds. The
/// events and a synchronisation add to the call's own time: time it apart.
struct ProjectionTimings {
  double setup = 0.0;           // the samples' upload, the allocation of the GEMM's block and Phi
  double products = 0.0;        // the GEMMs: each block's linear predictors
  double link_passes = 0.0;     // the fused link, centring and scaling passes
  double between_blocks = 0.0;  // from each link pass to the next block's GEMM
  index_t blocks = 0;
  index_t block_width = 0;  // datapoints per block
};

/// Phi (S x n, column-major, ld = S) in device memory, computed on `resources`' stream, which
/// is synchronised on return, from `data`, model's dataset in device memory (its link and shared
/// quadratic are read from `model`). Throws as projection_on_gpu does. With `timings`, records
/// events around every kernel (three per block) and fills it.
template <class T>
kernels::DeviceBuffer<T> project_on_device(Resources& resources, const models::Model& model,
                                           const DeviceData& data, const Eigen::MatrixXd& samples,
                                           ProjectionTimings* timings = nullptr);

}  // namespace coreset::cuda
