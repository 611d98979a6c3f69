// The GPU backend's primitives (see cuda_backend.hpp for the design) over the kernels of
// kernels/ and cuBLAS. Everything is queued on the one stream of Resources; only read(),
// read_all(), the host transfers and the once-per-solve setup wait for the device.
#include "cuda/cuda_backend.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>
#include <string>

#include "cuda/memory_plan.hpp"
#include "cuda/nvtx.hpp"
#include "kernels/check.hpp"
#include "kernels/launch.hpp"
#include "kernels/transfer.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"

namespace coreset::cuda {
namespace {

using kernels::Mask;

// cuBLAS' 64-bit gemv for each precision: y = alpha op(A) x + beta y.
void gemv(cublasHandle_t handle, cublasOperation_t op, index_t m, index_t n, const float* a,
          const float* x, float* y) {
  const float one = 1.0f;
  const float zero = 0.0f;
  CORESET_CUBLAS_TRY(cublasSgemv_64(handle, op, m, n, &one, a, m, x, 1, &zero, y, 1));
}
void gemv(cublasHandle_t handle, cublasOperation_t op, index_t m, index_t n, const double* a,
          const double* x, double* y) {
  const double one = 1.0;
  const double zero = 0.0;
  CORESET_CUBLAS_TRY(cublasDgemv_64(handle, op, m, n, &one, a, m, x, 1, &zero, y, 1));
}

// Host transfers go through kernels/transfer.hpp, which counts their bytes.
template <class U>
void copy_to_device(cudaStream_t s, U* device, const U* host, index_t count) {
  if (count > 0) {
    // From pageable memory the call returns once the data is staged, so `host` may go away.
    kernels::copy_to_device_async(s, device, host, static_cast<std::size_t>(count) * sizeof(U));
  }
}

template <class U>
void copy_to_host(cudaStream_t s, U* host, const U* device, index_t count) {
  if (count > 0) {
    kernels::copy_to_host_async(s, host, device, static_cast<std::size_t>(count) * sizeof(U));
  }
  CORESET_CUDA_TRY(cudaStreamSynchronize(s));
}

template <class U>
void copy_on_device(cudaStream_t s, U* to, const U* from, index_t count) {
  if (count > 0 && to != from) {
    CORESET_CUDA_TRY(cudaMemcpyAsync(to, from, static_cast<std::size_t>(count) * sizeof(U),
                                     cudaMemcpyDeviceToDevice, s));
  }
}

template <class U>
void zero(cudaStream_t s, U* data, index_t count) {
  if (count > 0) {
    CORESET_CUDA_TRY(cudaMemsetAsync(data, 0, static_cast<std::size_t>(count) * sizeof(U), s));
  }
}

}  // namespace

// The solver's n-sized state: about a dozen sparse vectors (values + mask), the gradient and
// other dense vectors, the top-k's candidates and tie list, the duplicate search's hash sort.
std::size_t solver_state_bytes(index_t n, std::size_t element_bytes) {
  return static_cast<std::size_t>(n) * (16 * (element_bytes + 1) + 48);
}

template <class T>
CudaBackend<T>::CudaBackend(Resources& resources, MatrixView<T> phi)
    : res_(resources), rows_(phi.rows), cols_(phi.cols) {
  const auto bytes = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_) * sizeof(T);
  check_fits(bytes, solver_state_bytes(cols_, sizeof(T)),
             "Phi (" + matrix_shape(rows_, cols_, sizeof(T)) + ")");
  phi_.resize_discard(rows_ * cols_);
  if (phi.ld == rows_) {
    // Contiguous: one plain copy (a 2D copy's pitches are capped at cudaDevAttrMaxPitch).
    copy_to_device(res_.stream(), phi_.data(), phi.data, rows_ * cols_);
  } else {
    kernels::copy_2d_to_device_async(
        res_.stream(), phi_.data(), static_cast<std::size_t>(rows_) * sizeof(T), phi.data,
        static_cast<std::size_t>(phi.ld) * sizeof(T), static_cast<std::size_t>(rows_) * sizeof(T),
        static_cast<std::size_t>(cols_));
  }
  allocate_working_state();
  res_.synchronize();  // the host matrix may be released once this returns
}

template <class T>
CudaBackend<T>::CudaBackend(Resources& resources, kernels::DeviceBuffer<T>&& phi, index_t rows,
                            index_t cols)
    : res_(resources), rows_(rows), cols_(cols), phi_(std::move(phi)) {
  // Phi is already allocated, so the free memory says whether the solver's state fits beside it.
  check_fits(0, solver_state_bytes(cols_, sizeof(T)),
             "the solver's vectors beside Phi (" + matrix_shape(rows_, cols_, sizeof(T)) + ")");
  allocate_working_state();
}

// The state every solve needs besides Phi: the empty sparse vector and the reductions' and the
// selection's scratch.
template <class T>
void CudaBackend<T>::allocate_working_state() {
  prepare(empty_, 0);
  zero(res_.stream(), empty_.value.data(), cols_);
  zero(res_.stream(), empty_.mask.data(), cols_);
  zero(res_.stream(), empty_.count.data(), 1);
  partials_.resize_discard(kernels::kReducePartials);
  histogram_.resize_discard(256);
  select_state_.resize_discard(kernels::kTopKStateBytes);
  list_count_.resize_discard(1);
}

template <class T>
typename CudaBackend<T>::SampleVector CudaBackend<T>::make_sample_vector() const {
  SampleVector v(rows_);
  zero(res_.stream(), v.data(), rows_);
  return v;
}

template <class T>
typename CudaBackend<T>::DatapointVector CudaBackend<T>::make_datapoint_vector() const {
  DatapointVector v(cols_);
  zero(res_.stream(), v.data(), cols_);
  return v;
}

template <class T>
void CudaBackend<T>::upload(const std::vector<T>& host, kernels::DeviceBuffer<T>& out) const {
  out.resize_discard(static_cast<index_t>(host.size()));
  copy_to_device(res_.stream(), out.data(), host.data(), out.size());
  res_.synchronize();
}

template <class T>
std::vector<T> CudaBackend<T>::download(const kernels::DeviceBuffer<T>& v) const {
  std::vector<T> host(static_cast<std::size_t>(v.size()));
  copy_to_host(res_.stream(), host.data(), v.data(), v.size());
  return host;
}

template <class T>
void CudaBackend<T>::download(const SparseDatapointVector& v, std::vector<index_t>& index,
                              std::vector<T>& value) const {
  const SparseDatapointVector& s = or_empty(v);
  index_t count = 0;
  copy_to_host(res_.stream(), &count, s.count.data(), 1);
  index.resize(static_cast<std::size_t>(count));
  value.resize(static_cast<std::size_t>(count));
  if (count > 0) {
    candidates_.reserve_discard(count);
    kernels::gather_list(res_.stream(), s.index.data(), s.count.data(), count, s.value.data(),
                         candidates_.data());
    copy_to_host(res_.stream(), index.data(), s.index.data(), count);
    copy_to_host(res_.stream(), value.data(), candidates_.data(), count);
  }
}

// ---- dense passes ----

template <class T>
void CudaBackend<T>::phi_t_times(const SampleVector& r, DatapointVector& out) const {
  NvtxRange range("gradient");
  gemv(res_.cublas(), CUBLAS_OP_T, rows_, cols_, phi_.data(), r.data(), out.data());
}

template <class T>
void CudaBackend<T>::phi_t_times_on_subset(const SampleVector& r,
                                           const std::vector<index_t>& subset,
                                           DatapointVector& out) const {
  NvtxRange range("gradient (batch)");
  const auto m = static_cast<index_t>(subset.size());
  zero(res_.stream(), out.data(), cols_);
  list_.reserve_discard(std::max<index_t>(m, 1));
  copy_to_device(res_.stream(), list_.data(), subset.data(), m);
  kernels::columns_dot(res_.stream(), phi_.data(), rows_, list_.data(), nullptr, m, r.data(),
                       out.data());
}

template <class T>
void CudaBackend<T>::phi_times_dense(const DatapointVector& v, SampleVector& out) const {
  gemv(res_.cublas(), CUBLAS_OP_N, rows_, cols_, phi_.data(), v.data(), out.data());
}

template <class T>
void CudaBackend<T>::column_sums(SampleVector& out) const {
  DatapointVector ones(cols_);
  kernels::fill(res_.stream(), cols_, T(1), ones.data());
  phi_times_dense(ones, out);
  res_.synchronize();  // `ones` is freed on return
}

// ---- sparse products ----

template <class T>
void CudaBackend<T>::phi_times(const SparseDatapointVector& v, SampleVector& out) const {
  const SparseDatapointVector& s = or_empty(v);
  partials_.reserve_discard(
      std::max(kernels::kReducePartials, kernels::phi_times_partials(s.bound, rows_)));
  kernels::phi_times_list(res_.stream(), phi_.data(), rows_, s.index.data(), s.count.data(),
                          s.bound, s.value.data(), partials_.data(), out.data());
}

template <class T>
void CudaBackend<T>::phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                                    SparseDatapointVector& out) const {
  const SparseDatapointVector& s = or_empty(support);
  if (&s == &out) {
    // Values on the support are overwritten below; the support itself stays.
    kernels::columns_dot(res_.stream(), phi_.data(), rows_, s.index.data(), s.count.data(), s.bound,
                         r.data(), out.value.data());
    return;
  }
  prepare(out, s.bound);
  zero(res_.stream(), out.value.data(), cols_);
  copy_on_device(res_.stream(), out.mask.data(), s.mask.data(), cols_);
  copy_on_device(res_.stream(), out.count.data(), s.count.data(), 1);
  kernels::copy_list(res_.stream(), s.index.data(), s.count.data(), s.bound, out.index.data());
  kernels::columns_dot(res_.stream(), phi_.data(), rows_, s.index.data(), s.count.data(), s.bound,
                       r.data(), out.value.data());
}

// ---- selection ----

template <class T>
void CudaBackend<T>::select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                                  const SparseDatapointVector& exclude,
                                  SparseDatapointVector& out) const {
  NvtxRange range("selection");
  const index_t take = std::max<index_t>(0, std::min(k, cols_));
  const Mask* excluded = exclude.allocated() ? exclude.mask.data() : nullptr;
  prepare(out, take);
  if (take == 0) {
    zero(res_.stream(), out.value.data(), cols_);
    zero(res_.stream(), out.mask.data(), cols_);
    zero(res_.stream(), out.count.data(), 1);
    return;
  }
  list_.reserve_discard(cols_);
  kernels::top_k(res_.stream(), res_.scratch(), cols_, v.data(),
                 rule == solvers::SelectionRule::largest_magnitude, excluded, take,
                 histogram_.data(), select_state_.data(), list_.data(), list_count_.data(),
                 out.value.data(), out.mask.data());
  compact(out);
}

// ---- host-listed supports ----

template <class T>
void CudaBackend<T>::upload_list(const std::vector<index_t>& index) const {
  const auto m = static_cast<index_t>(index.size());
  list_.reserve_discard(std::max<index_t>(m, 1));
  copy_to_device(res_.stream(), list_.data(), index.data(), m);
  copy_to_device(res_.stream(), list_count_.data(), &m, 1);  // staged before it returns
}

template <class T>
std::vector<T> CudaBackend<T>::listed_to_host(const T* dense, index_t m) const {
  std::vector<T> out(static_cast<std::size_t>(m));
  candidates_.reserve_discard(m);
  kernels::gather_list(res_.stream(), list_.data(), list_count_.data(), m, dense,
                       candidates_.data());
  copy_to_host(res_.stream(), out.data(), candidates_.data(), m);
  return out;
}

template <class T>
std::vector<T> CudaBackend<T>::values_at(const DatapointVector& v,
                                         const std::vector<index_t>& index) const {
  const auto m = static_cast<index_t>(index.size());
  if (m == 0) {
    return {};
  }
  upload_list(index);
  return listed_to_host(v.data(), m);
}

template <class T>
std::vector<T> CudaBackend<T>::column_dots(const std::vector<index_t>& index,
                                           const SampleVector& r) const {
  const auto m = static_cast<index_t>(index.size());
  if (m == 0) {
    return {};
  }
  upload_list(index);
  listed_dots_.reserve_discard(cols_);
  kernels::columns_dot(res_.stream(), phi_.data(), rows_, list_.data(), list_count_.data(), m,
                       r.data(), listed_dots_.data());
  return listed_to_host(listed_dots_.data(), m);
}

template <class T>
void CudaBackend<T>::phi_times(const std::vector<index_t>& index, const std::vector<T>& value,
                               SampleVector& out) const {
  const auto m = static_cast<index_t>(index.size());
  if (listed_weights_.empty()) {
    listed_weights_.resize_discard(cols_);
    zero(res_.stream(), listed_weights_.data(), cols_);
  }
  if (m == 0) {
    zero(res_.stream(), out.data(), rows_);
    return;
  }
  upload_list(index);
  candidates_.reserve_discard(m);
  copy_to_device(res_.stream(), candidates_.data(), value.data(), m);
  kernels::scatter(res_.stream(), list_.data(), m, candidates_.data(), listed_weights_.data(),
                   static_cast<kernels::Mask*>(nullptr));
  partials_.reserve_discard(
      std::max(kernels::kReducePartials, kernels::phi_times_partials(m, rows_)));
  kernels::phi_times_list(res_.stream(), phi_.data(), rows_, list_.data(), list_count_.data(), m,
                          listed_weights_.data(), partials_.data(), out.data());
  // All zero again for the next call: only the m entries written above change.
  kernels::scatter(res_.stream(), list_.data(), m, static_cast<const T*>(nullptr),
                   listed_weights_.data(), static_cast<kernels::Mask*>(nullptr));
}

template <class T>
void CudaBackend<T>::gather(const DatapointVector& v, const SparseDatapointVector& at,
                            SparseDatapointVector& out) const {
  const SparseDatapointVector& a = or_empty(at);
  const Mask* mask = a.mask.data();
  const index_t* index = a.index.data();
  const index_t* count = a.count.data();
  const index_t bound = a.bound;
  prepare(out, bound);
  kernels::masked_gather(res_.stream(), cols_, v.data(), mask, nullptr, out.value.data(),
                         out.mask.data());
  if (&a != &out) {
    copy_on_device(res_.stream(), out.count.data(), count, 1);
    kernels::copy_list(res_.stream(), index, count, bound, out.index.data());
  }
}

template <class T>
void CudaBackend<T>::restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                                       const SparseDatapointVector& b,
                                       SparseDatapointVector& out) const {
  const SparseDatapointVector& x = or_empty(a);
  const SparseDatapointVector& y = or_empty(b);
  const Mask* xm = x.mask.data();
  const Mask* ym = y.mask.data();
  prepare(out, std::min(cols_, x.bound + y.bound));
  kernels::masked_gather(res_.stream(), cols_, v.data(), xm, ym, out.value.data(), out.mask.data());
  compact(out);
}

// ---- sparse steps ----

template <class T>
void CudaBackend<T>::projected_step(const SparseDatapointVector& z,
                                    const SparseDatapointVector& g_on_z,
                                    const SparseDatapointVector& g_outside_z, Scalar step,
                                    index_t k, SparseDatapointVector& x) const {
  NvtxRange range("projection step");
  const SparseDatapointVector& zz = or_empty(z);
  const SparseDatapointVector& gz = or_empty(g_on_z);
  const SparseDatapointVector& go = or_empty(g_outside_z);
  candidates_.reserve_discard(cols_);
  kernels::step_candidates(res_.stream(), cols_, zz.value.data(), zz.mask.data(), gz.value.data(),
                           go.value.data(), go.mask.data(), step.slot, candidates_.data());
  const index_t take = std::max<index_t>(0, std::min(k, cols_));
  prepare(x, take);
  if (take == 0) {
    zero(res_.stream(), x.value.data(), cols_);
    zero(res_.stream(), x.mask.data(), cols_);
    zero(res_.stream(), x.count.data(), 1);
    return;
  }
  list_.reserve_discard(cols_);
  kernels::top_k(res_.stream(), res_.scratch(), cols_, candidates_.data(), false, nullptr, take,
                 histogram_.data(), select_state_.data(), list_.data(), list_count_.data(),
                 x.value.data(), x.mask.data());
  compact(x);
}

template <class T>
void CudaBackend<T>::clamped_step(const SparseDatapointVector& x, Scalar step,
                                  const SparseDatapointVector& g,
                                  SparseDatapointVector& out) const {
  const SparseDatapointVector& xx = or_empty(x);
  const SparseDatapointVector& gg = or_empty(g);
  const T* xv = xx.value.data();
  const Mask* xm = xx.mask.data();
  const T* gv = gg.value.data();
  prepare(out, xx.bound);
  kernels::clamped_step(res_.stream(), cols_, xv, xm, step.slot, gv, out.value.data(),
                        out.mask.data());
  compact(out);
}

template <class T>
void CudaBackend<T>::extrapolate(const SparseDatapointVector& next,
                                 const SparseDatapointVector& prev, Scalar tau,
                                 SparseDatapointVector& out) const {
  NvtxRange range("momentum");
  const SparseDatapointVector& a = or_empty(next);
  const SparseDatapointVector& b = or_empty(prev);
  const T* av = a.value.data();
  const Mask* am = a.mask.data();
  const T* bv = b.value.data();
  const Mask* bm = b.mask.data();
  prepare(out, std::min(cols_, a.bound + b.bound));
  kernels::extrapolate(res_.stream(), cols_, av, am, bv, bm, tau.slot, out.value.data(),
                       out.mask.data());
  compact(out);
}

template <class T>
void CudaBackend<T>::subtract(const SampleVector& a, const SampleVector& b,
                              SampleVector& out) const {
  kernels::subtract(res_.stream(), a.size(), a.data(), b.data(), out.data());
}

template <class T>
void CudaBackend<T>::subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                              SparseDatapointVector& out) const {
  const SparseDatapointVector& x = or_empty(a);
  const SparseDatapointVector& y = or_empty(b);
  const T* xv = x.value.data();
  const Mask* xm = x.mask.data();
  const T* yv = y.value.data();
  const Mask* ym = y.mask.data();
  prepare(out, std::min(cols_, x.bound + y.bound));
  kernels::subtract_sparse(res_.stream(), cols_, xv, xm, yv, ym, out.value.data(), out.mask.data());
  compact(out);
}

template <class T>
void CudaBackend<T>::copy(const SparseDatapointVector& from, SparseDatapointVector& to) const {
  if (&from == &to) {
    return;
  }
  const SparseDatapointVector& f = or_empty(from);
  prepare(to, f.bound);
  copy_on_device(res_.stream(), to.value.data(), f.value.data(), cols_);
  copy_on_device(res_.stream(), to.mask.data(), f.mask.data(), cols_);
  copy_on_device(res_.stream(), to.count.data(), f.count.data(), 1);
  copy_on_device(res_.stream(), to.index.data(), f.index.data(), f.bound);
}

template <class T>
void CudaBackend<T>::copy(const SampleVector& from, SampleVector& to) const {
  if (to.size() != from.size()) {
    to.resize_discard(from.size());
  }
  copy_on_device(res_.stream(), to.data(), from.data(), from.size());
}

template <class T>
void CudaBackend<T>::scale(double c, const DatapointVector& in, DatapointVector& out) const {
  kernels::scale(res_.stream(), in.size(), c, in.data(), out.data());
}

// ---- scalars ----

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::dot(const SampleVector& a,
                                                    const SampleVector& b) const {
  double* out = scalar();
  kernels::dot(res_.stream(), a.size(), a.data(), b.data(), partials_.data(), out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::squared_norm(const SparseDatapointVector& v) const {
  const SparseDatapointVector& s = or_empty(v);
  double* out = scalar();
  kernels::squared_norm_on_list(res_.stream(), s.index.data(), s.count.data(), s.bound,
                                s.value.data(), partials_.data(), out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::squared_distance(
    const SparseDatapointVector& a, const SparseDatapointVector& b) const {
  // Both are 0 off their supports, so the sum over all n is the sum over the union.
  double* out = scalar();
  kernels::squared_difference(res_.stream(), cols_, or_empty(a).value.data(),
                              or_empty(b).value.data(), partials_.data(), out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::line_search(Scalar numerator, Scalar denominator,
                                                            double factor) const {
  NvtxRange range("line search");
  double* out = scalar();
  kernels::line_search(res_.stream(), numerator.slot, denominator.slot, factor, out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::constant(double c) const {
  double* out = scalar();
  kernels::set_scalar(res_.stream(), c, out);
  return {out};
}

template <class T>
double CudaBackend<T>::read(Scalar s) const {
  double value = 0.0;
  read_many(&s, 1, &value);
  return value;
}

template <class T>
void CudaBackend<T>::read_many(const Scalar* list, std::size_t count, double* out) const {
  double* pinned = res_.pinned(count);
  for (std::size_t i = 0; i < count; ++i) {
    kernels::copy_to_host_async(res_.stream(), pinned + i, list[i].slot, sizeof(double));
  }
  res_.synchronize();  // one wait for all of them
  std::copy(pinned, pinned + count, out);
}

// ---- the baselines ----

template <class T>
void CudaBackend<T>::column_norms(DatapointVector& out) const {
  kernels::column_norms(res_.stream(), phi_.data(), rows_, cols_, out.data());
}

template <class T>
std::vector<index_t> CudaBackend<T>::duplicate_columns() const {
  const cudaStream_t s = res_.stream();
  kernels::DeviceBuffer<std::uint64_t> hash(cols_);
  kernels::DeviceBuffer<std::uint64_t> sorted_hash(cols_);
  kernels::DeviceBuffer<index_t> columns(cols_);
  kernels::DeviceBuffer<index_t> order(cols_);
  kernels::DeviceBuffer<Mask> flag(cols_);
  kernels::column_hashes(s, phi_.data(), rows_, cols_, hash.data());
  kernels::iota(s, cols_, columns.data());
  kernels::sort_pairs(res_.stream(), res_.scratch(), cols_, hash.data(), sorted_hash.data(),
                      columns.data(), order.data());
  kernels::mark_duplicates(s, phi_.data(), rows_, cols_, sorted_hash.data(), order.data(),
                           flag.data());
  list_.reserve_discard(cols_);
  kernels::compact(res_.stream(), res_.scratch(), cols_, flag.data(), list_.data(),
                   list_count_.data());
  index_t count = 0;
  copy_to_host(s, &count, list_count_.data(), 1);
  std::vector<index_t> duplicates(static_cast<std::size_t>(count));
  copy_to_host(s, duplicates.data(), list_.data(), count);
  return duplicates;
}

template <class T>
std::vector<std::uint64_t> CudaBackend<T>::column_hashes() const {
  kernels::DeviceBuffer<std::uint64_t> hash(cols_);
  kernels::column_hashes(res_.stream(), phi_.data(), rows_, cols_, hash.data());
  std::vector<std::uint64_t> host(static_cast<std::size_t>(cols_));
  copy_to_host(res_.stream(), host.data(), hash.data(), cols_);
  return host;
}

template <class T>
void CudaBackend<T>::zero_entries(const std::vector<index_t>& at, DatapointVector& v) const {
  if (at.empty()) {
    return;
  }
  // The driver passes the same list every iteration: upload it once.
  if (at != duplicates_host_) {
    duplicates_.resize_discard(static_cast<index_t>(at.size()));
    copy_to_device(res_.stream(), duplicates_.data(), at.data(), duplicates_.size());
    duplicates_host_ = at;
  }
  kernels::scatter<T>(res_.stream(), duplicates_.data(), duplicates_.size(), nullptr, v.data(),
                      nullptr);
}

template <class T>
template <class Rule>
solvers::ArgMax CudaBackend<T>::argmax_of(const Rule& rule, const T* const* vectors,
                                          int count) const {
  static_assert(sizeof(solvers::ArgMax) <= 2 * sizeof(double), "partials hold two doubles each");
  partials_.reserve_discard(2 * kernels::kReducePartials);
  return kernels::argmax<T, Rule>(res_.stream(), rule, vectors, count, cols_,
                                  reinterpret_cast<solvers::ArgMax*>(partials_.data()));
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::value_at(const DatapointVector& v,
                                                         index_t i) const {
  double* out = scalar();
  kernels::value_at(res_.stream(), v.data(), i, out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::sum(const DatapointVector& v) const {
  double* out = scalar();
  kernels::dot<T>(res_.stream(), v.size(), v.data(), nullptr, partials_.data(), out);
  return {out};
}

template <class T>
std::vector<double> CudaBackend<T>::to_host(const DatapointVector& v) const {
  const std::vector<T> host = download(v);
  return std::vector<double>(host.begin(), host.end());
}

template <class T>
std::vector<double> CudaBackend<T>::columns_to_host(const std::vector<index_t>& indices) const {
  const auto m = static_cast<index_t>(indices.size());
  std::vector<double> out(static_cast<std::size_t>(m * rows_));
  if (m == 0) {
    return out;
  }
  kernels::DeviceBuffer<index_t> cols(m);
  kernels::DeviceBuffer<double> gathered(m * rows_);
  copy_to_device(res_.stream(), cols.data(), indices.data(), m);
  kernels::gather_columns(res_.stream(), phi_.data(), rows_, cols.data(), m, gathered.data());
  copy_to_host(res_.stream(), out.data(), gathered.data(), m * rows_);
  return out;
}

template <class T>
void CudaBackend<T>::from_host(const std::vector<index_t>& index, const std::vector<double>& value,
                               SparseDatapointVector& out) const {
  const auto m = static_cast<index_t>(index.size());
  prepare(out, m);
  zero(res_.stream(), out.value.data(), cols_);
  zero(res_.stream(), out.mask.data(), cols_);
  if (m > 0) {
    const std::vector<T> values(value.begin(), value.end());
    kernels::DeviceBuffer<T> device_values(m);
    list_.reserve_discard(m);
    copy_to_device(res_.stream(), list_.data(), index.data(), m);
    copy_to_device(res_.stream(), device_values.data(), values.data(), m);
    kernels::scatter(res_.stream(), list_.data(), m, device_values.data(), out.value.data(),
                     out.mask.data());
    res_.synchronize();  // device_values is freed on return
  }
  compact(out);
}

template <class T>
void CudaBackend<T>::convex_step(const SparseDatapointVector& w, double gamma, index_t j,
                                 double vertex, SparseDatapointVector& out) const {
  assert(&w != &out);
  const SparseDatapointVector& ww = or_empty(w);
  prepare(out, std::min(cols_, ww.bound + 1));
  kernels::convex_step(res_.stream(), cols_, ww.value.data(), ww.mask.data(), gamma, j, vertex,
                       out.value.data(), out.mask.data());
  compact(out);
}

template <class T>
void CudaBackend<T>::scale(double c, const SparseDatapointVector& in,
                           SparseDatapointVector& out) const {
  const SparseDatapointVector& s = or_empty(in);
  const T* value = s.value.data();
  const Mask* mask = s.mask.data();
  prepare(out, s.bound);
  kernels::scale_sparse(res_.stream(), cols_, c, value, mask, out.value.data(), out.mask.data());
  compact(out);
}

template <class T>
void CudaBackend<T>::axpby(double a, const SampleVector& x, double b, const SampleVector& z,
                           SampleVector& out) const {
  kernels::axpby(res_.stream(), x.size(), a, x.data(), b, z.data(), out.data());
}

// ---- setup and results ----

template <class T>
void CudaBackend<T>::fill_unit_random(DatapointVector& v, std::uint64_t seed) const {
  // The CPU backend's draws and rounding, on the host, so both start the power iteration alike.
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal;
  std::vector<T> host(static_cast<std::size_t>(cols_));
  double norm_sq = 0.0;
  for (T& value : host) {
    value = static_cast<T>(normal(generator));
    norm_sq += static_cast<double>(value) * value;
  }
  const auto factor = static_cast<T>(1.0 / std::sqrt(norm_sq));
  for (T& value : host) {
    value *= factor;
  }
  copy_to_device(res_.stream(), v.data(), host.data(), cols_);
}

template <class T>
Coreset CudaBackend<T>::to_coreset(const SparseDatapointVector& w) const {
  std::vector<index_t> index;
  std::vector<T> value;
  download(w, index, value);
  Coreset coreset;
  for (std::size_t p = 0; p < index.size(); ++p) {
    if (value[p] > T(0)) {
      coreset.indices.push_back(index[p]);
      coreset.weights.push_back(static_cast<double>(value[p]));
    }
  }
  return coreset;
}

// ---- private ----

template <class T>
const typename CudaBackend<T>::SparseDatapointVector& CudaBackend<T>::or_empty(
    const SparseDatapointVector& s) const {
  return s.allocated() ? s : empty_;
}

template <class T>
void CudaBackend<T>::prepare(SparseDatapointVector& out, index_t bound) const {
  if (!out.allocated()) {
    out.value.resize_discard(cols_);
    out.mask.resize_discard(cols_);
    out.count.resize_discard(1);
  }
  out.index.reserve_discard(std::max<index_t>(bound, 1));
  out.bound = bound;
}

template <class T>
void CudaBackend<T>::compact(SparseDatapointVector& out) const {
  kernels::compact(res_.stream(), res_.scratch(), cols_, out.mask.data(), out.index.data(),
                   out.count.data());
}

template class CudaBackend<float>;
template class CudaBackend<double>;
template solvers::ArgMax CudaBackend<float>::argmax_of(const solvers::GigaScore&,
                                                       const float* const*, int) const;
template solvers::ArgMax CudaBackend<double>::argmax_of(const solvers::GigaScore&,
                                                        const double* const*, int) const;
template solvers::ArgMax CudaBackend<float>::argmax_of(const solvers::FrankWolfeScore&,
                                                       const float* const*, int) const;
template solvers::ArgMax CudaBackend<double>::argmax_of(const solvers::FrankWolfeScore&,
                                                        const double* const*, int) const;

}  // namespace coreset::cuda
