// Host-callable launchers of the kernels in this folder, in plain C++ so that the backend
// (src/cuda/cuda_backend.cpp) is compiled by the host compiler. Every launcher queues work on
// the given stream and checks the launch; none synchronises. Sizes are 64-bit; pointers are
// device pointers unless named host_*. A `count` pointer is a length held in device memory,
// with `bound` its host-known upper bound (the launch is sized for the bound).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "coreset/types.hpp"
#include "kernels/scratch.hpp"
#include "solvers/argmax.hpp"

namespace coreset::kernels {

using Mask = std::uint8_t;

// ---- elementwise over n (vector_kernels.cu) ----
/// out_mask = a | b (b may be null), out_value = out_mask ? v : 0.
template <class T>
void masked_gather(cudaStream_t s, index_t n, const T* v, const Mask* a, const Mask* b,
                   T* out_value, Mask* out_mask);
/// out = x + step g on supp(x), kept where > 0.
template <class T>
void clamped_step(cudaStream_t s, index_t n, const T* x, const Mask* xm, const double* step,
                  const T* g, T* out, Mask* om);
/// out = a + tau (a - b) on the union, kept where != 0.
template <class T>
void extrapolate(cudaStream_t s, index_t n, const T* a, const Mask* am, const T* b, const Mask* bm,
                 const double* tau, T* out, Mask* om);
/// out = a - b on the union, kept where != 0.
template <class T>
void subtract_sparse(cudaStream_t s, index_t n, const T* a, const Mask* am, const T* b,
                     const Mask* bm, T* out, Mask* om);
/// out = z + step g_z on supp(z), step g_o on supp(g_o), 0 elsewhere: the projected step's
/// candidates as a dense vector.
template <class T>
void step_candidates(cudaStream_t s, index_t n, const T* z, const Mask* zm, const T* gz,
                     const T* go, const Mask* gom, const double* step, T* out);
/// out = c in on supp(in), kept where != 0 (in may be out).
template <class T>
void scale_sparse(cudaStream_t s, index_t n, double c, const T* in, const Mask* im, T* out,
                  Mask* om);
/// out = (1 - gamma) w + gamma vertex 1_j, kept where != 0.
template <class T>
void convex_step(cudaStream_t s, index_t n, const T* w, const Mask* wm, double gamma, index_t j,
                 double vertex, T* out, Mask* om);
template <class T>
void scale(cudaStream_t s, index_t m, double c, const T* in, T* out);
template <class T>
void axpby(cudaStream_t s, index_t m, double a, const T* x, double b, const T* z, T* out);
template <class T>
void subtract(cudaStream_t s, index_t m, const T* a, const T* b, T* out);
template <class T>
void fill(cudaStream_t s, index_t m, T value, T* out);

// ---- reductions into one device double, in double, deterministic (vector_kernels.cu) ----
/// Partials needed by the reductions below.
constexpr index_t kReducePartials = 1024;
/// sum_i a_i b_i (b null: sum_i a_i).
template <class T>
void dot(cudaStream_t s, index_t m, const T* a, const T* b, double* partials, double* out);
/// sum_i (a_i - b_i)^2.
template <class T>
void squared_difference(cudaStream_t s, index_t m, const T* a, const T* b, double* partials,
                        double* out);
/// sum over p < *count of value[index[p]]^2.
template <class T>
void squared_norm_on_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                          const T* value, double* partials, double* out);

// ---- scalars (vector_kernels.cu) ----
void line_search(cudaStream_t s, const double* numerator, const double* denominator, double factor,
                 double* out);
void set_scalar(cudaStream_t s, double value, double* out);
template <class T>
void value_at(cudaStream_t s, const T* v, index_t i, double* out);

// ---- index lists (vector_kernels.cu) ----
/// out_value[index[p]] = values[p] (values null: 0), out_mask[index[p]] = 1 (mask null: skip).
template <class T>
void scatter(cudaStream_t s, const index_t* index, index_t m, const T* values, T* out_value,
             Mask* out_mask);
/// to[p] = from[p] for p < *count.
void copy_list(cudaStream_t s, const index_t* from, const index_t* count, index_t bound,
               index_t* to);
/// out[p] = dense[index[p]] for p < *count.
template <class T>
void gather_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                 const T* dense, T* out);

// ---- products with columns of Phi (S x n, ld = S) (columns.cu) ----
/// out[cols[p]] = Phi_cols[p] . r for p < m (count non-null: p < *count), one warp per column.
template <class T>
void columns_dot(cudaStream_t s, const T* phi, index_t rows, const index_t* cols,
                 const index_t* count, index_t m, const T* r, T* out);
/// Partials needed by phi_times_list for a list bound and S rows.
index_t phi_times_partials(index_t bound, index_t rows);
/// out = sum over p < *count of value[index[p]] Phi_index[p], in double over fixed chunks.
template <class T>
void phi_times_list(cudaStream_t s, const T* phi, index_t rows, const index_t* index,
                    const index_t* count, index_t bound, const T* value, double* partials, T* out);
template <class T>
void column_norms(cudaStream_t s, const T* phi, index_t rows, index_t n, T* out);
/// out (S x m, column-major, double) = the columns cols[0..m) of Phi.
template <class T>
void gather_columns(cudaStream_t s, const T* phi, index_t rows, const index_t* cols, index_t m,
                    double* out);
/// A 64-bit hash of each column (the sum over entries of splitmix64 of bits and position, so lanes
/// may add in any order); equal columns hash equal, mark_duplicates decides exactly.
template <class T>
void column_hashes(cudaStream_t s, const T* phi, index_t rows, index_t n, std::uint64_t* out);
/// flag[order[p]] = 1 when column order[p] equals, bit for bit, an earlier column of its run of
/// equal hashes (sorted_hash ascending, order the stable column order within equal hashes).
template <class T>
void mark_duplicates(cudaStream_t s, const T* phi, index_t rows, index_t n,
                     const std::uint64_t* sorted_hash, const index_t* order, Mask* flag);

// ---- CUB-based (select.cu) ----
/// The ascending indices i < n with mask[i] != 0, and their count (device).
void compact(cudaStream_t s, Scratch& scratch, index_t n, const Mask* mask, index_t* out_index,
             index_t* out_count);
/// Bytes of state top_k needs.
constexpr index_t kTopKStateBytes = 64;
/// The radix top-k (kernels/radix_select_logic.hpp) of v under the rule, skipping exclude (null:
/// none): writes out_value (v on the selection, 0 elsewhere) and out_mask. `histogram` holds 256
/// counters, `ties` up to n indices, `tie_count` one.
template <class T>
void top_k(cudaStream_t s, Scratch& scratch, index_t n, const T* v, bool by_magnitude,
           const Mask* exclude, index_t k, unsigned long long* histogram, unsigned char* state,
           index_t* ties, index_t* tie_count, T* out_value, Mask* out_mask);
/// Sorts (key, value) pairs by key, stably.
void sort_pairs(cudaStream_t s, Scratch& scratch, index_t n, const std::uint64_t* keys_in,
                std::uint64_t* keys_out, const index_t* values_in, index_t* values_out);
/// values[i] = i for i < n.
void iota(cudaStream_t s, index_t n, index_t* values);

// ---- the greedy baselines' score-and-argmax (argmax.cu) ----
/// argmax over i < n of rule(v_0[i], ..., v_{count-1}[i]) (scores in double, ties to the lower
/// index); `partials` holds kReducePartials entries. Synchronises (the host needs the winner).
template <class T, class Rule>
solvers::ArgMax argmax(cudaStream_t s, const Rule& rule, const T* const* vectors, int count,
                       index_t n, solvers::ArgMax* partials);

}  // namespace coreset::kernels
