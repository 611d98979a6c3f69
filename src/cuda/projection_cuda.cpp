#include "cuda/projection_cuda.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "cuda/device_projection.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/nvtx.hpp"
#include "cuda/resources.hpp"
#include "kernels/check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/projection_launch.hpp"
#include "kernels/transfer.hpp"
#include "models/model.hpp"

namespace coreset::cuda {
namespace {

// The GEMM's output is S x width doubles per block: 32 MiB, whatever S, so that the link pass
// can read it back (and write it over) in the GPU's L2 cache (50 MB on an H100, 60 MB on an
// H200) rather than through its memory, as 512 MiB blocks could not. Measured with the warp
// centring (bench/results/gpu_h200_20261127_373e1ae/): no change at N = 1e7, S = 500, where
// the projection's time lies elsewhere; the N = 1e8 build's projection stage took 0.66 s
// against 0.77-0.80 s.
constexpr index_t kBlockDoubles = index_t{1} << 22;

// Datapoints per block of the GEMM: its output (S x width) stays within kBlockDoubles.
index_t block_width(index_t samples, index_t n) {
  return std::max<index_t>(1, std::min(n, kBlockDoubles / samples));
}

// The events of ProjectionTimings: one before each block's GEMM, one between it and the link
// pass, one after (three per block), created only when timings are asked for.
class BlockEvents {
 public:
  explicit BlockEvents(index_t blocks) {
    events_.reserve(static_cast<std::size_t>(3 * blocks));
    try {
      for (index_t i = 0; i < 3 * blocks; ++i) {
        cudaEvent_t event = nullptr;
        CORESET_CUDA_TRY(cudaEventCreate(&event));
        events_.push_back(event);
      }
    } catch (...) {
      destroy();  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~BlockEvents() { destroy(); }
  BlockEvents(const BlockEvents&) = delete;
  BlockEvents& operator=(const BlockEvents&) = delete;

  void record(index_t block, int which, cudaStream_t stream) {
    CORESET_CUDA_TRY(cudaEventRecord(event(block, which), stream));
  }
  /// Seconds from event `from` of each block to event `to` of block + `later` (0: the same
  /// block, 1: the next), summed over the blocks that have one (the stream synchronised).
  double seconds(int from, int to, index_t later = 0) {
    double total = 0.0;
    for (index_t block = 0; 3 * (block + later) < static_cast<index_t>(events_.size()); ++block) {
      float milliseconds = 0.0f;
      CORESET_CUDA_TRY(
          cudaEventElapsedTime(&milliseconds, event(block, from), event(block + later, to)));
      total += 1e-3 * milliseconds;
    }
    return total;
  }

 private:
  cudaEvent_t event(index_t block, int which) {
    return events_[static_cast<std::size_t>(3 * block + which)];
  }
  void destroy() noexcept {
    for (cudaEvent_t event : events_) {
      cudaEventDestroy(event);  // unchecked: no throw from here; a failure leaks one event
    }
    events_.clear();
  }
  std::vector<cudaEvent_t> events_;
};

}  // namespace

std::size_t projection_scratch_bytes(index_t samples, index_t n, index_t d) {
  // The GEMM's block output, the samples and their quadratic terms (the design is resident).
  return static_cast<std::size_t>(block_width(samples, n) * samples + samples * (d + 1)) *
         sizeof(double);
}

template <class T>
kernels::DeviceBuffer<T> project_on_device(Resources& res, const models::Model& model,
                                           const DeviceData& data, const Eigen::MatrixXd& samples,
                                           ProjectionTimings* timings) {
  models::validate_projection_inputs(model, samples);
  if (data.rows != model.rows() || data.dim != model.dim()) {
    throw InvalidArgument("the device dataset is " + std::to_string(data.rows) + " x " +
                          std::to_string(data.dim) + " but the model's design is " +
                          std::to_string(model.rows()) + " x " + std::to_string(model.dim()));
  }
  NvtxRange range("projection");
  const index_t s = samples.rows();
  const index_t n = model.rows();
  const index_t d = model.dim();
  const index_t width_max = block_width(s, n);
  const auto phi_bytes = static_cast<std::size_t>(s) * static_cast<std::size_t>(n) * sizeof(T);
  check_fits(phi_bytes, projection_scratch_bytes(s, n, d),
             "the projection Phi (" + std::to_string(s) + " x " + std::to_string(n) + ")");

  const cudaStream_t stream = res.stream();
  const auto started = std::chrono::steady_clock::now();
  // 1/2 theta_s^T Q theta_s, once per sample, on the host exactly as the CPU computes it.
  Eigen::VectorXd quadratic;
  if (model.shared_quadratic.size() > 0) {
    quadratic = 0.5 * (samples * model.shared_quadratic).cwiseProduct(samples).rowwise().sum();
  }
  kernels::DeviceBuffer<double> samples_device;
  kernels::DeviceBuffer<double> quadratic_device;
  kernels::upload_async(stream, samples_device, samples.data(), s * d);
  kernels::upload_async(stream, quadratic_device, quadratic.data(), quadratic.size());
  kernels::DeviceBuffer<double> z(width_max * s);
  kernels::DeviceBuffer<T> phi(s * n);
  kernels::DeviceBuffer<unsigned long long> first_bad(1);
  CORESET_CUDA_TRY(cudaMemsetAsync(first_bad.data(), 0xff, sizeof(unsigned long long), stream));

  const index_t blocks = (n + width_max - 1) / width_max;
  std::unique_ptr<BlockEvents> events;
  if (timings != nullptr) {
    res.synchronize();
    timings->setup =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    timings->blocks = blocks;
    timings->block_width = width_max;
    events = std::make_unique<BlockEvents>(blocks);
  }

  const double one = 1.0;
  const double zero = 0.0;
  for (index_t block = 0; block < blocks; ++block) {
    const index_t first = block * width_max;
    const index_t width = std::min(width_max, n - first);
    if (events) {
      events->record(block, 0, stream);
    }
    // z (S x width) = samples (S x d) * block^T (d x width); the block is rows first.. of the
    // resident design (n x d, column-major), read in place with ld = n.
    CORESET_CUBLAS_TRY(cublasDgemm_64(res.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, s, width, d, &one,
                                      samples_device.data(), s, data.design.data() + first, n,
                                      &zero, z.data(), s));
    if (events) {
      events->record(block, 1, stream);
    }
    kernels::link_center<T>(stream, z.data(), s, first, width, data.response.data(),
                            quadratic.size() > 0 ? quadratic_device.data() : nullptr, model.link,
                            model.noise_precision, phi.data(), first_bad.data());
    if (events) {
      events->record(block, 2, stream);
    }
    // z is reused by the next block only after this one's link pass: stream order.
  }
  unsigned long long bad = 0;
  kernels::copy_to_host_async(stream, &bad, first_bad.data(), sizeof bad);
  res.synchronize();
  if (events) {
    timings->products = events->seconds(0, 1);
    timings->link_passes = events->seconds(1, 2);
    timings->between_blocks = events->seconds(2, 0, 1);
  }
  if (bad != std::numeric_limits<unsigned long long>::max()) {
    const auto flat = static_cast<index_t>(bad);
    // Named in the whole dataset (a rank's share starts at model.first_row), as the CPU does.
    throw NumericalError(
        "the log-likelihood of datapoint " + std::to_string(model.first_row + flat / s) +
        " (0-based) at parameter sample " + std::to_string(flat % s) + " is not finite");
  }
  return phi;
}

template <class T>
Matrix<T> projection_on_gpu(GpuSession& session, const models::Model& model,
                            const Eigen::MatrixXd& samples) {
  models::validate_projection_inputs(model, samples);  // before any device call
  const auto held = session.lock();
  Resources& res = session.resources();
  const DeviceData data = upload_data(res, model);
  const kernels::DeviceBuffer<T> phi = project_on_device<T>(res, model, data, samples);
  Matrix<T> out = Matrix<T>::uninitialized(samples.rows(), model.rows());
  kernels::copy_to_host_async(res.stream(), out.data(), phi.data(), phi.bytes());
  res.synchronize();
  return out;
}

template kernels::DeviceBuffer<float> project_on_device<float>(Resources&, const models::Model&,
                                                               const DeviceData&,
                                                               const Eigen::MatrixXd&,
                                                               ProjectionTimings*);
template kernels::DeviceBuffer<double> project_on_device<double>(Resources&, const models::Model&,
                                                                 const DeviceData&,
                                                                 const Eigen::MatrixXd&,
                                                                 ProjectionTimings*);
template Matrix<float> projection_on_gpu<float>(GpuSession&, const models::Model&,
                                                const Eigen::MatrixXd&);
template Matrix<double> projection_on_gpu<double>(GpuSession&, const models::Model&,
                                                  const Eigen::MatrixXd&);

}  // namespace coreset::cuda
