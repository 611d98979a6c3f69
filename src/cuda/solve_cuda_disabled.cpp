// The GPU entry points of a build without CUDA: never available, and a clear error if asked.
#include <string>

#include "coreset/error.hpp"
#include "cuda/projection_cuda.hpp"
#include "cuda/solve_cuda.hpp"

namespace coreset::cuda {

namespace {
const char* const kNoCuda =
    "this libcoreset was built without CUDA support (CORESET_ENABLE_CUDA=OFF or no CUDA toolkit "
    "at build time)";
}  // namespace

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

template <class T>
Matrix<T> projection_on_gpu(GpuSession&, const models::Model&, const Eigen::MatrixXd&) {
  throw DeviceError(std::string("the GPU projection was requested but ") + kNoCuda);
}

template Matrix<float> projection_on_gpu<float>(GpuSession&, const models::Model&,
                                                const Eigen::MatrixXd&);
template Matrix<double> projection_on_gpu<double>(GpuSession&, const models::Model&,
                                                  const Eigen::MatrixXd&);
template SolveResult solve_on_gpu<float>(GpuSession&, MatrixView<float>, const float*,
                                         const SolverOptions&, const cpu::RankColumns*);
template SolveResult solve_on_gpu<double>(GpuSession&, MatrixView<double>, const double*,
                                          const SolverOptions&, const cpu::RankColumns*);

}  // namespace coreset::cuda
