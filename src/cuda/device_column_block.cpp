#include "cuda/device_column_block.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "kernels/transfer.hpp"

namespace coreset::cuda {

template <class T>
DeviceColumnBlock<T>::DeviceColumnBlock(GpuSession& session, MatrixView<T> phi, index_t first)
    : rows_(phi.rows), cols_(phi.cols), first_(first) {
  if (cols_ > 0) {
    local_ = std::make_unique<CudaBackend<T>>(session.resources(), phi);
    partial_ = local_->make_sample_vector();
  }
}

template <class T>
DeviceColumnBlock<T>::DeviceColumnBlock(GpuSession& session, kernels::DeviceBuffer<T>&& phi,
                                        index_t rows, index_t cols, index_t first)
    : rows_(rows), cols_(cols), first_(first) {
  if (cols_ > 0) {
    local_ = std::make_unique<CudaBackend<T>>(session.resources(), std::move(phi), rows, cols);
    partial_ = local_->make_sample_vector();
  }
}

template <class T>
typename DeviceColumnBlock<T>::Dense DeviceColumnBlock<T>::make_dense() const {
  return empty() ? Dense() : local_->make_datapoint_vector();
}

// ---- dense passes ----

template <class T>
void DeviceColumnBlock<T>::phi_t_times(const std::vector<T>& r, Dense& out) const {
  if (!empty()) {
    local_->phi_t_times(on_device(r), out);
  }
}

template <class T>
void DeviceColumnBlock<T>::phi_t_times_on_subset(const std::vector<T>& r,
                                                 const std::vector<index_t>& local,
                                                 Dense& out) const {
  if (!empty()) {
    local_->phi_t_times_on_subset(on_device(r), local, out);
  }
}

template <class T>
void DeviceColumnBlock<T>::column_norms(Dense& out) const {
  if (!empty()) {
    local_->column_norms(out);
  }
}

template <class T>
void DeviceColumnBlock<T>::zero_entries(const std::vector<index_t>& local, Dense& v) const {
  if (!empty()) {
    local_->zero_entries(local, v);
  }
}

template <class T>
void DeviceColumnBlock<T>::scale(double c, const Dense& in, Dense& out) const {
  if (!empty()) {
    local_->scale(c, in, out);
  }
}

template <class T>
void DeviceColumnBlock<T>::top_k(const Dense& v, index_t k, solvers::SelectionRule rule,
                                 const std::vector<index_t>& local_exclude,
                                 std::vector<index_t>& index, std::vector<T>& value) const {
  index.clear();
  value.clear();
  if (empty() || k < 1) {
    return;
  }
  local_->select_top_k(v, k, rule, support_of(local_exclude), result_);
  local_->download(result_, index, value);  // ascending indices
}

// ---- entries and columns ----

template <class T>
std::vector<T> DeviceColumnBlock<T>::values_at(const Dense& v,
                                               const std::vector<index_t>& local) const {
  if (empty() || local.empty()) {
    return {};
  }
  return local_->values_at(v, local);
}

template <class T>
std::vector<T> DeviceColumnBlock<T>::column_dots(const std::vector<index_t>& local,
                                                 const std::vector<T>& r) const {
  if (empty() || local.empty()) {
    return {};
  }
  return local_->column_dots(local, on_device(r));
}

template <class T>
void DeviceColumnBlock<T>::upload(const std::vector<T>& host, Dense& out) const {
  if (!empty()) {
    local_->upload(host, out);
  }
}

template <class T>
std::vector<double> DeviceColumnBlock<T>::to_host(const Dense& v) const {
  return empty() ? std::vector<double>() : local_->to_host(v);
}

template <class T>
std::vector<T> DeviceColumnBlock<T>::columns(const std::vector<index_t>& local) const {
  if (empty() || local.empty()) {
    return {};
  }
  const std::vector<double> columns = local_->columns_to_host(local);  // exact: T to double
  return std::vector<T>(columns.begin(), columns.end());
}

template <class T>
std::vector<std::uint64_t> DeviceColumnBlock<T>::column_hashes() const {
  return empty() ? std::vector<std::uint64_t>() : local_->column_hashes();
}

// ---- partial sums ----

template <class T>
void DeviceColumnBlock<T>::add_phi_times_dense(const Dense& v, cpu::ExactSums& acc) const {
  if (!empty()) {
    local_->phi_times_dense(v, partial_);
    add_partial(partial_, acc);
  }
}

template <class T>
void DeviceColumnBlock<T>::add_phi_times(const solvers::SparseVector<T>& v,
                                         cpu::ExactSums& acc) const {
  if (empty()) {
    return;
  }
  const auto begin = std::lower_bound(v.index.begin(), v.index.end(), first_);
  const auto end = std::lower_bound(begin, v.index.end(), first_ + cols_);
  if (begin == end) {
    return;
  }
  std::vector<index_t> local;
  std::vector<T> value;
  for (auto it = begin; it != end; ++it) {
    local.push_back(*it - first_);
    value.push_back(v.value[static_cast<std::size_t>(it - v.index.begin())]);
  }
  local_->phi_times(local, value, partial_);
  add_partial(partial_, acc);
}

template <class T>
void DeviceColumnBlock<T>::add_dot(const Dense& a, const Dense& b, support::ExactSum& acc) const {
  if (!empty()) {
    acc.add(local_->read(local_->dot(a, b)));
  }
}

template <class T>
void DeviceColumnBlock<T>::add_sum(const Dense& v, support::ExactSum& acc) const {
  if (!empty()) {
    acc.add(local_->read(local_->sum(v)));
  }
}

// ---- private ----

// The S-sized messages of the distributed solve cross the bus through the session's pinned host
// buffer (Resources::pinned): one DMA each way, no staging by the driver, and the pinned buffer
// is free again once the stream has synchronised.
template <class T>
const kernels::DeviceBuffer<T>& DeviceColumnBlock<T>::on_device(const std::vector<T>& r) const {
  Resources& res = local_->resources();
  const std::size_t bytes = r.size() * sizeof(T);
  void* staging = res.pinned((bytes + sizeof(double) - 1) / sizeof(double));
  std::memcpy(staging, r.data(), bytes);
  r_.resize_discard(static_cast<index_t>(r.size()));
  kernels::copy_to_device_async(res.stream(), r_.data(), staging, bytes);
  res.synchronize();
  return r_;
}

template <class T>
const DeviceSparse<T>& DeviceColumnBlock<T>::support_of(const std::vector<index_t>& local) const {
  local_->from_host(local, std::vector<double>(local.size(), 1.0), support_);
  return support_;
}

template <class T>
void DeviceColumnBlock<T>::add_partial(const kernels::DeviceBuffer<T>& partial,
                                       cpu::ExactSums& acc) const {
  Resources& res = local_->resources();
  const std::size_t bytes = acc.size() * sizeof(T);
  void* staging = res.pinned((bytes + sizeof(double) - 1) / sizeof(double));
  kernels::copy_to_host_async(res.stream(), staging, partial.data(), bytes);
  res.synchronize();
  std::vector<T> host(acc.size());
  std::memcpy(host.data(), staging, bytes);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    acc[i].add(static_cast<double>(host[i]));
  }
}

template class DeviceColumnBlock<float>;
template class DeviceColumnBlock<double>;

}  // namespace coreset::cuda
