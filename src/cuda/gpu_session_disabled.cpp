// The GPU session and the device Phi of a build without CUDA: the execution context never
// resolves to the GPU here (gpu_available() is false), so these only say so if reached.
#include <string>

#include "coreset/error.hpp"
#include "cuda/device_dataset.hpp"
#include "cuda/device_phi.hpp"
#include "cuda/gpu_session.hpp"
#include "cuda/memory_plan.hpp"

namespace coreset::cuda {

// Never created: the session's owner needs a complete type to destroy its (null) pointer.
class Resources {};

namespace {
[[noreturn]] void no_cuda(const std::string& what) {
  throw DeviceError(what +
                    " needs the GPU, but this libcoreset was built without CUDA support "
                    "(CORESET_ENABLE_CUDA=OFF or no CUDA toolkit at build time)");
}
}  // namespace

TransferBytes transferred_bytes() noexcept {
  return {};
}

GpuSession::GpuSession(int device) : device_(device) {}
GpuSession::~GpuSession() = default;
std::unique_lock<std::mutex> GpuSession::lock() {
  return std::unique_lock<std::mutex>(mutex_);
}
Resources& GpuSession::resources() {
  no_cuda("a GPU session");
}

struct DeviceData {};
struct DeviceDataset::Impl {
  std::shared_ptr<GpuSession> session;
  DeviceData data;
};
DeviceDataset::DeviceDataset(std::shared_ptr<GpuSession>, const models::Model&, index_t) {
  no_cuda("the device dataset");
}
DeviceDataset::~DeviceDataset() = default;
index_t DeviceDataset::rows() const noexcept {
  return 0;
}
index_t DeviceDataset::dim() const noexcept {
  return 0;
}
models::RowSums DeviceDataset::link_sums(const Eigen::VectorXd&, bool, bool) const {
  no_cuda("the device Laplace sums");
}
const std::shared_ptr<GpuSession>& DeviceDataset::session() const noexcept {
  return impl_->session;
}
const DeviceData& DeviceDataset::data() const noexcept {
  return impl_->data;
}

template <class T>
struct DevicePhi<T>::Impl {};

template <class T>
DevicePhi<T>::DevicePhi(const DeviceDataset&, const models::Model&, const Eigen::MatrixXd&) {
  no_cuda("the GPU projection");
}
template <class T>
DevicePhi<T>::DevicePhi(std::shared_ptr<GpuSession>, const DeviceDataset*, const models::Model&,
                        const Eigen::MatrixXd&, const cpu::RankColumns&) {
  no_cuda("the GPU projection");
}
template <class T>
DevicePhi<T>::~DevicePhi() = default;
template <class T>
DevicePhi<T>::DevicePhi(DevicePhi&&) noexcept = default;
template <class T>
DevicePhi<T>& DevicePhi<T>::operator=(DevicePhi&&) noexcept = default;
template <class T>
index_t DevicePhi<T>::rows() const noexcept {
  return 0;
}
template <class T>
index_t DevicePhi<T>::cols() const noexcept {
  return 0;
}
template <class T>
SolveResult DevicePhi<T>::solve(const SolverOptions&, solvers::BudgetSnapshots*) const {
  no_cuda("a solve on a device Phi");
}
template <class T>
void DevicePhi<T>::refit(const SolverSettings&, SolveResult&) const {
  no_cuda("a refit on a device Phi");
}
template <class T>
double DevicePhi<T>::objective(const Coreset&) const {
  no_cuda("an objective on a device Phi");
}

template class DevicePhi<float>;
template class DevicePhi<double>;

std::size_t dataset_bytes(index_t, index_t) {
  no_cuda("the device memory plan");
}
std::size_t projection_scratch_bytes(index_t, index_t, index_t) {
  no_cuda("the device memory plan");
}
std::size_t solver_state_bytes(index_t, std::size_t) {
  no_cuda("the device memory plan");
}
void check_gpu_build_fits(GpuSession&, index_t, index_t, index_t, std::size_t) {
  no_cuda("the device memory check");
}

}  // namespace coreset::cuda
