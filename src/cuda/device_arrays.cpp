// Solves on arrays in the caller's GPU memory (cuda/device_arrays.hpp).
#include "cuda/device_arrays.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/resources.hpp"
#include "kernels/check.hpp"
#include "kernels/external_arrays_launch.hpp"
#include "kernels/transfer.hpp"
#include "solvers/run_algorithm.hpp"

namespace coreset::cuda {
namespace {

constexpr unsigned long long kNoneBad = std::numeric_limits<unsigned long long>::max();

bool on_device(const cudaPointerAttributes& attributes) {
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

cudaPointerAttributes attributes_of(const void* pointer) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status == cudaErrorInvalidValue) {
    cudaGetLastError();  // not sticky: clear it so that the next call does not report it
    attributes.type = cudaMemoryTypeUnregistered;
    return attributes;
  }
  CORESET_CUDA_TRY(status);
  return attributes;
}

// The first flat index the kernels flagged, read back (the stream's work done).
unsigned long long first_flagged(Resources& res,
                                 const kernels::DeviceBuffer<unsigned long long>& bad) {
  unsigned long long flat = 0;
  kernels::copy_to_host_async(res.stream(), &flat, bad.data(), sizeof flat);
  res.synchronize();
  return flat;
}

// Phi on the device in the solver's layout (S x n, ld = S), and the scan of its entries: the
// caller's memory itself when it already is in that layout, else a copy made on the device.
template <class T>
kernels::DeviceBuffer<T> phi_from(Resources& res, DeviceArrayView<T> array, bool loglik,
                                  kernels::DeviceBuffer<unsigned long long>& bad) {
  const index_t draws = loglik ? array.cols : array.rows;
  const index_t points = loglik ? array.rows : array.cols;
  const std::string shape = std::to_string(draws) + " x " + std::to_string(points) + ", " +
                            (sizeof(T) == 4 ? "float" : "double");
  cudaStream_t stream = res.stream();
  if (loglik) {
    check_fits(static_cast<std::size_t>(draws) * points * sizeof(T), 0,
               "Phi from the log-likelihoods (" + shape + ")");
    kernels::DeviceBuffer<T> phi(draws * points);
    kernels::center_loglik(stream, array.data, points, draws, array.row_stride, array.col_stride,
                           phi.data(), bad.data());
    return phi;
  }
  const bool in_place = array.row_stride == 1 && (array.col_stride == draws || points == 1);
  if (in_place) {
    kernels::gather_strided<T>(stream, array.data, draws, points, 1, draws, nullptr, bad.data());
    return kernels::DeviceBuffer<T>::borrowed(const_cast<T*>(array.data), draws * points);
  }
  check_fits(static_cast<std::size_t>(draws) * points * sizeof(T), 0,
             "a column-major copy of Phi (" + shape + ")");
  kernels::DeviceBuffer<T> phi(draws * points);
  kernels::gather_strided(stream, array.data, draws, points, array.row_stride, array.col_stride,
                          phi.data(), bad.data());
  return phi;
}

}  // namespace

int device_of(const void* pointer, const std::string& what) {
  const cudaPointerAttributes attributes = attributes_of(pointer);
  if (!on_device(attributes)) {
    throw InvalidArgument(what +
                          " is not in CUDA device memory (a host array goes through the "
                          "host-memory overloads)");
  }
  return attributes.device;
}

template <class T>
std::vector<T> read_values(const T* values, index_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  if (on_device(attributes_of(values))) {
    // Counted like every host transfer (kernels/transfer.hpp); S values, once per solve.
    kernels::copy_to_host_async(nullptr, host.data(), values, host.size() * sizeof(T));
    CORESET_CUDA_TRY(cudaStreamSynchronize(nullptr));
  } else {
    std::copy(values, values + count, host.begin());
  }
  return host;
}

template <class T>
SolveResult solve_device_array(GpuSession& session, DeviceArrayView<T> array, bool loglik,
                               const T* y, const SolverOptions& options) {
  const auto held = session.lock();
  Resources& res = session.resources();
  if (array.stream != nullptr) {
    // The producer's queued writes first (its stream is not ours, and ours does not wait for it).
    CORESET_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(array.stream)));
  }
  kernels::DeviceBuffer<unsigned long long> bad(1);
  CORESET_CUDA_TRY(cudaMemsetAsync(bad.data(), 0xff, sizeof(unsigned long long), res.stream()));
  kernels::DeviceBuffer<T> phi = phi_from(res, array, loglik, bad);
  const index_t draws = loglik ? array.cols : array.rows;
  const index_t points = loglik ? array.rows : array.cols;
  if (const unsigned long long flat = first_flagged(res, bad); flat != kNoneBad) {
    const auto at = static_cast<index_t>(flat);
    throw InvalidArgument(loglik
                              ? "the log-likelihood matrix has a non-finite entry at datapoint " +
                                    std::to_string(at / draws) + ", draw " +
                                    std::to_string(at % draws) + " (0-based)"
                              : "Phi has a non-finite entry at row " + std::to_string(at % draws) +
                                    ", column " + std::to_string(at / draws) + " (0-based)");
  }
  CudaBackend<T> backend(res, std::move(phi), draws, points);
  auto target = backend.make_sample_vector();
  if (y != nullptr) {
    backend.upload(std::vector<T>(y, y + draws), target);
  } else {
    backend.column_sums(target);
  }
  return solvers::run_algorithm(backend, target, options);
}

template <class T>
Matrix<T> copy_to_host(GpuSession& session, DeviceArrayView<T> array) {
  const auto held = session.lock();
  Resources& res = session.resources();
  if (array.stream != nullptr) {
    CORESET_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(array.stream)));
  }
  Matrix<T> out = Matrix<T>::uninitialized(array.rows, array.cols);
  const std::size_t bytes = static_cast<std::size_t>(array.rows) * array.cols * sizeof(T);
  const bool column_major =
      array.row_stride == 1 && (array.col_stride == array.rows || array.cols == 1);
  if (column_major) {
    kernels::copy_to_host_async(res.stream(), out.data(), array.data, bytes);
    res.synchronize();
    return out;
  }
  check_fits(bytes, 0,
             "a column-major copy of the array (" + std::to_string(array.rows) + " x " +
                 std::to_string(array.cols) + ")");
  kernels::DeviceBuffer<T> packed(array.rows * array.cols);
  kernels::DeviceBuffer<unsigned long long> bad(1);  // the gather's scan, unread here
  CORESET_CUDA_TRY(cudaMemsetAsync(bad.data(), 0xff, sizeof(unsigned long long), res.stream()));
  kernels::gather_strided(res.stream(), array.data, array.rows, array.cols, array.row_stride,
                          array.col_stride, packed.data(), bad.data());
  kernels::copy_to_host_async(res.stream(), out.data(), packed.data(), bytes);
  res.synchronize();
  return out;
}

template Matrix<float> copy_to_host<float>(GpuSession&, DeviceArrayView<float>);
template Matrix<double> copy_to_host<double>(GpuSession&, DeviceArrayView<double>);
template std::vector<float> read_values<float>(const float*, index_t);
template std::vector<double> read_values<double>(const double*, index_t);
template SolveResult solve_device_array<float>(GpuSession&, DeviceArrayView<float>, bool,
                                               const float*, const SolverOptions&);
template SolveResult solve_device_array<double>(GpuSession&, DeviceArrayView<double>, bool,
                                                const double*, const SolverOptions&);

}  // namespace coreset::cuda
