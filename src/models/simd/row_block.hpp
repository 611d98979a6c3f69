// The work of the sums over datapoints (models/row_sums.hpp) on one block of rows of a design,
// vectorised: the linear predictors z_j . theta, the logistic link's three terms, and the
// weighted sums g^T Z and Z^T diag(c) Z. These are the Laplace fit's passes: every Newton step
// evaluates all three over every row.
//
// The sums have one order for every instruction set (isa.hpp), written out below, so that the
// fit does not depend on the CPU's vector width: AVX2 and AVX-512 give the same bits. The
// baseline follows the same order with each fma a multiply and an add (x86-64's baseline has no
// fma instruction, and glibc's std::fma, a call per lane, made the baseline fit some ten times
// slower; its link differs in the last bits anyway). The logistic link's terms use the vector
// exp and log1p of the log-sigmoid (log_sigmoid_kernel.hpp): AVX2 and AVX-512 give the same
// bits, the baseline is models::logistic_link on glibc's exp and log1p (a few ulp apart).
#pragma once

#include "coreset/types.hpp"
#include "support/isa.hpp"

namespace coreset::models::simd {

/// Rows of a column-major design: entry (j, i), row j < rows and column i < cols, is
/// data[i * stride + j], except that the last column is `unit` when it is given (rows entries,
/// each 1.0: an intercept's column that the design does not store, models/design.hpp). A block
/// of a whole design has the design's row count as its stride; the kernels' results depend on
/// neither the stride nor where the ones are read from.
struct RowBlock {
  const double* data = nullptr;
  index_t stride = 0;
  index_t rows = 0;
  index_t cols = 0;
  const double* unit = nullptr;
  /// Rows of the same columns just past the block (at most kRowSumBlock, within the design) that
  /// the sweep summing g^T Z prefetches into the L2 cache, a line per column per group of rows,
  /// while it works on the block: the next block its thread will take (models/row_sums.hpp), so
  /// that reading it overlaps this block's arithmetic. 0: nothing. The results never depend on it.
  index_t prefetch_rows = 0;

  double operator()(index_t row, index_t col) const { return column(col)[row]; }
  const double* column(index_t col) const {
    return unit != nullptr && col == cols - 1 ? unit : data + col * stride;
  }
  /// Where column col continues past the block (the rows prefetch_rows counts); the unit column
  /// is not stored, so its ones (already cached) stand in.
  const double* next_column(index_t col) const {
    return unit != nullptr && col == cols - 1 ? unit : data + col * stride + rows;
  }
};

/// Rows are summed in this many lanes: row j goes to lane j mod kSumLanes. Fixed, whatever the
/// vector width, so that the order of the sums is too.
inline constexpr int kSumLanes = 8;

/// The lanes' partial sums p[0 ... 7] added in the fixed tree of every sum here:
/// ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)). Internal linkage (static): the AVX units
/// use it too, and an out-of-line copy compiled for them must never serve a baseline caller.
static inline double add_lanes(const double* p) {
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

/// sum_j v_j over count values in the lanes of the sums below (p = p + v_j in lane j mod 8, from 0,
/// and the lane tree): eight independent chains of adds instead of one.
double sum_in_lanes(const double* v, index_t count);

/// out[j] = z_j . theta for every row j of the block: a = z_j0 theta_0, then
/// a = fma(z_ji, theta_i, a) for i = 1 ... cols - 1 (0 when cols = 0).
void linear_predictors(const RowBlock& block, const double* theta, double* out);

/// The block's weighted sums, each entry summed in kSumLanes lanes (row j into lane j mod 8, a
/// chain of fmas over the lane's rows in order, from 0) and the lanes added as
/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)):
/// - when `vector` is given, vector[i] = sum_j g_j z_ji, the lane chain being
///   p = fma(g_j, z_ji, p);
/// - when `upper` is given, the upper triangle of sum_j c_j z_j z_j^T column by column,
///   upper[l (l + 1) / 2 + i] for i <= l, the lane chain being p = fma(c_j z_jl, z_ji, p) with the
///   product c_j z_jl rounded.
/// g (read when `vector` is given) and c (when `upper` is) hold block.rows entries.
void weighted_row_sums(const RowBlock& block, const double* g, const double* c, double* vector,
                       double* upper);

/// The logistic link's terms (models::logistic_link) for count linear predictors a and labels y:
/// value[j] = log sigma(y_j a_j), first[j] = y_j sigma(-y_j a_j), second[j] =
/// -sigma(a_j) sigma(-a_j). value[j] has the bits of log_sigmoid(y_j a_j) on every instruction
/// set.
void logistic_link_terms(const double* a, const double* y, index_t count, double* value,
                         double* first, double* second);

/// The same with a given instruction set, which the CPU must support (support::supported): for
/// the tests, which compare the variants, and the benchmarks.
void linear_predictors(support::Isa isa, const RowBlock& block, const double* theta, double* out);
void weighted_row_sums(support::Isa isa, const RowBlock& block, const double* g, const double* c,
                       double* vector, double* upper);
void logistic_link_terms(support::Isa isa, const double* a, const double* y, index_t count,
                         double* value, double* first, double* second);

namespace detail {
void linear_predictors_baseline(const RowBlock& block, const double* theta, double* out);
void linear_predictors_avx2(const RowBlock& block, const double* theta, double* out);
void linear_predictors_avx512(const RowBlock& block, const double* theta, double* out);
void weighted_row_sums_baseline(const RowBlock& block, const double* g, const double* c,
                                double* vector, double* upper);
void weighted_row_sums_avx2(const RowBlock& block, const double* g, const double* c, double* vector,
                            double* upper);
void weighted_row_sums_avx512(const RowBlock& block, const double* g, const double* c,
                              double* vector, double* upper);
void logistic_link_terms_avx2(const double* a, const double* y, index_t count, double* value,
                              double* first, double* second);
void logistic_link_terms_avx512(const double* a, const double* y, index_t count, double* value,
                                double* first, double* second);
}  // namespace detail

}  // namespace coreset::models::simd
