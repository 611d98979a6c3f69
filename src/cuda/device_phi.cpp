#include "cuda/device_phi.hpp"

#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/error.hpp"
#include "cpu/distributed_backend.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_column_block.hpp"
#include "cuda/device_data.hpp"
#include "cuda/device_projection.hpp"
#include "cuda/resources.hpp"
#include "solvers/refit.hpp"
#include "solvers/run_algorithm.hpp"
#include "support/coreset_checks.hpp"

namespace coreset::cuda {

template <class T>
struct DevicePhi<T>::Impl {
  using Distributed = cpu::DistributedBackend<T, DeviceColumnBlock<T>>;

  std::shared_ptr<GpuSession> session;      // first: it outlives the backends, which use it
  std::unique_ptr<CudaBackend<T>> backend;  // one process: owns Phi
  kernels::DeviceBuffer<T> target;          // y = Phi 1, S entries
  double target_squared_norm = 0.0;
  // A rank's block of a distributed build: the backend owns the block; y is on the host, made
  // by the first collective that needs it (the constructor makes none).
  std::unique_ptr<Distributed> distributed;
  std::vector<T> host_target;
  bool target_made = false;

  // `use(backend, y)` on the backend that holds Phi. Call under the session's lock.
  template <class Use>
  decltype(auto) with_backend(Use&& use) {
    if (distributed == nullptr) {
      return use(*backend, target);
    }
    if (!target_made) {
      host_target = distributed->make_sample_vector();
      distributed->column_sums(host_target);
      target_squared_norm = distributed->dot(host_target, host_target);
      target_made = true;
    }
    return use(*distributed, host_target);
  }
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
DevicePhi<T>::DevicePhi(std::shared_ptr<GpuSession> session, const DeviceDataset* dataset,
                        const models::Model& model, const Eigen::MatrixXd& samples,
                        const cpu::RankColumns& rank)
    : impl_(std::make_unique<Impl>()) {
  models::validate_projection_inputs(model, samples);  // before any device call
  Impl& impl = *impl_;
  impl.session = std::move(session);
  const auto held = impl.session->lock();
  const index_t cols = dataset == nullptr ? 0 : model.rows();
  kernels::DeviceBuffer<T> phi;
  if (cols > 0) {
    phi = project_on_device<T>(impl.session->resources(), model, dataset->data(), samples);
  }
  impl.distributed = std::make_unique<typename Impl::Distributed>(
      DeviceColumnBlock<T>(*impl.session, std::move(phi), samples.rows(), cols, rank.first),
      rank.columns, *rank.comm);
}

template <class T>
DevicePhi<T>::~DevicePhi() = default;
template <class T>
DevicePhi<T>::DevicePhi(DevicePhi&&) noexcept = default;
template <class T>
DevicePhi<T>& DevicePhi<T>::operator=(DevicePhi&&) noexcept = default;

template <class T>
index_t DevicePhi<T>::rows() const noexcept {
  return impl_->distributed != nullptr ? impl_->distributed->rows() : impl_->backend->rows();
}

template <class T>
index_t DevicePhi<T>::cols() const noexcept {
  return impl_->distributed != nullptr ? impl_->distributed->cols() : impl_->backend->cols();
}

template <class T>
SolveResult DevicePhi<T>::solve(const SolverOptions& options,
                                solvers::BudgetSnapshots* snapshots) const {
  const auto held = impl_->session->lock();
  return impl_->with_backend([&](auto& backend, const auto& target) {
    // What coreset::solve's scan of a host Phi would catch: a non-finite entry of Phi makes
    // its row of y = Phi 1 non-finite, so one scalar covers all S x n (every rank alike).
    if (!std::isfinite(impl_->target_squared_norm)) {
      throw InvalidArgument(
          "y = Phi 1 is not finite (Phi has a non-finite entry, or ||y||^2 overflows the "
          "precision)");
    }
    return solvers::run_algorithm(backend, target, options, snapshots);
  });
}

template <class T>
void DevicePhi<T>::refit(const SolverSettings& options, SolveResult& result) const {
  result.objective_before_refit = result.objective;
  if (!options.refit) {
    return;
  }
  const auto held = impl_->session->lock();
  impl_->with_backend([&](auto& backend, const auto& target) {
    solvers::refit_on_support(backend, target, result);
  });
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
  return impl_->with_backend([&](auto& backend, const auto& target) {
    typename std::decay_t<decltype(backend)>::SparseDatapointVector weights;
    backend.from_host(index, value, weights);
    auto residual = backend.make_sample_vector();
    backend.phi_times(weights, residual);
    backend.subtract(target, residual, residual);
    return backend.read(backend.dot(residual, residual));
  });
}

template class DevicePhi<float>;
template class DevicePhi<double>;

}  // namespace coreset::cuda
