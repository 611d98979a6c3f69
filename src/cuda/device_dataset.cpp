#include "cuda/device_dataset.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <string>
#include <utility>

#include "coreset/error.hpp"
#include "cuda/device_data.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/nvtx.hpp"
#include "cuda/resources.hpp"
#include "kernels/check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/launch.hpp"
#include "kernels/link_sums_launch.hpp"
#include "kernels/transfer.hpp"

namespace coreset::cuda {
namespace {

// link_sums' scratch w (rows x (d + 1) doubles per pass): about 256 MiB, whatever d.
constexpr index_t kChunkDoubles = index_t{1} << 25;

index_t link_sum_blocks(index_t n) {
  return (n + kernels::kLinkSumRows - 1) / kernels::kLinkSumRows;
}

// Rows per pass of link_sums (a multiple of kLinkSumRows): `chunk_blocks` blocks, or (0) as
// many as kChunkDoubles of scratch allow, never more than the data has.
index_t link_sum_chunk_rows(index_t n, index_t d, index_t chunk_blocks) {
  if (chunk_blocks <= 0) {
    chunk_blocks = std::max<index_t>(1, kChunkDoubles / (d + 1) / kernels::kLinkSumRows);
  }
  return std::min(chunk_blocks, std::max<index_t>(link_sum_blocks(n), 1)) * kernels::kLinkSumRows;
}

// link_sums' scratch: w for one pass, and each block's partial d x (d + 1) + 1 sums.
std::size_t link_sum_scratch_bytes(index_t n, index_t d, index_t chunk_rows) {
  return static_cast<std::size_t>(chunk_rows * (d + 1) + link_sum_blocks(n) * (d * (d + 1) + 1)) *
         sizeof(double);
}

}  // namespace

std::size_t dataset_bytes(index_t n, index_t d) {
  return static_cast<std::size_t>(n) * static_cast<std::size_t>(d + 2) * sizeof(double) +
         link_sum_scratch_bytes(n, d, link_sum_chunk_rows(n, d, 0));
}

DeviceData upload_data(Resources& resources, const models::Model& model,
                       std::size_t working_bytes) {
  const index_t n = model.rows();
  const index_t d = model.dim();
  if (model.response.size() != n || model.offset.size() != n) {
    throw InvalidArgument("the model has " + std::to_string(n) + " design rows but " +
                          std::to_string(model.response.size()) + " responses and " +
                          std::to_string(model.offset.size()) + " offsets");
  }
  const auto n_bytes = static_cast<std::size_t>(n) * sizeof(double);
  const index_t columns = d + 1 + (model.offset.stored() ? 1 : 0);  // the responses' and offsets'
  check_fits(n_bytes * static_cast<std::size_t>(columns), working_bytes,
             "the dataset (" + std::to_string(n) + " x " + std::to_string(d) + " design)");
  DeviceData data;
  // The three arrays in one call: staged, they share the pinned buffers as one stream.
  kernels::copy_all_to_device_async(resources.stream(), sized_for(data, model));
  fill_unit_column(resources.stream(), data, model.design);
  resources.synchronize();
  return data;
}

std::vector<kernels::HostToDevice> sized_for(DeviceData& data, const models::Model& model) {
  const index_t n = model.rows();
  const models::Design& design = model.design;
  data.rows = n;
  data.dim = design.cols();
  data.design.resize_discard(std::max<index_t>(n * design.cols(), 1));
  std::vector<kernels::HostToDevice> copies;
  const auto column_bytes = static_cast<std::size_t>(n) * sizeof(double);
  if (design.stride() == n) {  // the stored columns are one array
    copies.push_back({data.design.data(), design.stored().data(),
                      column_bytes * static_cast<std::size_t>(design.stored_cols())});
  } else {
    for (index_t c = 0; c < design.stored_cols(); ++c) {
      copies.push_back({data.design.data() + c * n, design.stored().col(c).data(), column_bytes});
    }
  }
  copies.push_back(kernels::sized_for(data.response, model.response.data(), n));
  if (model.offset.stored()) {
    copies.push_back(kernels::sized_for(data.offset, model.offset.data(), n));
  } else {
    data.offset = kernels::DeviceBuffer<double>();  // none: offsets() reads the shared value
    data.shared_offset = model.offset.shared_value();
  }
  return copies;
}

void fill_unit_column(cudaStream_t stream, DeviceData& data, const models::Design& design) {
  if (design.has_unit_column()) {
    kernels::fill<double>(stream, data.rows, 1.0,
                          data.design.data() + design.stored_cols() * data.rows);
  }
}

struct DeviceDataset::Impl {
  std::shared_ptr<GpuSession> session;
  DeviceData data;
  models::Link link = models::Link::logistic;
  double noise_precision = 1.0;
  index_t chunk_rows = 0;  // rows per pass of link_sums, a multiple of kLinkSumRows
  // Reused by every call (Newton takes a few dozen): theta, w, the partials and their sum.
  mutable kernels::DeviceBuffer<double> theta;
  mutable kernels::DeviceBuffer<double> w;
  mutable kernels::DeviceBuffer<double> partials;
  mutable kernels::DeviceBuffer<double> total;
};

DeviceDataset::DeviceDataset(std::shared_ptr<GpuSession> session, const models::Model& model,
                             index_t chunk_blocks)
    : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  impl.session = std::move(session);
  impl.link = model.link;
  impl.noise_precision = model.noise_precision;
  const index_t n = model.rows();
  const index_t d = model.dim();
  impl.chunk_rows = link_sum_chunk_rows(n, d, chunk_blocks);
  const auto held = impl.session->lock();
  impl.data =
      upload_data(impl.session->resources(), model, link_sum_scratch_bytes(n, d, impl.chunk_rows));
}

DeviceDataset::~DeviceDataset() = default;

index_t DeviceDataset::rows() const noexcept {
  return impl_->data.rows;
}

index_t DeviceDataset::dim() const noexcept {
  return impl_->data.dim;
}

const std::shared_ptr<GpuSession>& DeviceDataset::session() const noexcept {
  return impl_->session;
}

const DeviceData& DeviceDataset::data() const noexcept {
  return impl_->data;
}

models::RowSums DeviceDataset::link_sums(const Eigen::VectorXd& theta, bool want_vector,
                                         bool want_matrix) const {
  const Impl& impl = *impl_;
  const index_t n = impl.data.rows;
  const index_t d = impl.data.dim;
  if (theta.size() != d) {
    throw InvalidArgument("link_sums: theta has " + std::to_string(theta.size()) +
                          " entries but the design has " + std::to_string(d) + " columns");
  }
  NvtxRange range("laplace sums");
  const auto held = impl.session->lock();
  Resources& res = impl.session->resources();
  const cudaStream_t stream = res.stream();
  constexpr index_t rows_per_block = kernels::kLinkSumRows;
  const index_t blocks = (n + rows_per_block - 1) / rows_per_block;
  // Each block's partial: the d x d matrix (column-major, ld d), then the d-vector, then the
  // value; the matrix and vector columns are one cuBLAS product's output, block^T w.
  const index_t stride = d * (d + 1) + 1;
  const index_t value_at = d * (d + 1);
  const bool products = want_vector || want_matrix;

  impl.theta.reserve_discard(std::max<index_t>(d, 1));
  kernels::copy_to_device_async(stream, impl.theta.data(), theta.data(),
                                static_cast<std::size_t>(d) * sizeof(double));
  impl.partials.reserve_discard(std::max<index_t>(blocks * stride, 1));
  impl.total.reserve_discard(stride);
  if (products) {
    impl.w.reserve_discard(impl.chunk_rows * (d + 1));
  }
  // With the matrix, w's d + 1 columns give matrix and vector in one product; the vector alone
  // is the product with w's last column, written to the partial's vector slot.
  const index_t product_cols = want_matrix ? d + 1 : 1;
  const index_t w_offset = want_matrix ? 0 : d * impl.chunk_rows;
  const index_t partial_offset = want_matrix ? 0 : d * d;
  const double one = 1.0;
  const double zero = 0.0;
  const double* design = impl.data.design.data();
  for (index_t first = 0; first < n; first += impl.chunk_rows) {
    const index_t count = std::min(impl.chunk_rows, n - first);
    const index_t first_block = first / rows_per_block;  // chunk_rows is a multiple
    kernels::link_terms(stream, design, n, d, impl.theta.data(), impl.data.response.data(),
                        impl.data.offsets(), impl.link, impl.noise_precision, first, count,
                        products, impl.w.data(), impl.chunk_rows,
                        impl.partials.data() + first_block * stride + value_at, stride);
    if (!products) {
      continue;
    }
    const index_t full = count / rows_per_block;
    const index_t tail = count - full * rows_per_block;
    const double* w = impl.w.data() + w_offset;
    double* out = impl.partials.data() + first_block * stride + partial_offset;
    // Block b of the chunk: (rows x d block of the design)^T (rows x cols of w), into its own
    // partial; the blocks are independent products, so none depends on how many run at once.
    if (full > 0) {
      CORESET_CUBLAS_TRY(cublasDgemmStridedBatched_64(
          res.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, d, product_cols, rows_per_block, &one,
          design + first, n, rows_per_block, w, impl.chunk_rows, rows_per_block, &zero, out, d,
          stride, full));
    }
    if (tail > 0) {
      const index_t offset = full * rows_per_block;
      CORESET_CUBLAS_TRY(cublasDgemm_64(res.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, d, product_cols,
                                        tail, &one, design + first + offset, n, w + offset,
                                        impl.chunk_rows, &zero, out + full * stride, d));
    }
  }
  // Only the slots this call filled are added: the matrix's are stale when it was not asked for.
  const index_t first_entry = want_matrix ? 0 : (want_vector ? d * d : value_at);
  const index_t entries = stride - first_entry;
  kernels::sum_partials(stream, impl.partials.data() + first_entry, blocks, stride, entries,
                        impl.total.data());
  Eigen::VectorXd host(stride);
  kernels::copy_to_host_async(stream, host.data() + first_entry, impl.total.data(),
                              static_cast<std::size_t>(entries) * sizeof(double));
  res.synchronize();

  models::RowSums sums;
  sums.value = host[value_at];
  if (want_vector) {
    sums.vector = host.segment(d * d, d);
  }
  if (want_matrix) {
    sums.matrix = Eigen::Map<const Eigen::MatrixXd>(host.data(), d, d);
  }
  return sums;
}

}  // namespace coreset::cuda
