// One GPU job's copy of its dataset in device memory: the design (n x d), the responses and the
// offsets, uploaded once (the design's unit column written there, shared offsets one value:
// cuda/device_data.hpp) and read in place by every device stage that needs the data: the
// Laplace fit's sums over datapoints (this class is their models::RowSumsProvider) and the
// projection (cuda/device_phi.hpp). Before it, the projection uploaded the design itself and
// Laplace ran on the host; now the design crosses the bus once per job. Free of CUDA headers;
// in a build without CUDA the constructor throws DeviceError (gpu_session_disabled.cpp).
#pragma once

#include <Eigen/Core>
#include <memory>

#include "coreset/types.hpp"
#include "cuda/gpu_session.hpp"
#include "models/model.hpp"
#include "models/row_sums_provider.hpp"

namespace coreset::cuda {

struct DeviceData;  // the device buffers (cuda/device_data.hpp)

class DeviceDataset final : public models::RowSumsProvider {
 public:
  /// Uploads model's design, response and offset on the session's GPU, writing there the
  /// design's unit column, which the host does not store (DeviceError when they do not fit), and
  /// keeps its link. `chunk_blocks` (0: sized for about 256 MiB of scratch) is how many
  /// kernels::kLinkSumRows-row blocks one pass of link_sums handles; tests lower it to cross chunk
  /// boundaries with small data. It changes the result by round-off at most (cuBLAS may pick
  /// another kernel for another batch count); for one value, calls repeat bitwise.
  DeviceDataset(std::shared_ptr<GpuSession> session, const models::Model& model,
                index_t chunk_blocks = 0);
  ~DeviceDataset() override;
  DeviceDataset(const DeviceDataset&) = delete;
  DeviceDataset& operator=(const DeviceDataset&) = delete;

  index_t rows() const noexcept override;
  index_t dim() const noexcept override;
  /// The sums of models/row_sums.hpp at theta, on the device in double: per block of
  /// kernels::kLinkSumRows rows a partial sum (cuBLAS products with the design), the partials
  /// added in block order on the device, d x (d + 1) + 1 doubles read back. Thread-safe
  /// (serialised on the session); call it without holding the session's lock.
  models::RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const override;

  const std::shared_ptr<GpuSession>& session() const noexcept;
  /// The device buffers, for the cuda layer's own use under the session's lock.
  const DeviceData& data() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coreset::cuda
