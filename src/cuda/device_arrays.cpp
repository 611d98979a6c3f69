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
#include "cuda/memory_plan.hpp"
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

// The first flat index the kernels flagged, read back (the stream's work done).
unsigned long long first_flagged(Resources& res,
                                 const kernels::DeviceBuffer<unsigned long long>& bad) {
  unsigned long long flat = 0;
  kernels::copy_to_host_async(res.stream(), &flat, bad.data(), sizeof flat);
  res.synchronize();
  return flat;
}

// The producer's queued writes first: its stream is not ours, and ours does not wait for it.
void wait_for_producer(void* stream) {
  if (stream != nullptr) {
    CORESET_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
}

// `array` column-major (ld = rows) on the device: the caller's memory itself when it already is
// (borrowed: never freed here), else a copy gathered there. `first_bad` (null: no scan) receives
// the flat index of the first non-finite entry either way. `what` names it in a memory error.
template <class T>
kernels::DeviceBuffer<T> column_major(Resources& res, DeviceArrayView<T> array,
                                      const std::string& what, unsigned long long* first_bad) {
  const index_t count = array.rows * array.cols;
  if (array.row_stride == 1 && (array.col_stride == array.rows || array.cols == 1)) {
    if (first_bad != nullptr) {
      kernels::gather_strided<T>(res.stream(), array.data, array.rows, array.cols, 1, array.rows,
                                 nullptr, first_bad);
    }
    return kernels::DeviceBuffer<T>::borrowed(const_cast<T*>(array.data), count);
  }
  check_fits(static_cast<std::size_t>(count) * sizeof(T), 0,
             "a column-major copy of " + what + " (" +
                 matrix_shape(array.rows, array.cols, sizeof(T)) + ")");
  kernels::DeviceBuffer<T> copy(count);
  kernels::gather_strided(res.stream(), array.data, array.rows, array.cols, array.row_stride,
                          array.col_stride, copy.data(), first_bad);
  return copy;
}

// Phi on the device in the solver's layout (S x n, ld = S), its entries scanned into `bad`: the
// caller's Phi itself or a copy (column_major), or the one centred from log-likelihoods.
template <class T>
kernels::DeviceBuffer<T> phi_from(Resources& res, DeviceArrayView<T> array, bool loglik,
                                  kernels::DeviceBuffer<unsigned long long>& bad) {
  if (!loglik) {
    return column_major(res, array, "Phi", bad.data());
  }
  const index_t draws = array.cols;
  const index_t points = array.rows;
  check_fits(static_cast<std::size_t>(draws) * points * sizeof(T), 0,
             "Phi from the log-likelihoods (" + matrix_shape(draws, points, sizeof(T)) + ")");
  kernels::DeviceBuffer<T> phi(draws * points);
  kernels::center_loglik(res.stream(), array.data, points, draws, array.row_stride,
                         array.col_stride, phi.data(), bad.data());
  return phi;
}

}  // namespace

int device_of(const void* pointer, const std::string& what) {
  const cudaPointerAttributes attributes = kernels::pointer_attributes(pointer);
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
  if (on_device(kernels::pointer_attributes(values))) {
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
  wait_for_producer(array.stream);
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
  wait_for_producer(array.stream);
  Matrix<T> out = Matrix<T>::uninitialized(array.rows, array.cols);
  const kernels::DeviceBuffer<T> packed = column_major(res, array, "the array", nullptr);
  kernels::copy_to_host_async(res.stream(), out.data(), packed.data(), packed.bytes());
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
