#include "cuda/recorded_work.hpp"

#include <utility>

#include "kernels/check.hpp"

namespace coreset::cuda {

RecordedWork::RecordedWork(RecordedWork&& other) noexcept
    : exec_(std::exchange(other.exec_, nullptr)), nodes_(std::exchange(other.nodes_, 0)) {}

RecordedWork& RecordedWork::operator=(RecordedWork&& other) noexcept {
  if (this != &other) {
    if (exec_ != nullptr) {
      cudaGraphExecDestroy(exec_);
    }
    exec_ = std::exchange(other.exec_, nullptr);
    nodes_ = std::exchange(other.nodes_, 0);
  }
  return *this;
}

RecordedWork::~RecordedWork() {
  if (exec_ != nullptr) {
    cudaGraphExecDestroy(exec_);  // an error here could only repeat an earlier one
  }
}

void RecordedWork::launch(cudaStream_t stream, int times) const {
  for (int i = 0; i < times; ++i) {
    CORESET_CUDA_TRY(cudaGraphLaunch(exec_, stream));
  }
}

RecordedWork::Capture::Capture(cudaStream_t stream) : stream_(stream) {
  CORESET_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
}

RecordedWork::Capture::~Capture() {
  if (open_) {
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(stream_, &graph) == cudaSuccess && graph != nullptr) {
      cudaGraphDestroy(graph);
    }
    cudaGetLastError();  // the capture's own failure was already thrown; clear it
  }
}

RecordedWork RecordedWork::Capture::finish() {
  open_ = false;
  cudaGraph_t graph = nullptr;
  CORESET_CUDA_TRY(cudaStreamEndCapture(stream_, &graph));
  RecordedWork work;
  const cudaError_t counted = cudaGraphGetNodes(graph, nullptr, &work.nodes_);
  const cudaError_t made =
      counted == cudaSuccess ? cudaGraphInstantiate(&work.exec_, graph, 0) : counted;
  cudaGraphDestroy(graph);
  CORESET_CUDA_TRY(made);
  return work;
}

}  // namespace coreset::cuda
