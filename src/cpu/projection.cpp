// The projection Phi of spec 1.3. The log-likelihood of datapoint n at sample j is
//     L_n(theta_j) = ell(z_n . theta_j, y_n) - 1/2 theta_j^T Q theta_j + c_n,
// so a block of Phi's columns is one matrix product samples * design_block^T followed by one
// pass per column (link, shared quadratic, sum) and the centring. The offset c_n is constant
// over the samples, so the centring removes it exactly and it is never added.
#include "cpu/projection.hpp"
#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "coreset/error.hpp"
#include "cpu/simd/columns.hpp"
#include "cpu/solve_cpu.hpp"
#include "models/link.hpp"
#include "models/simd/log_sigmoid.hpp"
#include "support/memory.hpp"
#include "support/non_finite.hpp"
#include "support/progress.hpp"
#include "support/threads.hpp"
#include "support/transpose.hpp"

namespace coreset::cpu {
namespace {

// A block of datapoints is S x width doubles, sized to stay in a core's L2 cache (512 KiB)
// between the product that writes it and the link and centring passes that rewrite it, so
// Phi's memory is written once. Blocks depend only on S and n, never on the thread count.
constexpr index_t kBlockBytes = index_t{512} << 10;
static_assert(kReductionBlock % 8 == 0 && (kReductionBlock & (kReductionBlock - 1)) == 0,
              "projection blocks are powers of two from 8 that divide kReductionBlock");

using ColumnMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

/// The block of datapoints [first, first + width) at every sample, before centring:
/// out[i * s + j] = ell(z_(first+i) . theta_j, y_(first+i)) - quadratic[j] (quadratic may be null).
/// The logistic link is log sigma(y a) and y (z . theta) = (y z) . theta, so the labels are folded
/// into the block's rows before the product (for labels +-1, as make_model makes them, bit for bit
/// the same: a sign change is exact) and the vector link runs once over the whole contiguous block,
/// paying its setup and padded tail once per block instead of per column. It is the only link
/// whose value costs transcendental functions per entry.
void link_block(const Model& model, const Eigen::MatrixXd& samples, index_t first, index_t width,
                const double* quadratic, double* out, Eigen::MatrixXd& rows) {
  const index_t s = samples.rows();
  const bool logistic = model.link == models::Link::logistic;
  Eigen::Map<ColumnMajor> block(out, s, width);
  // The block's rows, copied (with the intercept's ones: models/design.hpp) where the product
  // reads them; for the logistic link, times the labels.
  model.design.copy_rows(first, width, rows);
  if (logistic) {
    rows.array().colwise() *= model.response.segment(first, width).array();
    block.noalias() = samples * rows.transpose();
    models::simd::log_sigmoid(out, out, s * width);
  } else {
    block.noalias() = samples * rows.transpose();
  }
  if (logistic && quadratic == nullptr) {
    return;
  }
  for (index_t i = 0; i < width; ++i) {  // column by column, each in L1 for both passes
    double* column = out + i * s;
    if (!logistic) {
      const double y = model.response(first + i);
      for (index_t j = 0; j < s; ++j) {
        column[j] = link_value(model.link, column[j], y, model.noise_precision);
      }
    }
    if (quadratic != nullptr) {
      for (index_t j = 0; j < s; ++j) {
        column[j] -= quadratic[j];
      }
    }
  }
}

}  // namespace

index_t projection_block_width(index_t samples) {
  const index_t fits = std::clamp<index_t>(
      kBlockBytes / (std::max<index_t>(samples, 1) * static_cast<index_t>(sizeof(double))), 8,
      kReductionBlock);
  // A power of two, so that it divides kReductionBlock: a rank's datapoints of a distributed
  // build start at a multiple of that, hence on a block boundary, and every block is the very
  // product and pass one process computes (the same bits, whatever the split).
  index_t width = 8;
  while (width * 2 <= fits) {
    width *= 2;
  }
  return width;
}

template <class T>
double column_sum(const T* values, index_t count) {
  // Four interleaved partial sums: one dependent add per four values keeps the adder busy (a
  // single running sum costs the add's latency per value).
  double partial[4] = {0.0, 0.0, 0.0, 0.0};
  index_t i = 0;
  for (; i + 4 <= count; i += 4) {
    for (int lane = 0; lane < 4; ++lane) {
      partial[lane] += static_cast<double>(values[i + lane]);
    }
  }
  for (; i < count; ++i) {
    partial[i % 4] += static_cast<double>(values[i]);
  }
  return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

template <class T>
void center_and_scale(T* values, index_t count) {
  if (count < 1) {
    return;
  }
  const double scale = cpu::simd::centring_scale(count);
  if constexpr (std::is_same_v<T, double>) {  // the model projection's own pass, one column wide
    double mean = 0.0;
    cpu::simd::column_means(values, count, 1, &mean);
    cpu::simd::subtract_and_scale(values, count, 1, &mean, scale, values);
  } else {
    // In double, so a float column is rounded once, at the end, as the model projection's is.
    const double mean = column_sum(values, count) / static_cast<double>(count);
    for (index_t i = 0; i < count; ++i) {
      values[i] = static_cast<T>(cpu::simd::centred(static_cast<double>(values[i]), mean, scale));
    }
  }
}

template <class T>
Matrix<T> projection(const Model& model, const Eigen::MatrixXd& samples, int threads,
                     ProgressObserver* progress, std::optional<DatapointRange> columns) {
  Matrix<T> phi;
  projection_into(model, samples, threads, phi, progress, columns);
  return phi;
}

template <class T>
void projection_into(const Model& model, const Eigen::MatrixXd& samples, int threads,
                     Matrix<T>& phi, ProgressObserver* progress,
                     std::optional<DatapointRange> columns) {
  models::validate_projection_inputs(model, samples);
  const index_t s = samples.rows();
  const DatapointRange range = columns.value_or(DatapointRange{0, model.rows()});
  const index_t width_max = projection_block_width(s);
  if (range.first < 0 || range.count < 0 || range.first + range.count > model.rows() ||
      (range.count > 0 && range.first % width_max != 0)) {
    throw InvalidArgument("projection: datapoints " + std::to_string(range.first) + " ... " +
                          std::to_string(range.first + range.count - 1) +
                          " are not a block of the model's " + std::to_string(model.rows()) +
                          " starting at a multiple of " + std::to_string(kReductionBlock));
  }
  const index_t origin = range.first;  // phi's column 0
  const index_t n = range.count;
  // The job's execution context resolves the count (pipeline/execution_context.hpp).
  const int team = std::max(threads, 1);

  // 1/2 theta_j^T Q theta_j does not depend on the datapoint: once per sample.
  Eigen::VectorXd quadratic;
  if (model.shared_quadratic.size() > 0) {
    quadratic = 0.5 * (samples * model.shared_quadratic).cwiseProduct(samples).rowwise().sum();
  }
  const double* quadratic_values = quadratic.size() > 0 ? quadratic.data() : nullptr;

  // Every element is written below, by the thread whose block it is (first touch of a new Phi).
  if (phi.rows() != s || phi.cols() != n) {
    phi = Matrix<T>();  // release the old storage before taking the new
    phi = Matrix<T>::uninitialized(s, n);
  }
  const index_t blocks = (n + width_max - 1) / width_max;
  index_t bad = -1;                  // smallest flat index of a non-finite L_n(theta_j), if any
  std::atomic<index_t> done{0};      // datapoints finished, for `progress`
  std::atomic<bool> stopped{false};  // `progress` asked to stop: skip the remaining blocks
  // Blocks of datapoints are split over the threads; Eigen never parallelises a product itself
  // (support/eigen.hpp), and each block's product and centring is the same computation whatever
  // the thread count, so Phi is bitwise independent of `threads`.
#pragma omp parallel num_threads(team)
  {
    ColumnMajor buffer;    // S x block for a float Phi, reused across this thread's blocks
    Eigen::MatrixXd rows;  // the block's rows (times their labels, logistic): link_block's
    std::vector<double> means(static_cast<std::size_t>(width_max));
    const double scale = cpu::simd::centring_scale(s);
    index_t local_bad = -1;
#pragma omp for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
      if (stopped.load(std::memory_order_relaxed) || support::stop_requested(progress)) {
        stopped.store(true, std::memory_order_relaxed);
        continue;  // an OpenMP loop cannot be left early
      }
      const index_t first = b * width_max;  // in phi; datapoint origin + first of the model
      const index_t width = std::min(width_max, n - first);
      // For a double Phi the block is Phi's own memory; for float it is the reusable buffer.
      double* out = nullptr;
      if constexpr (std::is_same_v<T, double>) {
        out = phi.column(first);
      } else {
        buffer.resize(s, width);
        out = buffer.data();
      }
      link_block(model, samples, origin + first, width, quadratic_values, out, rows);
      // Summed after the link rather than inside it, so the sums, and hence Phi, are the same
      // whichever vector width ran the link.
      cpu::simd::column_means(out, s, width, means.data());
      for (index_t i = 0; i < width && local_bad < 0; ++i) {
        if (!std::isfinite(means[static_cast<std::size_t>(i)])) {
          // A non-finite value makes the mean non-finite (or the sum overflowed): find it.
          const double* column = out + i * s;
          const index_t j =
              std::find_if(column, column + s, [](double v) { return !std::isfinite(v); }) - column;
          local_bad = (origin + first + i) * s + std::min(j, s - 1);
        }
      }
      cpu::simd::subtract_and_scale(out, s, width, means.data(), scale, phi.column(first));
      support::advanced(progress, done.fetch_add(width, std::memory_order_relaxed) + width);
    }
#pragma omp critical(coreset_projection_bad)
    if (local_bad >= 0 && (bad < 0 || local_bad < bad)) {
      bad = local_bad;
    }
  }
  if (stopped.load()) {
    throw Cancelled("stopped on request");
  }
  if (bad >= 0) {
    // An exception must not leave an OpenMP region, so the first offender is reported here.
    throw NumericalError(
        "the log-likelihood of datapoint " + std::to_string(model.first_row + bad / s) +
        " (0-based) at parameter sample " + std::to_string(bad % s) + " is not finite");
  }
}

template <class T>
Matrix<T> projection_from_loglik(const T* loglik, index_t n, index_t s, index_t datapoint_stride,
                                 index_t draw_stride, ProgressObserver* progress) {
  if (n < 1 || s < 2) {
    // One draw, centred over itself, is all zeros: a Phi of zeros, whose "coreset" is empty.
    throw InvalidArgument(
        "the log-likelihood matrix must have at least one datapoint and two draws (got " +
        std::to_string(n) + " datapoints, " + std::to_string(s) + " draws)");
  }
  if (loglik == nullptr || datapoint_stride < 0 || draw_stride < 0) {
    throw InvalidArgument("the log-likelihood matrix needs data and non-negative strides");
  }
  // An entry point of its own (Python's solve_loglik, `coreset solve --loglik`): its passes run
  // the default team, within the process's CPU limit, and Phi, a copy the size of the input,
  // must fit in the memory the process may use.
  const support::ScopedDefaultTeam team(0);
  support::check_host_fits(static_cast<double>(s) * static_cast<double>(n), sizeof(T),
                           support::host_memory_limit(), "Phi (S x n, from the log-likelihoods)",
                           "pass fewer draws, or solve the matrix from GPU memory");
  Matrix<T> phi = Matrix<T>::uninitialized(s, n);
  support::stage_started(progress, Stage::projection, n);
  // One pass: each chunk of datapoints is copied into Phi, centred and checked by one thread
  // while it is in that thread's cache, so the input is read once and Phi written once. Between
  // blocks of datapoints the caller's progress is told and its stop request heard (Ctrl-C).
  constexpr index_t kBlock = index_t{1} << 14;
  constexpr index_t kChunk = 64;  // the transposition's tile: 64 x S values, within L2
  for (index_t first = 0; first < n; first += kBlock) {
    support::throw_if_stopped(progress);
    const index_t end = std::min(n, first + kBlock);
    index_t first_bad = n;  // the block's first datapoint whose centred values are not all finite
#pragma omp parallel for schedule(static) reduction(min : first_bad)
    for (index_t chunk = first; chunk < end; chunk += kChunk) {
      const index_t width = std::min(kChunk, end - chunk);
      if (datapoint_stride == 1) {
        // Draw-major (a C-order S x n array, ArviZ's layout): S rows of n values, ld draw_stride.
        support::transpose_into(loglik + chunk, draw_stride, s, width, phi.column(chunk), s);
      } else {
        for (index_t i = chunk; i < chunk + width; ++i) {
          const T* in = loglik + i * datapoint_stride;
          T* out = phi.column(i);
          for (index_t j = 0; j < s; ++j) {
            out[j] = in[j * draw_stride];
          }
        }
      }
      for (index_t i = chunk; i < chunk + width; ++i) {
        center_and_scale(phi.column(i), s);
        // A non-finite input makes its whole centred column non-finite, so this finds both
        // kinds of bad datapoint; which one it was is told below from the input.
        if (i < first_bad && support::first_non_finite(phi.column(i), s) >= 0) {
          first_bad = i;
        }
      }
    }
    if (first_bad < n) {
      const T* in = loglik + first_bad * datapoint_stride;
      for (index_t j = 0; j < s; ++j) {
        if (!std::isfinite(in[j * draw_stride])) {
          throw InvalidArgument("the log-likelihood matrix has a non-finite entry at datapoint " +
                                std::to_string(first_bad) + ", draw " + std::to_string(j) +
                                " (0-based)");
        }
      }
      // Finite values can still overflow their mean (two of 1e308): said here, not later by
      // solve() as a non-finite entry of a Phi the caller never gave.
      throw NumericalError("the log-likelihoods of datapoint " + std::to_string(first_bad) +
                           " (0-based) overflow when centred over the draws: rescale them");
    }
    support::advanced(progress, end);
  }
  return phi;
}

template double column_sum<float>(const float*, index_t);
template double column_sum<double>(const double*, index_t);
template void center_and_scale<float>(float*, index_t);
template void center_and_scale<double>(double*, index_t);
template Matrix<float> projection<float>(const Model&, const Eigen::MatrixXd&, int,
                                         ProgressObserver*, std::optional<DatapointRange>);
template Matrix<double> projection<double>(const Model&, const Eigen::MatrixXd&, int,
                                           ProgressObserver*, std::optional<DatapointRange>);
template void projection_into<float>(const Model&, const Eigen::MatrixXd&, int, Matrix<float>&,
                                     ProgressObserver*, std::optional<DatapointRange>);
template void projection_into<double>(const Model&, const Eigen::MatrixXd&, int, Matrix<double>&,
                                      ProgressObserver*, std::optional<DatapointRange>);
template Matrix<float> projection_from_loglik<float>(const float*, index_t, index_t, index_t,
                                                     index_t, ProgressObserver*);
template Matrix<double> projection_from_loglik<double>(const double*, index_t, index_t, index_t,
                                                       index_t, ProgressObserver*);

}  // namespace coreset::cpu
