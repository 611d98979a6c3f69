// The floors, per stage (bytes / bandwidth, both from this run):
//   upload      the dataset (design n x d, responses, offsets: 8 n (d + 2) bytes) once, over the
//               measured host-to-device bandwidth from pinned memory (the bus's; until 947d87d
//               from pageable memory, 8.0 GB/s on the H100 machine);
//   laplace     every evaluation of the log joint reads the design, responses and offsets once
//               (8 n (d + 2) bytes) at the device copy bandwidth; the evaluations (Newton steps
//               and line-search points) are counted on a second, standalone fit of the same model;
//   projection  Phi (S x n floats) written once, plus one read of the design;
//   solve       Phi read once per iteration of the solve.
// Sampling and evaluation run on the host on d x d and k x d problems: reported, no floor. The
// build's projection stage includes the upload (pipeline/build.cpp); the upload is also timed
// alone (a DeviceDataset of the same model) so the two can be told apart. The set-up before the
// first stage (the model, the device session, the memory checks: StageSeconds::setup) is reported
// with the model's and a session's set-up timed alone beside it, and seconds_outside_stages is
// what the build spent outside every stage (freeing Phi and the rest at the end).
#include "bench_gpu_end_to_end.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "coreset/build.hpp"
#include "cuda/device_dataset.hpp"
#include "cuda/gpu_session.hpp"
#include "kernels/check.hpp"
#include "models/model.hpp"
#include "models/row_sums_provider.hpp"
#include "posterior/posterior.hpp"

namespace coreset::bench {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Host-to-device bytes per second: the median of 3 copies of 1 GiB (after a warm-up), from
// pinned memory (the bus's rate: the upload's floor) or from pageable memory (what a plain
// cudaMemcpy of a std::vector gets; the library stages large uploads through pinned buffers,
// kernels/transfer.cpp).
double upload_bandwidth(bool pinned) {
  const std::size_t bytes = std::size_t{1} << 30;
  std::vector<unsigned char> pageable;
  unsigned char* host = nullptr;
  if (pinned) {
    CORESET_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&host), bytes, cudaHostAllocDefault));
    std::fill(host, host + bytes, 1);
  } else {
    pageable.assign(bytes, 1);
    host = pageable.data();
  }
  void* device = nullptr;
  cudaError_t status = cudaMalloc(&device, bytes);
  std::vector<double> seconds;
  for (int r = 0; r < 4 && status == cudaSuccess; ++r) {
    const auto start = Clock::now();
    status = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    if (r > 0) {  // the first is a warm-up
      seconds.push_back(seconds_since(start));
    }
  }
  if (device != nullptr) {
    cudaFree(device);
  }
  if (pinned) {
    cudaFreeHost(host);
  }
  CORESET_CUDA_TRY(status);
  std::sort(seconds.begin(), seconds.end());
  return static_cast<double>(bytes) / seconds[seconds.size() / 2];
}

Dataset logistic_data(index_t rows, index_t dims) {
  Dataset data;
  data.covariates = Matrix<double>::uninitialized(rows, dims);
  data.response.resize(static_cast<std::size_t>(rows));
  std::mt19937_64 generator(11);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  for (index_t i = 0; i < rows; ++i) {
    double z = 0.0;
    for (index_t c = 0; c < dims; ++c) {
      const double x = normal(generator);
      data.covariates(i, c) = x;
      z += (c % 2 == 0 ? 0.3 : -0.2) * x;
    }
    data.response[static_cast<std::size_t>(i)] =
        uniform(generator) < 1.0 / (1.0 + std::exp(-z)) ? 1.0 : -1.0;
  }
  return data;
}

// The device sums, counted: how many evaluations a Laplace fit of this model takes.
class CountingSums final : public models::RowSumsProvider {
 public:
  explicit CountingSums(const models::RowSumsProvider& inner) : inner_(inner) {}
  index_t rows() const noexcept override { return inner_.rows(); }
  index_t dim() const noexcept override { return inner_.dim(); }
  models::RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const override {
    ++(want_vector || want_matrix ? with_derivatives : value_only);
    return inner_.link_sums(theta, want_vector, want_matrix);
  }
  mutable int with_derivatives = 0;
  mutable int value_only = 0;

 private:
  const models::RowSumsProvider& inner_;
};

Json stage(double seconds, double floor_seconds, double bytes) {
  return {{"seconds", seconds},
          {"floor_seconds", floor_seconds},
          {"floor_bytes", bytes},
          {"fraction_of_floor", floor_seconds > 0.0 ? floor_seconds / seconds : 0.0}};
}

}  // namespace

Json end_to_end(index_t rows, index_t dims, index_t samples, index_t budget,
                double copy_bandwidth) {
  const Dataset data = logistic_data(rows, dims);
  BuildOptions options;
  options.model.kind = ModelKind::logistic;
  options.samples = samples;
  options.precision = Precision::float32;
  options.solver.k = budget;
  options.solver.device = Device::gpu;
  const auto start = Clock::now();
  const BuildResult result = build_coreset(data, options);
  const double total = seconds_since(start);

  // The same model and a device session of its own, to time their set-up (build_coreset makes
  // both before its first stage: the design copied from the dataset and the responses checked;
  // the stream, cuBLAS and its workspace), count Laplace's evaluations and time the upload alone.
  const auto model_start = Clock::now();
  const models::Model model = models::make_model(data, options.model, options.seed);
  const double model_seconds = seconds_since(model_start);
  const auto session_start = Clock::now();
  const auto session = std::make_shared<cuda::GpuSession>();
  const double session_seconds = seconds_since(session_start);
  auto upload_start = Clock::now();
  const cuda::DeviceDataset device(session, model);
  const double upload_seconds = seconds_since(upload_start);
  const CountingSums counted(device);
  posterior::LaplaceOptions laplace;
  laplace.full_data = &counted;
  const auto laplace_start = Clock::now();
  const posterior::LaplaceFit fit = posterior::laplace(model, nullptr, laplace);
  const double laplace_seconds = seconds_since(laplace_start);

  const double n = static_cast<double>(rows);
  const double d = static_cast<double>(model.dim());
  const double s = static_cast<double>(samples);
  const double dataset_bytes = 8.0 * n * (d + 2.0);
  const double h2d = upload_bandwidth(true);
  const double h2d_pageable = upload_bandwidth(false);
  const int evaluations = counted.with_derivatives + counted.value_only;
  const double laplace_bytes = evaluations * dataset_bytes;
  const double phi_bytes = 4.0 * s * n;
  const double projection_bytes = phi_bytes + 8.0 * n * d;
  const double solve_bytes = static_cast<double>(result.solve.iterations) * phi_bytes;

  const double upload_floor = dataset_bytes / h2d;
  const double laplace_floor = laplace_bytes / copy_bandwidth;
  const double projection_floor = projection_bytes / copy_bandwidth;
  const double solve_floor = solve_bytes / copy_bandwidth;
  Json stages = {
      {"upload_alone", stage(upload_seconds, upload_floor, dataset_bytes)},
      {"laplace", stage(result.seconds.pihat, laplace_floor, laplace_bytes)},
      {"laplace_alone", stage(laplace_seconds, laplace_floor, laplace_bytes)},
      {"setup", stage(result.seconds.setup, 0.0, 0.0)},
      {"sampling", stage(result.seconds.sampling, 0.0, 0.0)},
      // The build's projection stage includes the dataset's upload.
      {"upload_and_projection", stage(result.seconds.projection, upload_floor + projection_floor,
                                      dataset_bytes + projection_bytes)},
      {"solve", stage(result.seconds.solve, solve_floor, solve_bytes)},
      {"evaluation", stage(result.seconds.evaluation, 0.0, 0.0)},
      // On the host, no floor: reported so that the total's parts add up.
      {"model_alone", stage(model_seconds, 0.0, 0.0)},
      {"session_alone", stage(session_seconds, 0.0, 0.0)},
  };
  // What the build spent outside its timed stages (the set-up before the first one is a stage,
  // StageSeconds::setup): freeing Phi and the rest at the end.
  const double in_stages = result.seconds.total();
  const double floor_total = upload_floor + laplace_floor + projection_floor + solve_floor;
  return {{"N", rows},
          {"d", model.dim()},
          {"S", samples},
          {"k", budget},
          {"precision", "float32"},
          {"seconds_total", total},
          {"seconds_outside_stages", total - in_stages},
          {"floor_seconds", floor_total},
          {"fraction_of_floor", floor_total / total},
          {"host_to_device_bandwidth_bytes_per_second", h2d},
          {"host_to_device_pageable_bandwidth_bytes_per_second", h2d_pageable},
          {"copy_bandwidth_bytes_per_second", copy_bandwidth},
          {"laplace_evaluations_with_derivatives", counted.with_derivatives},
          {"laplace_evaluations_value_only", counted.value_only},
          {"laplace_newton_iterations", fit.iterations},
          {"solve_iterations", result.solve.iterations},
          {"relative_error", result.solve.relative_error},
          {"stages", stages}};
}

}  // namespace coreset::bench
