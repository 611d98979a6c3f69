// The GPU backend's primitives (see cuda_backend.hpp for the design) over the kernels of
// kernels/ and cuBLAS. Everything is queued on the one stream of Resources; only read(),
// read_all(), the host transfers and the once-per-solve setup wait for the device.
#include "cuda/cuda_backend.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <type_traits>

#include "coreset/error.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/nvtx.hpp"
#include "kernels/check.hpp"
#include "kernels/launch.hpp"
#include "kernels/radix_select_logic.hpp"
#include "kernels/sparse_list_logic.hpp"
#include "kernels/transfer.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"
#include "solvers/fused_scalars.hpp"
#include "solvers/sparse_vector.hpp"

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

// The solver's n-sized state: the gradient and the other dense vectors, the top-k's tie list and
// exclusion mask, the duplicate search's hash sort, and the sparse vectors and merge slots, which
// are O(k) each. The plan does not know k: this covers k up to about n / 4. Near k = n the lists
// and slots can need more (about 15 T + 150 bytes a datapoint for a-iht-2), and an allocation
// that then fails mid-solve is a DeviceError like any other.
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
  zero(res_.stream(), empty_.count.data(), 1);
  partials_.resize_discard(kernels::kReducePartials);
  // The top-k's histogram and count of finished blocks are zero between selections.
  histogram_.resize_discard(2 * kernels::radix::kBins);
  zero(res_.stream(), histogram_.data(), histogram_.size());
  blocks_done_.resize_discard(1);
  zero(res_.stream(), blocks_done_.data(), 1);
  select_state_.resize_discard(2 * kernels::kTopKStateBytes);
  select_capacity_ = kernels::prepare_top_k<T>();
  // Every hint starts with no guess (its first selection makes the full passes).
  using Hint = kernels::radix::ThresholdHint<kernels::radix::key_t<T>>;
  static_assert(sizeof(Hint) <= kernels::kTopKHintBytes, "top-k hint does not fit its buffer");
  std::vector<unsigned char> fresh_hints(kHintSlots * kernels::kTopKHintBytes, 0);
  for (int slot = 0; slot < kHintSlots; ++slot) {
    Hint fresh;
    fresh.capacity = select_capacity_;
    std::memcpy(fresh_hints.data() + slot * kernels::kTopKHintBytes, &fresh, sizeof(Hint));
  }
  select_hints_.resize_discard(static_cast<index_t>(fresh_hints.size()));
  copy_to_device(res_.stream(), select_hints_.data(), fresh_hints.data(),
                 static_cast<index_t>(fresh_hints.size()));
  list_count_.resize_discard(3);
  unit_.resize_discard(2);
  set_count(unit_.data() + 1, 1);
  excluded_.resize_discard(cols_);
  zero(res_.stream(), excluded_.data(), cols_);
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
  copy_to_host(res_.stream(), index.data(), s.index.data(), count);
  copy_to_host(res_.stream(), value.data(), s.value.data(), count);
}

// ---- dense passes ----

template <class T>
void CudaBackend<T>::phi_t_times(const SampleVector& r, DatapointVector& out) const {
  NvtxRange range("gradient");
  switch (phi_t_r_kernel()) {
    case kernels::PhiTr::tiled:
      kernels::phi_t_times_tiled(res_.stream(), phi_.data(), rows_, cols_, r.data(), out.data());
      break;
    case kernels::PhiTr::streamed:
      kernels::phi_t_times_streamed(res_.stream(), phi_.data(), rows_, cols_, r.data(), out.data());
      break;
    default:
      gemv(res_.cublas(), CUBLAS_OP_T, rows_, cols_, phi_.data(), r.data(), out.data());
      break;
  }
}

template <class T>
void CudaBackend<T>::compute_phi_t_r_by(kernels::PhiTr kernel) {
  if (!kernels::phi_t_r_takes(kernel, rows_, sizeof(T))) {
    throw InvalidArgument(std::string("Phi^T r by ") + kernels::to_string(kernel) +
                          " does not take columns of " + std::to_string(rows_) + " entries");
  }
  phi_t_r_by_ = kernel;
}

template <class T>
kernels::PhiTr CudaBackend<T>::phi_t_r_kernel() const noexcept {
  return phi_t_r_by_ == kernels::PhiTr::automatic ? kernels::phi_t_r_kernel(rows_, sizeof(T))
                                                  : phi_t_r_by_;
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
                       kernels::DotsAt::column, out.data());
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
  list_product(list_of(s), s.bound, out.data());
}

template <class T>
void CudaBackend<T>::list_product(const kernels::DeviceList<T>& list, index_t bound, T* out,
                                  const T* y, T* residual) const {
  partials_.reserve_discard(std::max(kernels::kReducePartials,
                                     kernels::phi_times_partials(bound, rows_, product_chunk_)));
  kernels::phi_times_list(res_.stream(), phi_.data(), rows_, list.index, list.count, bound,
                          list.value, partials_.data(), out, y, residual, product_chunk_);
}

template <class T>
void CudaBackend<T>::phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                                    SparseDatapointVector& out) const {
  const SparseDatapointVector& s = or_empty(support);
  kernels::ListCopy copy;
  if (&s != &out) {
    prepare(out, s.bound);
    if (fuse_launches_) {
      copy = {out.index.data(), out.count.data()};  // by the launch below
    } else {
      copy_list_of(s, out);
    }
  }
  // The values are written at their positions; the support stays (or is copied).
  kernels::columns_dot(res_.stream(), phi_.data(), rows_, s.index.data(), s.count.data(), s.bound,
                       r.data(), kernels::DotsAt::position, out.value.data(), copy);
}

// ---- selection ----

template <class T>
void CudaBackend<T>::select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                                  const SparseDatapointVector& exclude,
                                  SparseDatapointVector& out) const {
  NvtxRange range("selection");
  assert(&exclude != &out);  // the exclusion mask is cleared from exclude's list afterwards
  const kernels::Mask* mask = mark_excluded(exclude);
  select_marked(v, k, rule == solvers::SelectionRule::largest_magnitude, mask, out);
  clear_excluded(exclude);
}

template <class T>
void CudaBackend<T>::select_top_k_both_rules(const DatapointVector& v, index_t k,
                                             const SparseDatapointVector& exclude,
                                             SparseDatapointVector& by_magnitude,
                                             SparseDatapointVector& positive) const {
  NvtxRange range("selections");
  assert(&exclude != &by_magnitude && &exclude != &positive && &by_magnitude != &positive);
  if (!fuse_launches_) {
    select_top_k(v, k, solvers::SelectionRule::largest_magnitude, exclude, by_magnitude);
    select_top_k(v, k, solvers::SelectionRule::largest_positive, exclude, positive);
    return;
  }
  const kernels::Mask* mask = mark_excluded(exclude);
  const index_t take = selectable(k);
  const bool hinted =
      take <= hinted_budgets_up_to_ && kernels::radix::hint_serves(cols_, take, select_capacity_);
  if (take == 0 || hinted) {  // each its own selection, with its own hint
    select_marked(v, take, true, mask, by_magnitude);
    select_marked(v, take, false, mask, positive);
  } else {
    prepare(by_magnitude, take);
    prepare(positive, take);
    kernels::top_k_both_rules(res_.stream(), res_.scratch(), cols_, v.data(), mask, take,
                              top_k_work(cols_, take, HintSlot::none),
                              {by_magnitude.index.data(), by_magnitude.count.data()},
                              {positive.index.data(), positive.count.data()});
    for (SparseDatapointVector* out : {&by_magnitude, &positive}) {
      kernels::gather_list(res_.stream(), out->index.data(), out->count.data(), take, v.data(),
                           out->value.data());
    }
  }
  clear_excluded(exclude);
}

template <class T>
const kernels::Mask* CudaBackend<T>::mark_excluded(const SparseDatapointVector& exclude) const {
  if (!exclude.allocated()) {
    return nullptr;
  }
  kernels::mark_list(res_.stream(), exclude.index.data(), exclude.count.data(), exclude.bound, 1,
                     excluded_.data());
  return excluded_.data();
}

template <class T>
void CudaBackend<T>::clear_excluded(const SparseDatapointVector& exclude) const {
  if (exclude.allocated()) {
    kernels::mark_list(res_.stream(), exclude.index.data(), exclude.count.data(), exclude.bound, 0,
                       excluded_.data());
  }
}

template <class T>
void CudaBackend<T>::select_marked(const DatapointVector& v, index_t k, bool by_magnitude,
                                   const kernels::Mask* mask, SparseDatapointVector& out) const {
  const index_t take = selectable(k);
  prepare(out, take);
  if (take == 0) {
    zero(res_.stream(), out.count.data(), 1);
    return;
  }
  // The positions of a dense vector are its indices.
  top_k(cols_, v.data(), by_magnitude, mask, take,
        by_magnitude ? HintSlot::by_magnitude : HintSlot::positive, out.index.data(),
        out.count.data());
  kernels::gather_list(res_.stream(), out.index.data(), out.count.data(), take, v.data(),
                       out.value.data());
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
  candidates_.reserve_discard(m);
  kernels::columns_dot(res_.stream(), phi_.data(), rows_, list_.data(), list_count_.data(), m,
                       r.data(), kernels::DotsAt::position, candidates_.data());
  std::vector<T> out(static_cast<std::size_t>(m));
  copy_to_host(res_.stream(), out.data(), candidates_.data(), m);
  return out;
}

template <class T>
void CudaBackend<T>::phi_times_and_residual(const SparseDatapointVector& v, const SampleVector& y,
                                            SampleVector& product, SampleVector& residual) const {
  const SparseDatapointVector& s = or_empty(v);
  list_product(list_of(s), s.bound, product.data(), y.data(), residual.data());
}

template <class T>
void CudaBackend<T>::phi_times(const std::vector<index_t>& index, const std::vector<T>& value,
                               SampleVector& out) const {
  const auto m = static_cast<index_t>(index.size());
  if (m == 0) {
    zero(res_.stream(), out.data(), rows_);
    return;
  }
  upload_list(index);
  candidates_.reserve_discard(m);
  copy_to_device(res_.stream(), candidates_.data(), value.data(), m);
  list_product({list_.data(), candidates_.data(), list_count_.data()}, m, out.data());
}

template <class T>
void CudaBackend<T>::gather(const DatapointVector& v, const SparseDatapointVector& at,
                            SparseDatapointVector& out) const {
  const SparseDatapointVector& a = or_empty(at);
  kernels::ListCopy copy;
  if (&a != &out) {
    prepare(out, a.bound);
    if (fuse_launches_) {
      copy = {out.index.data(), out.count.data()};  // by the gather
    } else {
      copy_list_of(a, out);
    }
  }
  kernels::gather_list(res_.stream(), a.index.data(), a.count.data(), a.bound, v.data(),
                       out.value.data(), copy);
}

template <class T>
void CudaBackend<T>::restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                                       const SparseDatapointVector& b,
                                       SparseDatapointVector& out) const {
  merge(kernels::sparse::GatherDense<T>{v.data()}, or_empty(a), or_empty(b), out);
}

// ---- sparse steps ----

template <class T>
void CudaBackend<T>::projected_step(const SparseDatapointVector& z,
                                    const SparseDatapointVector& g_on_z,
                                    const SparseDatapointVector& g_outside_z, Scalar step,
                                    index_t k, SparseDatapointVector& x) const {
  NvtxRange range("projection step");
  const SparseDatapointVector& zz = or_empty(z);
  const SparseDatapointVector& go = or_empty(g_outside_z);
  // The candidates, in index order (the supports are disjoint, so every slot holds one), and 0
  // in the slots past their count, which the selection never takes.
  const index_t slots = zz.bound + go.bound;
  reserve_slots(slots);
  const kernels::sparse::StepCandidates<T> candidates{or_empty(g_on_z).value.data(), step.slot};
  kernels::merge_slots(res_.stream(), candidates, list_of(zz), list_of(go), slots,
                       merged_index_.data(), merged_value_.data(), keep_.data());
  const index_t take = std::max<index_t>(0, std::min(k, slots));
  prepare(x, take);
  if (take == 0) {
    zero(res_.stream(), x.count.data(), 1);
    return;
  }
  // Positions into the candidates: ranking positions breaks ties by index too.
  positions_.reserve_discard(take);
  top_k(slots, merged_value_.data(), false, nullptr, take, HintSlot::projection, positions_.data(),
        x.count.data());
  kernels::gather_entries(res_.stream(), positions_.data(), x.count.data(), take,
                          merged_index_.data(), merged_value_.data(), x.index.data(),
                          x.value.data());
}

template <class T>
void CudaBackend<T>::clamped_step(const SparseDatapointVector& x, Scalar step,
                                  const SparseDatapointVector& g,
                                  SparseDatapointVector& out) const {
  const SparseDatapointVector& xx = or_empty(x);
  const SparseDatapointVector& gg = or_empty(g);
  map(kernels::sparse::ClampedStep<T>{gg.value.data(), step.slot}, xx, out, &gg);
}

template <class T>
void CudaBackend<T>::extrapolate(const SparseDatapointVector& next,
                                 const SparseDatapointVector& prev, Scalar tau,
                                 SparseDatapointVector& out) const {
  NvtxRange range("momentum");
  merge(kernels::sparse::Extrapolate<T>{tau.slot}, or_empty(next), or_empty(prev), out);
}

template <class T>
void CudaBackend<T>::subtract(const SampleVector& a, const SampleVector& b,
                              SampleVector& out) const {
  kernels::subtract(res_.stream(), a.size(), a.data(), b.data(), out.data());
}

template <class T>
void CudaBackend<T>::subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                              SparseDatapointVector& out) const {
  merge(kernels::sparse::Subtract<T>{}, or_empty(a), or_empty(b), out);
}

template <class T>
void CudaBackend<T>::copy(const SparseDatapointVector& from, SparseDatapointVector& to) const {
  if (&from == &to) {
    return;
  }
  const SparseDatapointVector& f = or_empty(from);
  prepare(to, f.bound);
  copy_list_of(f, to);
  copy_on_device(res_.stream(), to.value.data(), f.value.data(), f.bound);
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
  kernels::squared_norm_of_list(res_.stream(), list_of(s), s.bound, partials_.data(), out);
  return {out};
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::squared_distance(
    const SparseDatapointVector& a, const SparseDatapointVector& b) const {
  const SparseDatapointVector& x = or_empty(a);
  const SparseDatapointVector& y = or_empty(b);
  double* out = scalar();
  kernels::squared_distance_of_lists(res_.stream(), list_of(x), list_of(y), x.bound + y.bound,
                                     partials_.data(), out);
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

// The driver must find these members (solvers/fused_scalars.hpp); a signature that drifts from
// the contract's would silently leave it composing.
static_assert(solvers::fused_detail::has_gradient_line_search<CudaBackend<float>> &&
              solvers::fused_detail::has_momentum_line_search<CudaBackend<float>> &&
              solvers::fused_detail::has_progress_scalars<CudaBackend<double>> &&
              solvers::fused_detail::has_phi_times_and_residual<CudaBackend<float>>);

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::gradient_line_search(const SparseDatapointVector& g,
                                                                     const SampleVector& q,
                                                                     double factor) const {
  NvtxRange range("line search");
  const SparseDatapointVector& s = or_empty(g);
  double* out = scalar();
  if (kernels::gradient_line_search(res_.stream(), list_of(s), s.bound, q.data(), q.size(), factor,
                                    out)) {
    return {out};
  }
  return solvers::composed::gradient_line_search(*this, g, q, factor);
}

template <class T>
typename CudaBackend<T>::Scalar CudaBackend<T>::momentum_line_search(const SampleVector& r,
                                                                     const SampleVector& q,
                                                                     double factor) const {
  NvtxRange range("line search");
  double* out = scalar();
  if (kernels::momentum_line_search(res_.stream(), r.data(), q.data(), q.size(), factor, out)) {
    return {out};
  }
  return solvers::composed::momentum_line_search(*this, r, q, factor);
}

template <class T>
std::array<typename CudaBackend<T>::Scalar, 3> CudaBackend<T>::progress_scalars(
    const SampleVector& residual, const SparseDatapointVector& next,
    const SparseDatapointVector& prev) const {
  const SparseDatapointVector& x = or_empty(next);
  const SparseDatapointVector& y = or_empty(prev);
  double* objective = scalar();
  double* change = scalar();
  double* size = scalar();
  if (kernels::progress_scalars(res_.stream(), residual.data(), residual.size(), list_of(x),
                                x.bound, list_of(y), y.bound, objective, change, size)) {
    return {Scalar{objective}, Scalar{change}, Scalar{size}};
  }
  return solvers::composed::progress_scalars(*this, residual, next, prev);
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
  kernels::zero_at(res_.stream(), duplicates_.data(), duplicates_.size(), v.data());
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
  solvers::check_support(index, value.size(), cols_);
  const auto m = static_cast<index_t>(index.size());
  prepare(out, m);
  const std::vector<T> values(value.begin(), value.end());
  copy_to_device(res_.stream(), out.index.data(), index.data(), m);
  copy_to_device(res_.stream(), out.value.data(), values.data(), m);
  set_count(out.count.data(), m);
}

template <class T>
void CudaBackend<T>::convex_step(const SparseDatapointVector& w, double gamma, index_t j,
                                 double vertex, SparseDatapointVector& out) const {
  assert(&w != &out);
  // The vertex as a one-entry support: its value is never read.
  kernels::set_index(res_.stream(), j, unit_.data());
  const kernels::DeviceList<T> vertex_list{unit_.data(), nullptr, unit_.data() + 1};
  merge(kernels::sparse::ConvexStep<T>{gamma, vertex}, list_of(or_empty(w)), or_empty(w).bound,
        vertex_list, 1, out);
}

template <class T>
void CudaBackend<T>::scale(double c, const SparseDatapointVector& in,
                           SparseDatapointVector& out) const {
  map(kernels::sparse::Scale<T>{c}, or_empty(in), out);
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

// ---- tracked loops ----

template <class T>
typename CudaBackend<T>::LoopTracker CudaBackend<T>::make_loop_tracker(int done, bool z_equals_w,
                                                                       int max_iterations,
                                                                       double tolerance, index_t k,
                                                                       int capacity) const {
  LoopTracker tracker;
  // The loop's state, and beside it an idle one (already stopped) for the warm-up below.
  solvers::LoopState states[2];
  states[0].iterations = done;
  states[0].z_equals_w = z_equals_w ? 1 : 0;
  states[1].stopped_at = 1;
  tracker.state.resize_discard(2);
  copy_to_device(res_.stream(), tracker.state.data(), states, 2);
  tracker.history.resize_discard(std::max(capacity, 1));
  zero(res_.stream(), tracker.history.data(), tracker.history.size());
  prepare(tracker.stopped, k);  // the room track() needs, made before any recording
  zero(res_.stream(), tracker.stopped.count.data(), 1);
  tracker.max_iterations = max_iterations;
  tracker.tolerance = tolerance;
  // The two kernels only a tracked loop runs, launched once now on the idle state, where they
  // change nothing: their code is then loaded (lazily, or compiled from PTX on a newer GPU)
  // before a recording, inside which loading may not be allowed.
  solvers::LoopState* idle = tracker.state.data() + 1;
  const double* zeros = tracker.history.data();
  kernels::track_iteration(res_.stream(), idle, zeros, zeros, zeros, tolerance, max_iterations,
                           tracker.history.data(), static_cast<int>(tracker.history.size()));
  kernels::keep_if_stopped(res_.stream(), idle, list_of(tracker.stopped), 1,
                           tracker.stopped.index.data(), tracker.stopped.value.data(),
                           tracker.stopped.count.data());
  res_.synchronize();
  return tracker;
}

template <class T>
void CudaBackend<T>::track(LoopTracker& tracker, Scalar f, Scalar change_squared,
                           Scalar size_squared, const SparseDatapointVector& w) const {
  kernels::track_iteration(res_.stream(), tracker.state.data(), f.slot, change_squared.slot,
                           size_squared.slot, tracker.tolerance, tracker.max_iterations,
                           tracker.history.data(), static_cast<int>(tracker.history.size()));
  const SparseDatapointVector& from = or_empty(w);
  prepare(tracker.stopped, from.bound);
  kernels::keep_if_stopped(res_.stream(), tracker.state.data(), list_of(from), from.bound,
                           tracker.stopped.index.data(), tracker.stopped.value.data(),
                           tracker.stopped.count.data());
}

template <class T>
solvers::LoopLook CudaBackend<T>::read(const LoopTracker& tracker) const {
  // The state and the history through the pinned staging buffer: two copies, one wait.
  constexpr std::size_t state_slots =
      (sizeof(solvers::LoopState) + sizeof(double) - 1) / sizeof(double);
  const auto ring = static_cast<std::size_t>(tracker.history.size());
  double* staging = res_.pinned(state_slots + ring);
  kernels::copy_to_host_async(res_.stream(), staging, tracker.state.data(),
                              sizeof(solvers::LoopState));
  kernels::copy_to_host_async(res_.stream(), staging + state_slots, tracker.history.data(),
                              ring * sizeof(double));
  res_.synchronize();
  solvers::LoopLook look;
  // Plain data (ints and a double; only its default member values make it non-trivial to
  // construct), so its bytes may be copied in.
  static_assert(std::is_trivially_copyable_v<solvers::LoopState>);
  std::memcpy(static_cast<void*>(&look.state), staging, sizeof(solvers::LoopState));
  look.history.assign(staging + state_slots, staging + state_slots + ring);
  return look;
}

// ---- private ----

template <class T>
const typename CudaBackend<T>::SparseDatapointVector& CudaBackend<T>::or_empty(
    const SparseDatapointVector& s) const {
  return s.allocated() ? s : empty_;
}

namespace {

// Room for `needed` entries, growing at least twofold (up to `cap`) when it grows at all, so
// that a support growing by one per step (GIGA, Frank-Wolfe) reallocates O(log k) times, not k
// (each reallocation's cudaFree waits for the device).
template <class U>
void grow(kernels::DeviceBuffer<U>& buffer, index_t needed, index_t cap) {
  needed = std::max<index_t>(needed, 1);
  if (needed > buffer.size()) {
    buffer.resize_discard(std::max(needed, std::min(2 * buffer.size(), cap)));
  }
}

}  // namespace

template <class T>
void CudaBackend<T>::prepare(SparseDatapointVector& out, index_t bound) const {
  grow(out.index, bound, cols_);
  grow(out.value, bound, cols_);
  out.count.reserve_discard(1);
  out.bound = bound;
}

template <class T>
kernels::DeviceList<T> CudaBackend<T>::list_of(const SparseDatapointVector& v) const {
  return {v.index.data(), v.value.data(), v.count.data()};
}

template <class T>
void CudaBackend<T>::copy_list_of(const SparseDatapointVector& from,
                                  SparseDatapointVector& to) const {
  copy_on_device(res_.stream(), to.index.data(), from.index.data(), from.bound);
  copy_on_device(res_.stream(), to.count.data(), from.count.data(), 1);
}

template <class T>
void CudaBackend<T>::set_count(index_t* count, index_t value) const {
  // Staged from pageable memory before the call returns, so `value` may go.
  copy_to_device(res_.stream(), count, &value, 1);
}

// Whether `list` reads out's storage (then preparing `out` for a launch that reads `list` could
// free it first).
template <class T>
bool CudaBackend<T>::holds(const SparseDatapointVector& out, const kernels::DeviceList<T>& list) {
  return out.allocated() && (list.index == out.index.data() || list.value == out.value.data() ||
                             list.count == out.count.data());
}

template <class T>
bool CudaBackend<T>::in_one_launch(index_t slots, const SparseDatapointVector& out,
                                   std::initializer_list<kernels::DeviceList<T>> reads) const {
  if (!fuse_launches_ || slots <= 0 || slots > kernels::kOneLaunchSlots) {
    return false;
  }
  return std::none_of(reads.begin(), reads.end(),
                      [&](const kernels::DeviceList<T>& list) { return holds(out, list); });
}

template <class T>
void CudaBackend<T>::reserve_slots(index_t slots) const {
  // A union of two supports has at most 2n slots.
  grow(merged_index_, slots, 2 * cols_);
  grow(merged_value_, slots, 2 * cols_);
  grow(keep_, slots, 2 * cols_);
}

template <class T>
template <class Step>
void CudaBackend<T>::merge(const Step& step, kernels::DeviceList<T> a, index_t a_bound,
                           kernels::DeviceList<T> b, index_t b_bound,
                           SparseDatapointVector& out) const {
  const index_t slots = a_bound + b_bound;
  if (unions_in_one_launch_ && in_one_launch(slots, out, {a, b})) {
    prepare(out, std::min(cols_, slots));
    kernels::merge_compacted(res_.stream(), step, a, b, slots, out.index.data(), out.value.data(),
                             out.count.data());
    return;
  }
  // Into the slots first, then into `out`: `out` may be one of the inputs. Two launches by
  // default: the one-launch union of d8c69d2 took longer than two (kernels/launch.hpp).
  reserve_slots(slots);
  kernels::merge_slots(res_.stream(), step, a, b, slots, merged_index_.data(), merged_value_.data(),
                       keep_.data());
  prepare(out, std::min(cols_, slots));
  compact_slots(slots, out);
}

template <class T>
template <class Step>
void CudaBackend<T>::merge(const Step& step, const SparseDatapointVector& a,
                           const SparseDatapointVector& b, SparseDatapointVector& out) const {
  merge(step, list_of(a), a.bound, list_of(b), b.bound, out);
}

template <class T>
template <class Step>
void CudaBackend<T>::map(const Step& step, const SparseDatapointVector& in,
                         SparseDatapointVector& out, const SparseDatapointVector* reads) const {
  const index_t slots = in.bound;
  const kernels::DeviceList<T> read = list_of(reads != nullptr ? *reads : in);
  if (in_one_launch(slots, out, {list_of(in), read})) {
    prepare(out, slots);
    kernels::map_compacted(res_.stream(), step, list_of(in), slots, out.index.data(),
                           out.value.data(), out.count.data());
    return;
  }
  reserve_slots(slots);
  kernels::map_slots(res_.stream(), step, list_of(in), slots, merged_index_.data(),
                     merged_value_.data(), keep_.data());
  prepare(out, slots);
  compact_slots(slots, out);
}

template <class T>
void CudaBackend<T>::compact_slots(index_t slots, SparseDatapointVector& out) const {
  if (slots == 0) {
    zero(res_.stream(), out.count.data(), 1);
    return;
  }
  kernels::compact_entries(res_.stream(), res_.scratch(), slots, merged_index_.data(),
                           merged_value_.data(), keep_.data(), out.index.data(), out.value.data(),
                           out.count.data());
}

template <class T>
kernels::TopKWork CudaBackend<T>::top_k_work(index_t n, index_t k, HintSlot hint) const {
  above_.reserve_discard(k);
  list_.reserve_discard(n);
  unsigned char* hint_bytes = nullptr;
  if (hint != HintSlot::none && k <= hinted_budgets_up_to_) {
    hint_bytes = select_hints_.data() + static_cast<int>(hint) * kernels::kTopKHintBytes;
  }
  kernels::TopKWork work{histogram_.data(), blocks_done_.data(), select_state_.data(),
                         above_.data(),     list_.data(),        list_count_.data(),
                         hint_bytes,        res_.body_stream(),  select_capacity_};
  work.second_histogram = histogram_.data() + kernels::radix::kBins;
  work.second_state = select_state_.data() + kernels::kTopKStateBytes;
  return work;
}

template <class T>
void CudaBackend<T>::top_k(index_t n, const T* v, bool by_magnitude, const kernels::Mask* exclude,
                           index_t k, HintSlot hint, index_t* positions, index_t* count) const {
  kernels::top_k(res_.stream(), res_.scratch(), n, v, by_magnitude, exclude, k,
                 top_k_work(n, k, hint), positions, count);
}

template <class T>
typename CudaBackend<T>::SelectionCounts CudaBackend<T>::selection_counts() const {
  using Hint = kernels::radix::ThresholdHint<kernels::radix::key_t<T>>;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(select_hints_.size()));
  copy_to_host(res_.stream(), bytes.data(), select_hints_.data(), select_hints_.size());
  SelectionCounts counts;
  for (int slot = 0; slot < kHintSlots; ++slot) {
    Hint hint;
    std::memcpy(&hint, bytes.data() + slot * kernels::kTopKHintBytes, sizeof(Hint));
    counts.by_candidates += hint.candidate_selections;
    counts.full += hint.full_selections;
  }
  return counts;
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
