// Host-callable launchers of the kernels in this folder, in plain C++ so that the backend
// (src/cuda/cuda_backend.cpp) is compiled by the host compiler. Every launcher queues work on
// the given stream and checks the launch; none synchronises. Sizes are 64-bit; pointers are
// device pointers unless named host_*. A `count` pointer is a length held in device memory,
// with `bound` its host-known upper bound (the launch is sized for the bound).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "coreset/types.hpp"
#include "kernels/scratch.hpp"
#include "solvers/argmax.hpp"

namespace coreset::solvers {
struct LoopState;
}

namespace coreset::kernels {

using Mask = std::uint8_t;

// ---- sparse lists (vector_kernels.cu; logic in kernels/sparse_list_logic.hpp) ----
/// A sparse vector's support as the kernels read it: ascending indices, value[p] at index[p],
/// and the length in device memory.
template <class T>
struct DeviceList {
  const index_t* index = nullptr;
  const T* value = nullptr;
  const index_t* count = nullptr;
};
/// Slot p < slots of the union of a and b under `step` (one of sparse_list_logic.hpp's union
/// steps; `slots` >= a's count + b's count): out_index[p], out_value[p] and keep[p], for
/// compact_entries to gather. Instantiated for Extrapolate, Subtract, ConvexStep, GatherDense
/// and StepCandidates.
template <class T, class Step>
void merge_slots(cudaStream_t s, const Step& step, DeviceList<T> a, DeviceList<T> b, index_t slots,
                 index_t* out_index, T* out_value, Mask* keep);
/// Entry p < slots (>= in's count) of one list under `step` (ClampedStep or Scale).
template <class T, class Step>
void map_slots(cudaStream_t s, const Step& step, DeviceList<T> in, index_t slots,
               index_t* out_index, T* out_value, Mask* keep);
/// Up to this many slots (one tile of the one-block compaction), map_compacted makes a one-list
/// step's slots and compacts them in one launch, and merge_compacted a union's.
constexpr index_t kOneLaunchSlots = 2048;
/// merge_slots then compact_entries in one launch, for slots <= kOneLaunchSlots: the kept
/// entries, in order, and their count, the same as the two give; the output's storage may be
/// a's or b's within the launch. The lists' indices are read into shared memory first and the
/// slots striped over the threads (one a thread up to 256 slots): the one-launch union of
/// d8c69d2, each thread's eight merge-path searches over global memory in turn, took 8.6-10.8 us
/// on an H200 against 4.4-6.1 us for the two launches (k = 100 and 1000, every n and S). The
/// backend takes this path only when asked (CudaBackend::unions_in_one_launch), for the benchmark
/// and the test that set it beside the two launches; not yet run.
template <class T, class Step>
void merge_compacted(cudaStream_t s, const Step& step, DeviceList<T> a, DeviceList<T> b,
                     index_t slots, index_t* out_index, T* out_value, index_t* out_count);
/// map_slots then compact_entries in one launch, for slots <= kOneLaunchSlots: the kept entries,
/// in order, and their count, the same as the two give. Within the launch the output's storage
/// may be the input's (every slot is read before any is written), but a caller that must make
/// room for the output first would free an input it aliases: the backend takes this path only
/// for an output that is not an input.
template <class T, class Step>
void map_compacted(cudaStream_t s, const Step& step, DeviceList<T> in, index_t slots,
                   index_t* out_index, T* out_value, index_t* out_count);
/// out_index[q] = in_index[positions[q]], out_value[q] = in_value[positions[q]] for q < *count.
template <class T>
void gather_entries(cudaStream_t s, const index_t* positions, const index_t* count, index_t bound,
                    const index_t* in_index, const T* in_value, index_t* out_index, T* out_value);
/// mask[index[p]] = value for p < *count.
void mark_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
               Mask value, Mask* mask);
/// out[0] = index (a one-entry support: convex_step's vertex).
void set_index(cudaStream_t s, index_t index, index_t* out);

// ---- a tracked loop's bookkeeping (vector_kernels.cu; solvers/stopping_rule.hpp) ----
/// solvers::track_iteration on the device scalars, one thread; history holds `capacity` entries
/// (iteration t at (t - 1) mod capacity).
void track_iteration(cudaStream_t s, solvers::LoopState* state, const double* objective,
                     const double* change_squared, const double* size_squared, double tolerance,
                     int max_iterations, double* history, int capacity);
/// A copy of the list `from` into to_*, when state->just_stopped (else nothing).
template <class T>
void keep_if_stopped(cudaStream_t s, const solvers::LoopState* state, DeviceList<T> from,
                     index_t bound, index_t* to_index, T* to_value, index_t* to_count);

// ---- elementwise over vectors (vector_kernels.cu) ----
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
/// sum over p < *count of value[p]^2 (`bound` >= *count).
template <class T>
void squared_norm_of_list(cudaStream_t s, DeviceList<T> v, index_t bound, double* partials,
                          double* out);
/// sum of (a_i - b_i)^2 over the union of the supports (`slots` >= a's count + b's count).
template <class T>
void squared_distance_of_lists(cudaStream_t s, DeviceList<T> a, DeviceList<T> b, index_t slots,
                               double* partials, double* out);

// ---- scalars (vector_kernels.cu) ----
void line_search(cudaStream_t s, const double* numerator, const double* denominator, double factor,
                 double* out);
// The IHT driver's composed scalars in one launch each (an iteration's graph has three line
// searches and the progress numbers: two nodes fewer each), with the same bits as the composed
// calls: each sum is the one-block reduction of dot / squared_norm_of_list /
// squared_distance_of_lists. Only where every sum fits one block (at most 8192 terms); false,
// with nothing launched, otherwise.
/// out = line_search(squared_norm_of_list(g, bound), dot(q, q, rows), factor).
template <class T>
bool gradient_line_search(cudaStream_t s, DeviceList<T> g, index_t bound, const T* q, index_t rows,
                          double factor, double* out);
/// out = line_search(dot(r, q, rows), dot(q, q, rows), factor).
template <class T>
bool momentum_line_search(cudaStream_t s, const T* r, const T* q, index_t rows, double factor,
                          double* out);
/// dot(residual, residual, rows), squared_distance_of_lists(next, prev, next_bound + prev_bound)
/// and squared_norm_of_list(next, next_bound).
template <class T>
bool progress_scalars(cudaStream_t s, const T* residual, index_t rows, DeviceList<T> next,
                      index_t next_bound, DeviceList<T> prev, index_t prev_bound, double* objective,
                      double* change, double* size);
void set_scalar(cudaStream_t s, double value, double* out);
template <class T>
void value_at(cudaStream_t s, const T* v, index_t i, double* out);

// ---- index lists (vector_kernels.cu) ----
/// out[index[p]] = 0 for p < m.
template <class T>
void zero_at(cudaStream_t s, const index_t* index, index_t m, T* out);
/// A list's support copied by the launch that reads it: index_copy[p] = index[p] for p < *count
/// and *count_copy = *count, so that a sparse vector's values made over another's support need
/// no copies of their own (two graph nodes fewer). Both null: no copy.
struct ListCopy {
  index_t* index = nullptr;
  index_t* count = nullptr;
};
/// out[p] = dense[index[p]] for p < *count; with `copy`, the list copied too.
template <class T>
void gather_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                 const T* dense, T* out, ListCopy copy = {});

// ---- products with columns of Phi (S x n, ld = S) (columns.cu) ----
/// Where columns_dot writes the dot of listed column p: at out[p], or at out[cols[p]].
enum class DotsAt { position, column };
/// Phi_cols[p] . r for p < m (count non-null: p < *count), one warp per column; with `copy`
/// (count non-null), the list copied too.
template <class T>
void columns_dot(cudaStream_t s, const T* phi, index_t rows, const index_t* cols,
                 const index_t* count, index_t m, const T* r, DotsAt at, T* out,
                 ListCopy copy = {});
/// Chunks of at least this many places in phi_times_list by default
/// (kernels/list_product_logic.hpp, kLeastChunk).
constexpr index_t kProductChunk = 16;
/// InvalidArgument unless `least_chunk` >= 1: chunks of fewer than one place are no chunks.
void require_least_chunk(index_t least_chunk);
/// Partials needed by phi_times_list for a list bound and S rows.
index_t phi_times_partials(index_t bound, index_t rows, index_t least_chunk = kProductChunk);
/// out = sum over p < *count of value[p] Phi_index[p], in double over fixed chunks
/// (kernels/list_product_logic.hpp gives its arithmetic). With
/// `residual` (and y): also residual = y - out in T, as subtract would make it, in the same
/// launch (the IHT driver's residual after each product of an iterate).
template <class T>
void phi_times_list(cudaStream_t s, const T* phi, index_t rows, const index_t* index,
                    const index_t* count, index_t bound, const T* value, double* partials, T* out,
                    const T* y = nullptr, T* residual = nullptr,
                    index_t least_chunk = kProductChunk);
template <class T>
void column_norms(cudaStream_t s, const T* phi, index_t rows, index_t n, T* out);
/// out = Phi^T r (n = cols), a tile of whole columns per block in shared memory, 4 threads per
/// column up to 128 entries and a warp per column beyond (kernels/tiled_columns_logic.hpp gives
/// its arithmetic), at most `max_blocks` blocks striding over the tiles (a test's way to make
/// each block take several). InvalidArgument unless tiled_columns::fits(rows, sizeof(T)) (float:
/// S <= 1365; double: S <= 682). The GPU backend's Phi^T r where tiled_columns::preferred (S <=
/// 128 in float, 94 in double: on an H200 at 248d8f7 it beat cuBLAS' gemv at S = 100 for every n,
/// and lost to it at n = 1e7, S = 500); bench_gpu measures it beside gemv wherever it fits.
template <class T>
void phi_t_times_tiled(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r, T* out,
                       index_t max_blocks = index_t{1} << 16);
/// out = Phi^T r (n = cols), a warp per column (or per 2-8 consecutive short ones) with each
/// lane's loads of a column all in flight at once and its entries of r held in registers, no shared
/// memory (kernels/streamed_columns_logic.hpp gives its arithmetic); at most `max_blocks` blocks
/// striding over the columns. 16-byte loads where the columns are 16-byte aligned, one entry a load
/// otherwise. InvalidArgument unless streamed_columns::fits(rows, sizeof(T)) (float: S <= 1024;
/// double: S <= 512).
template <class T>
void phi_t_times_streamed(cudaStream_t s, const T* phi, index_t rows, index_t cols, const T* r,
                          T* out, index_t max_blocks = index_t{1} << 16);
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
/// Bytes of a top-k threshold hint (radix::ThresholdHint of the key type).
constexpr index_t kTopKHintBytes = 64;
/// Where top_k works: 256 histogram counters and a count of finished blocks (both zero between
/// selections: zero them once, when allocated), its state, the positions above the threshold (k
/// entries), the tied positions (n entries; also the candidates), three counts (above, ties,
/// candidates), and a threshold hint carried from one selection to the next (null: none; else
/// kTopKHintBytes holding a radix::ThresholdHint made on the host, see select_hint_bytes).
struct TopKWork {
  unsigned long long* histogram = nullptr;
  unsigned int* blocks_done = nullptr;
  unsigned char* state = nullptr;
  index_t* above = nullptr;
  index_t* ties = nullptr;
  index_t* counts = nullptr;
  unsigned char* hint = nullptr;
  /// A stream used only to record (Resources::body_stream): while the selection's stream is
  /// being captured into a CUDA graph, the full passes are recorded on it as the body of a
  /// conditional node that runs only when the candidates did not hold the selection. Null: the
  /// full passes are always recorded, and return at once when not needed.
  cudaStream_t body_stream = nullptr;
  /// The keys one block selects among (prepare_top_k). Hints serve k up to 3/4 of it (nearer,
  /// the candidates near t rarely number between k and the capacity); the backend asks for
  /// them only up to radix::kLargestHintedBudget by default.
  index_t capacity = 4096;
  /// top_k_both_rules' second histogram and state (the positive rule's), as the first: 256
  /// counters zero between selections, kTopKStateBytes.
  unsigned long long* second_histogram = nullptr;
  unsigned char* second_state = nullptr;
};
/// Where a selection puts its positions (ascending) and their number.
struct TopKSelection {
  index_t* positions = nullptr;
  index_t* count = nullptr;
};
/// The radix top-k (kernels/radix_select_logic.hpp) of v[0..n) under the rule, skipping exclude
/// (null: none): the selected positions, ascending, into out_positions (k entries) and their
/// number into *out_count. With a hint that serves the selection (radix::hint_serves: n over
/// the one-block capacity and k at most 3/4 of it), first among the candidates the hint's last
/// threshold points to (the same positions, found by less work when the vector changed little
/// since the hint's last selection). Whether a selection gets a hint at all is the backend's
/// choice (CudaBackend::reuse_thresholds).
template <class T>
void top_k(cudaStream_t s, Scratch& scratch, index_t n, const T* v, bool by_magnitude,
           const Mask* exclude, index_t k, const TopKWork& work, index_t* out_positions,
           index_t* out_count);
/// top_k of v under both rules, largest magnitude then largest positive, without hints: the
/// positions two unhinted top_k calls give, with their histogram passes made together (each pass
/// reads every entry and its exclusion once for both selections, one launch a pass where two
/// calls make two). The IHT driver's two selections over one gradient when no hint serves them.
/// Needs work.second_histogram and second_state; work.hint is not used.
template <class T>
void top_k_both_rules(cudaStream_t s, Scratch& scratch, index_t n, const T* v, const Mask* exclude,
                      index_t k, const TopKWork& work, const TopKSelection& by_magnitude,
                      const TopKSelection& positive);
/// Lets top_k's one-block selection of T use the shared memory the current device gives a block,
/// and returns how many keys it may hold (radix::kCandidateCapacity at most, whole tiles of 4096,
/// at least one): call once per device and precision before top_k, and pass the result as
/// TopKWork::capacity and in the hints' `capacity` (CudaBackend does both).
template <class T>
index_t prepare_top_k();
/// The grid of top_k's histogram passes over n keys on the current device: eight blocks an SM,
/// fewer for short vectors (a block for 256 keys).
unsigned int top_k_pass_blocks(index_t n);
/// The entries with keep[p] != 0 among p < m, in order: out_index, out_value and their count.
template <class T>
void compact_entries(cudaStream_t s, Scratch& scratch, index_t m, const index_t* index,
                     const T* value, const Mask* keep, index_t* out_index, T* out_value,
                     index_t* out_count);
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
