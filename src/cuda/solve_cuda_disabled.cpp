// The GPU entry points of a build without CUDA: never available, and a clear error if asked.
#include <string>

#include "coreset/error.hpp"
#include "cuda/device_arrays.hpp"
#include "cuda/projection_cuda.hpp"
#include "cuda/solve_cuda.hpp"

namespace coreset::cuda {

namespace {
const char* const kNoCuda =
    "this libcoreset was built without CUDA support (CORESET_ENABLE_CUDA=OFF or no CUDA toolkit "
    "at build time)";
}  // namespace

void warm_up_device(int) noexcept {}

bool gpu_available(std::string* why_not) {
  if (why_not != nullptr) {
    *why_not = kNoCuda;
  }
  return false;
}

template <class T>
SolveResult solve_on_gpu(GpuSession&, MatrixView<T>, const T*, const SolverOptions&,
                         const cpu::RankColumns*) {
  throw DeviceError(std::string("the GPU was requested but ") + kNoCuda +
                    " (use the CPU device instead)");
}

int device_of(const void*, const std::string& what) {
  throw DeviceError(what + " is in GPU memory but " + kNoCuda);
}

template <class T>
std::vector<T> read_values(const T*, index_t) {
  throw DeviceError(std::string("a GPU array was given but ") + kNoCuda);
}

template <class T>
SolveResult solve_device_array(GpuSession&, DeviceArrayView<T>, bool, const T*,
                               const SolverOptions&) {
  throw DeviceError(std::string("a GPU array was given but ") + kNoCuda);
}

template <class T>
Matrix<T> copy_to_host(GpuSession&, DeviceArrayView<T>) {
  throw DeviceError(std::string("a GPU array was given but ") + kNoCuda);
}

template <class T>
Matrix<T> projection_on_gpu(GpuSession&, const models::Model&, const Eigen::MatrixXd&) {
  throw DeviceError(std::string("the GPU projection was requested but ") + kNoCuda);
}

template Matrix<float> projection_on_gpu<float>(GpuSession&, const models::Model&,
                                                const Eigen::MatrixXd&);
template Matrix<double> projection_on_gpu<double>(GpuSession&, const models::Model&,
                                                  const Eigen::MatrixXd&);
template Matrix<float> copy_to_host<float>(GpuSession&, DeviceArrayView<float>);
template Matrix<double> copy_to_host<double>(GpuSession&, DeviceArrayView<double>);
template std::vector<float> read_values<float>(const float*, index_t);
template std::vector<double> read_values<double>(const double*, index_t);
template SolveResult solve_device_array<float>(GpuSession&, DeviceArrayView<float>, bool,
                                               const float*, const SolverOptions&);
template SolveResult solve_device_array<double>(GpuSession&, DeviceArrayView<double>, bool,
                                                const double*, const SolverOptions&);
template SolveResult solve_on_gpu<float>(GpuSession&, MatrixView<float>, const float*,
                                         const SolverOptions&, const cpu::RankColumns*);
template SolveResult solve_on_gpu<double>(GpuSession&, MatrixView<double>, const double*,
                                          const SolverOptions&, const cpu::RankColumns*);

}  // namespace coreset::cuda
