// The projection Phi of spec 1.3: column n is datapoint n's log-likelihood at the S samples,
// centred over the samples and scaled by 1/sqrt(S).
#pragma once

#include <Eigen/Core>
#include <optional>

#include "coreset/distributed.hpp"
#include "coreset/matrix.hpp"
#include "coreset/progress.hpp"
#include "models/model.hpp"

namespace coreset::cpu {

using models::Model;

/// Phi (S x n, column-major) for `samples` (S x d, one sample per row): one matrix product
/// samples * design^T per block of datapoints, then one pass per column applying the link and
/// the shared quadratic, and the centring and scaling. Uses `threads` >= 1 threads (the job's
/// execution context resolves 0); the result is bitwise independent of their number.
/// `progress` (null: none) is told the datapoints done after each block and polled before each;
/// when it asks to stop, the remaining blocks are skipped and Cancelled is thrown. The stage
/// itself is announced by the caller.
/// `columns` (default: all n): only the datapoints columns->first ... first + count - 1, a
/// distributed build's share (S x count; first a multiple of kReductionBlock, as
/// datapoint_range() gives), each column the same bits as in the whole Phi. InvalidArgument for
/// a range outside the model or not so aligned.
template <class T>
Matrix<T> projection(const Model& model, const Eigen::MatrixXd& samples, int threads,
                     ProgressObserver* progress = nullptr,
                     std::optional<DatapointRange> columns = std::nullopt);

/// projection() written into `phi`, whose storage is reused when it already is S x n (otherwise
/// it is replaced by a new S x n matrix). Repeated projections of one size (SparseVI draws a new
/// Phi at every step) then skip the allocation and the operating system's zeroing of fresh
/// pages, a large part of a fresh projection's time (bench/README.md). On an
/// exception (invalid input, Cancelled, NumericalError) phi's values are unspecified.
template <class T>
void projection_into(const Model& model, const Eigen::MatrixXd& samples, int threads,
                     Matrix<T>& phi, ProgressObserver* progress = nullptr,
                     std::optional<DatapointRange> columns = std::nullopt);

/// Phi from a user's own log-likelihoods, centred and scaled exactly as projection() does: the
/// value of datapoint i at draw s is loglik[i * datapoint_stride + s * draw_stride] (strides in
/// elements, >= 0), so an n x S or S x n array in either order is read in place, in one pass.
/// InvalidArgument for n or S < 1, a negative stride, or a non-finite value (named by its
/// 0-based datapoint and draw). `progress` sees Stage::projection in datapoints, and its stop
/// request ends the pass within a block of them (Cancelled).
template <class T>
Matrix<T> projection_from_loglik(const T* loglik, index_t n, index_t s, index_t datapoint_stride,
                                 index_t draw_stride, ProgressObserver* progress = nullptr);

/// Datapoints per block of projection() at S samples: a block of S x width doubles stays in a
/// core's L2 cache between its product and its link and centring passes; a power of two that
/// divides kReductionBlock. Exported for the benchmark, whose floor is the same blocked product.
index_t projection_block_width(index_t samples);

/// The sum of `values[0..count)` in double, in the fixed order the projection's centring uses.
template <class T>
double column_sum(const T* values, index_t count);

/// Centres `values[0..count)` on their mean and scales by 1/sqrt(count), with the projection's
/// own centring (cpu/simd/columns.hpp, where the formula lives) for double.
template <class T>
void center_and_scale(T* values, index_t count);

}  // namespace coreset::cpu
