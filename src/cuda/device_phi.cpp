#include "cuda/device_phi.hpp"

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_data.hpp"
#include "cuda/device_projection.hpp"
#include "cuda/resources.hpp"
#include "solvers/refit.hpp"
#include "solvers/run_algorithm.hpp"
#include "support/coreset_checks.hpp"

namespace coreset::cuda {

template <class T>
struct DevicePhi<T>::Impl {
  std::shared_ptr<GpuSession> session;      // first: it outlives the backend, which uses it
  std::unique_ptr<CudaBackend<T>> backend;  // owns Phi
  kernels::DeviceBuffer<T> target;          // y = Phi 1, S entries
  double target_squared_norm = 0.0;
};

template <class T>
DevicePhi<T>::DevicePhi(const DeviceDataset& dataset, const models::Model& model,
                        const Eigen::MatrixXd& samples)
    : impl_(std::make_unique<Impl>()) {
  models::validate_projection_inputs(model, samples);  // before any device call
  Impl& impl = *impl_;
  impl.session = dataset.session();
  const auto held = impl.session->lock();
  Resources& resources = impl.session->resources();
  impl.backend = std::make_unique<CudaBackend<T>>(
      resources, project_on_device<T>(resources, model, dataset.data(), samples), samples.rows(),
      model.rows());
  CudaBackend<T>& backend = *impl.backend;
  impl.target = backend.make_sample_vector();
  backend.column_sums(impl.target);
  impl.target_squared_norm = backend.read(backend.dot(impl.target, impl.target));
}

template <class T>
DevicePhi<T>::~DevicePhi() = default;
template <class T>
DevicePhi<T>::DevicePhi(DevicePhi&&) noexcept = default;
template <class T>
DevicePhi<T>& DevicePhi<T>::operator=(DevicePhi&&) noexcept = default;

template <class T>
index_t DevicePhi<T>::rows() const noexcept {
  return impl_->backend->rows();
}

template <class T>
index_t DevicePhi<T>::cols() const noexcept {
  return impl_->backend->cols();
}

template <class T>
SolveResult DevicePhi<T>::solve(const SolverOptions& options,
                                solvers::BudgetSnapshots* snapshots) const {
  // What coreset::solve's scan of a host Phi would catch: a non-finite entry of Phi makes its
  // row of y = Phi 1 non-finite, so the one scalar read at construction covers all S x n.
  if (!std::isfinite(impl_->target_squared_norm)) {
    throw InvalidArgument(
        "y = Phi 1 is not finite (Phi has a non-finite entry, or ||y||^2 overflows the "
        "precision)");
  }
  const auto held = impl_->session->lock();
  return solvers::run_algorithm(*impl_->backend, impl_->target, options, snapshots);
}

template <class T>
void DevicePhi<T>::refit(const SolverSettings& options, SolveResult& result) const {
  result.objective_before_refit = result.objective;
  if (!options.refit) {
    return;
  }
  const auto held = impl_->session->lock();
  solvers::refit_on_support(*impl_->backend, impl_->target, result);
}

template <class T>
double DevicePhi<T>::objective(const Coreset& coreset) const {
  support::check_coreset_columns(coreset, cols());
  // The backend's sparse vectors hold each index once; coreset::objective adds repeats up.
  std::map<index_t, double> merged;
  for (std::size_t p = 0; p < coreset.indices.size(); ++p) {
    merged[coreset.indices[p]] += coreset.weights[p];
  }
  std::vector<index_t> index;
  std::vector<double> value;
  for (const auto& [j, w] : merged) {
    index.push_back(j);
    value.push_back(w);
  }
  const auto held = impl_->session->lock();
  const CudaBackend<T>& backend = *impl_->backend;
  typename CudaBackend<T>::SparseDatapointVector weights;
  backend.from_host(index, value, weights);
  auto residual = backend.make_sample_vector();
  backend.phi_times(weights, residual);
  backend.subtract(impl_->target, residual, residual);
  return backend.read(backend.dot(residual, residual));
}

template class DevicePhi<float>;
template class DevicePhi<double>;

}  // namespace coreset::cuda
