// The GPU backend's (cuda/cuda_backend.hpp) kernels on vectors: the sparse steps over compact
// support lists (one thread per slot, the logic in kernels/sparse_list_logic.hpp, so O(|support|)
// work and never a pass over n), elementwise kernels on dense vectors, the deterministic
// reductions and the scalar kernels.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "coreset/error.hpp"
#include "kernels/compact_tile.cuh"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/sparse_list_logic.hpp"
#include "solvers/line_search.hpp"
#include "solvers/stopping_rule.hpp"

namespace coreset::kernels {
namespace {

// One grid-stride pass applying op(i) for i < m.
template <class Op>
__global__ void for_each_kernel(index_t m, Op op) {
  for (index_t i = global_thread(); i < m; i += grid_stride()) {
    op(i);
  }
}

template <class Op>
void for_each(cudaStream_t s, index_t m, Op op) {
  if (m <= 0) {
    return;
  }
  for_each_kernel<<<blocks_for(m), kBlock, 0, s>>>(m, op);
  CORESET_CUDA_CHECK_LAUNCH();
}

// The block's sum of term(i) over its grid-stride share of i < limit (limit = *count when count
// is set, capped at m), valid in thread 0: each thread adds its terms in turn, then block_sum's
// fixed tree. The reductions and the fused scalars below (line searches, progress) all sum
// through it, so they round alike.
template <class Term>
__device__ double block_total(index_t m, const index_t* count, Term term) {
  const index_t limit = count != nullptr ? min(*count, m) : m;
  double sum = 0.0;
  for (index_t i = global_thread(); i < limit; i += grid_stride()) {
    sum += term(i);
  }
  return block_sum(sum);
}

// Stage 1: per-block sums of term(i); stage 2 (reduce_final_kernel): one block adds the partials
// in block order. The block count depends only on m (one block, and no stage 2, for small m).
template <class Term>
__global__ void reduce_partials_kernel(index_t m, const index_t* count, Term term,
                                       double* partials) {
  const double total = block_total(m, count, term);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
  }
}

__global__ void reduce_final_kernel(const double* partials, int blocks, double* out) {
  double sum = 0.0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    sum += partials[b];
  }
  const double total = block_sum(sum);
  if (threadIdx.x == 0) {
    *out = total;
  }
}

// Up to this many terms one block sums them all, in one launch instead of two: an iteration's
// dozen small reductions (over S entries, or a support of k up to ~2700) are then a dozen nodes
// of its graph. Beyond, a block's threads would each add a long chain of loads in turn (see
// kernels/select.cu, kOneBlockCompaction, for what that cost at 2^16).
constexpr index_t kOneBlockReduction = index_t{1} << 13;

template <class Term>
void reduce(cudaStream_t s, index_t m, const index_t* count, Term term, double* partials,
            double* out) {
  if (m <= kOneBlockReduction) {
    // The one block's partial is the sum.
    reduce_partials_kernel<<<1, kBlock, 0, s>>>(m, count, term, out);
    CORESET_CUDA_CHECK_LAUNCH();
    return;
  }
  const unsigned int blocks = blocks_for(m, kReducePartials);
  reduce_partials_kernel<<<blocks, kBlock, 0, s>>>(m, count, term, partials);
  CORESET_CUDA_CHECK_LAUNCH();
  reduce_final_kernel<<<1, kBlock, 0, s>>>(partials, static_cast<int>(blocks), out);
  CORESET_CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace {

template <class T>
__device__ sparse::List<T> read(DeviceList<T> list) {
  return {list.index, list.value, *list.count};
}

// The slots of a union of two lists under a step (merged_entry), and of one list under a step
// (mapped_entry): lists() reads the lists' counts once, entry(lists, p) makes slot p.
template <class T, class Step>
struct UnionSlots {
  Step step;
  DeviceList<T> a;
  DeviceList<T> b;
  struct Lists {
    sparse::List<T> a;
    sparse::List<T> b;
  };
  __device__ Lists lists() const { return {read(a), read(b)}; }
  __device__ sparse::Entry<T> entry(const Lists& l, index_t p) const {
    return sparse::merged_entry(step, l.a, l.b, p);
  }
};
template <class T, class Step>
struct MappedSlots {
  Step step;
  DeviceList<T> in;
  __device__ sparse::List<T> lists() const { return read(in); }
  __device__ sparse::Entry<T> entry(const sparse::List<T>& l, index_t p) const {
    return sparse::mapped_entry(step, l, p);
  }
};

// Slots p < slots into out_index, out_value and keep, one thread a slot.
template <class T, class Slots>
__global__ void make_slots_kernel(Slots slots_of, index_t slots, index_t* out_index, T* out_value,
                                  Mask* keep) {
  const auto lists = slots_of.lists();
  for (index_t p = global_thread(); p < slots; p += grid_stride()) {
    const sparse::Entry<T> entry = slots_of.entry(lists, p);
    out_index[p] = entry.index;
    out_value[p] = entry.value;
    keep[p] = entry.keep;
  }
}

// Slots p < slots (at most one tile) made and compacted by one block: the kept entries, in
// order, and their count, as make_slots_kernel then compact_entries give them. Every slot is made
// (its list read) before the scan's barrier and written after it, so the output may be the
// list. For one-list steps, whose slot p is the list's entry p; unions have
// merge_compacted_kernel (kernels/launch.hpp, merge_compacted, says why).
static_assert(kOneLaunchSlots == index_t{kCompactThreads} * kCompactItems,
              "one launch makes and compacts one tile of slots");
template <class T, class Slots>
__global__ void __launch_bounds__(kCompactThreads)
    make_compacted_kernel(Slots slots_of, index_t slots, index_t* out_index, T* out_value,
                          index_t* out_count) {
  __shared__ typename cub::BlockScan<index_t, kCompactThreads>::TempStorage scan;
  const auto lists = slots_of.lists();
  const index_t first = static_cast<index_t>(threadIdx.x) * kCompactItems;
  sparse::Entry<T> entries[kCompactItems];
  index_t flags[kCompactItems];
  for (int j = 0; j < kCompactItems; ++j) {
    entries[j] = first + j < slots ? slots_of.entry(lists, first + j) : sparse::Entry<T>{};
    flags[j] = entries[j].keep ? 1 : 0;
  }
  const index_t kept =
      compact_tile<kCompactThreads>(scan, flags, index_t{0}, [&](int j, index_t at) {
        out_index[at] = entries[j].index;
        out_value[at] = entries[j].value;
      });
  if (threadIdx.x == 0) {
    *out_count = kept;
  }
}

template <class T, class Slots>
void make_slots(cudaStream_t s, const Slots& slots_of, index_t slots, index_t* out_index,
                T* out_value, Mask* keep) {
  if (slots <= 0) {
    return;
  }
  make_slots_kernel<T>
      <<<blocks_for(slots), kBlock, 0, s>>>(slots_of, slots, out_index, out_value, keep);
  CORESET_CUDA_CHECK_LAUNCH();
}

// A union's slots p < slots (at most one tile) made and compacted by one block, as
// merge_slots then compact_entries give them. The lists' indices are first copied to shared memory,
// where every search then reads; the slots are striped over the threads (slot r * kCompactThreads +
// t in thread t), so that a union of up to kCompactThreads slots makes one slot a thread; the kept
// slots of row r are written after those of rows 0 ... r - 1, in order, one scan a row. Every slot
// is made (the lists read) before the first write, so the output may be one of the lists. The
// counts fit: *a.count + *b.count <= slots <= kOneLaunchSlots.
template <class T, class Step>
__global__ void __launch_bounds__(kCompactThreads)
    merge_compacted_kernel(Step step, DeviceList<T> a, DeviceList<T> b, index_t slots,
                           index_t* out_index, T* out_value, index_t* out_count) {
  using Scan = cub::BlockScan<int, kCompactThreads>;
  __shared__ index_t indices[kOneLaunchSlots];  // a's, then b's
  __shared__ typename Scan::TempStorage scan;
  // The counts fit their bounds by the backend's contract; clamped all the same, so that a broken
  // bound gives a wrong union rather than writes past `indices` into the scan's storage.
  const index_t na = min(*a.count, slots);
  const index_t nb = min(*b.count, slots - na);
  for (index_t p = threadIdx.x; p < na; p += kCompactThreads) {
    indices[p] = a.index[p];
  }
  for (index_t p = threadIdx.x; p < nb; p += kCompactThreads) {
    indices[na + p] = b.index[p];
  }
  __syncthreads();
  const sparse::List<T> in_a{indices, a.value, na};
  const sparse::List<T> in_b{indices + na, b.value, nb};
  const int rows = static_cast<int>((slots + kCompactThreads - 1) / kCompactThreads);
  sparse::Entry<T> entries[kCompactItems];
#pragma unroll
  for (int r = 0; r < kCompactItems; ++r) {
    const index_t p = index_t{r} * kCompactThreads + threadIdx.x;
    entries[r] = p < slots ? sparse::merged_entry(step, in_a, in_b, p) : sparse::Entry<T>{};
  }
  __syncthreads();
  index_t written = 0;
  // Unrolled, so that entries[r] stays in registers; `rows` is the same in every thread.
#pragma unroll
  for (int r = 0; r < kCompactItems; ++r) {
    if (r < rows) {
      int offset = 0;
      int kept = 0;
      Scan(scan).ExclusiveSum(entries[r].keep ? 1 : 0, offset, kept);
      if (entries[r].keep) {
        out_index[written + offset] = entries[r].index;
        out_value[written + offset] = entries[r].value;
      }
      written += kept;
      __syncthreads();  // the scan's storage serves the next row
    }
  }
  if (threadIdx.x == 0) {
    *out_count = written;
  }
}

// A step made and compacted in one launch holds one tile of slots at most.
void require_one_tile(index_t slots) {
  if (slots < 0 || slots > kOneLaunchSlots) {
    throw InvalidArgument("a step made and compacted in one launch takes at most " +
                          std::to_string(kOneLaunchSlots) + " slots, not " + std::to_string(slots));
  }
}

template <class T, class Slots>
void make_compacted(cudaStream_t s, const Slots& slots_of, index_t slots, index_t* out_index,
                    T* out_value, index_t* out_count) {
  require_one_tile(slots);
  make_compacted_kernel<T>
      <<<1, kCompactThreads, 0, s>>>(slots_of, slots, out_index, out_value, out_count);
  CORESET_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T, class Step>
void merge_slots(cudaStream_t s, const Step& step, DeviceList<T> a, DeviceList<T> b, index_t slots,
                 index_t* out_index, T* out_value, Mask* keep) {
  make_slots(s, UnionSlots<T, Step>{step, a, b}, slots, out_index, out_value, keep);
}

template <class T, class Step>
void map_slots(cudaStream_t s, const Step& step, DeviceList<T> in, index_t slots,
               index_t* out_index, T* out_value, Mask* keep) {
  make_slots(s, MappedSlots<T, Step>{step, in}, slots, out_index, out_value, keep);
}

template <class T, class Step>
void merge_compacted(cudaStream_t s, const Step& step, DeviceList<T> a, DeviceList<T> b,
                     index_t slots, index_t* out_index, T* out_value, index_t* out_count) {
  require_one_tile(slots);
  merge_compacted_kernel<T>
      <<<1, kCompactThreads, 0, s>>>(step, a, b, slots, out_index, out_value, out_count);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T, class Step>
void map_compacted(cudaStream_t s, const Step& step, DeviceList<T> in, index_t slots,
                   index_t* out_index, T* out_value, index_t* out_count) {
  make_compacted(s, MappedSlots<T, Step>{step, in}, slots, out_index, out_value, out_count);
}

template <class T>
void gather_entries(cudaStream_t s, const index_t* positions, const index_t* count, index_t bound,
                    const index_t* in_index, const T* in_value, index_t* out_index, T* out_value) {
  for_each(s, bound, [=] __device__(index_t q) {
    if (q < *count) {
      out_index[q] = in_index[positions[q]];
      out_value[q] = in_value[positions[q]];
    }
  });
}

void mark_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
               Mask value, Mask* mask) {
  for_each(s, bound, [=] __device__(index_t p) {
    if (p < *count) {
      mask[index[p]] = value;
    }
  });
}

void set_index(cudaStream_t s, index_t index, index_t* out) {
  for_each(s, 1, [=] __device__(index_t) { *out = index; });
}

namespace {
__global__ void track_iteration_kernel(solvers::LoopState* state, const double* objective,
                                       const double* change_squared, const double* size_squared,
                                       double tolerance, int max_iterations, double* history,
                                       int capacity) {
  solvers::track_iteration(*state, *objective, *change_squared, *size_squared, tolerance,
                           max_iterations, history, capacity);
}
}  // namespace

void track_iteration(cudaStream_t s, solvers::LoopState* state, const double* objective,
                     const double* change_squared, const double* size_squared, double tolerance,
                     int max_iterations, double* history, int capacity) {
  track_iteration_kernel<<<1, 1, 0, s>>>(state, objective, change_squared, size_squared, tolerance,
                                         max_iterations, history, capacity);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void keep_if_stopped(cudaStream_t s, const solvers::LoopState* state, DeviceList<T> from,
                     index_t bound, index_t* to_index, T* to_value, index_t* to_count) {
  for_each(s, std::max<index_t>(bound, 1), [=] __device__(index_t p) {
    if (state->just_stopped == 0) {
      return;
    }
    const index_t count = *from.count;
    if (p == 0) {
      *to_count = count;
    }
    if (p < count) {
      to_index[p] = from.index[p];
      to_value[p] = from.value[p];
    }
  });
}

template <class T>
void scale(cudaStream_t s, index_t m, double c, const T* in, T* out) {
  const T factor = static_cast<T>(c);  // as the CPU: the factor rounded to T first
  for_each(s, m, [=] __device__(index_t i) { out[i] = in[i] * factor; });
}

template <class T>
void axpby(cudaStream_t s, index_t m, double a, const T* x, double b, const T* z, T* out) {
  for_each(s, m,
           [=] __device__(index_t i) { out[i] = static_cast<T>(add(mul(a, x[i]), mul(b, z[i]))); });
}

template <class T>
void subtract(cudaStream_t s, index_t m, const T* a, const T* b, T* out) {
  for_each(s, m, [=] __device__(index_t i) { out[i] = a[i] - b[i]; });
}

template <class T>
void fill(cudaStream_t s, index_t m, T value, T* out) {
  for_each(s, m, [=] __device__(index_t i) { out[i] = value; });
}

// The terms of the reductions, one definition each for the plain and the fused launches.
template <class T>
struct DotTerm {  // a_i b_i, or a_i without b
  const T* a;
  const T* b;
  __device__ double operator()(index_t i) const {
    return static_cast<double>(a[i]) * (b != nullptr ? static_cast<double>(b[i]) : 1.0);
  }
};

template <class T>
struct SquareTerm {  // v_p^2 over a list's values
  const T* value;
  __device__ double operator()(index_t p) const {
    const double x = value[p];
    return x * x;
  }
};

template <class T>
struct SquaredDifferenceTerm {  // merge slot p of two lists: (a_i - b_i)^2, or 0
  DeviceList<T> a;
  DeviceList<T> b;
  // Every term reads both counts itself: a slot past them, or a void one, adds 0.
  __device__ double operator()(index_t p) const {
    return sparse::squared_difference_at(read(a), read(b), p);
  }
};

template <class T>
void dot(cudaStream_t s, index_t m, const T* a, const T* b, double* partials, double* out) {
  reduce(s, m, nullptr, DotTerm<T>{a, b}, partials, out);
}

template <class T>
void squared_norm_of_list(cudaStream_t s, DeviceList<T> v, index_t bound, double* partials,
                          double* out) {
  reduce(s, bound, v.count, SquareTerm<T>{v.value}, partials, out);
}

template <class T>
void squared_distance_of_lists(cudaStream_t s, DeviceList<T> a, DeviceList<T> b, index_t slots,
                               double* partials, double* out) {
  reduce(s, slots, nullptr, SquaredDifferenceTerm<T>{a, b}, partials, out);
}

namespace {

// line_search(sum of numerator terms, sum of denominator terms, factor) in one block: each sum
// as reduce's one-block launch makes it, then the step as line_search_kernel does.
template <class Numerator, class Denominator>
__global__ void line_search_of_sums_kernel(index_t numerator_terms, const index_t* numerator_count,
                                           Numerator numerator, index_t denominator_terms,
                                           Denominator denominator, double factor, double* out) {
  const double a = block_total(numerator_terms, numerator_count, numerator);
  const double b = block_total(denominator_terms, nullptr, denominator);
  if (threadIdx.x == 0) {
    *out = solvers::guarded_step(a, b, factor);
  }
}

// The driver's three progress numbers in one block, each as its own reduction makes it.
template <class T>
__global__ void progress_scalars_kernel(index_t rows, const T* residual, DeviceList<T> next,
                                        index_t next_bound, DeviceList<T> prev, index_t prev_bound,
                                        double* objective, double* change, double* size) {
  const double f = block_total(rows, nullptr, DotTerm<T>{residual, residual});
  const double d =
      block_total(next_bound + prev_bound, nullptr, SquaredDifferenceTerm<T>{next, prev});
  const double w = block_total(next_bound, next.count, SquareTerm<T>{next.value});
  if (threadIdx.x == 0) {
    *objective = f;
    *change = d;
    *size = w;
  }
}

bool one_block(std::initializer_list<index_t> terms) {
  return std::all_of(terms.begin(), terms.end(), [](index_t m) { return m <= kOneBlockReduction; });
}

}  // namespace

template <class T>
bool gradient_line_search(cudaStream_t s, DeviceList<T> g, index_t bound, const T* q, index_t rows,
                          double factor, double* out) {
  if (!one_block({bound, rows})) {
    return false;
  }
  line_search_of_sums_kernel<<<1, kBlock, 0, s>>>(bound, g.count, SquareTerm<T>{g.value}, rows,
                                                  DotTerm<T>{q, q}, factor, out);
  CORESET_CUDA_CHECK_LAUNCH();
  return true;
}

template <class T>
bool momentum_line_search(cudaStream_t s, const T* r, const T* q, index_t rows, double factor,
                          double* out) {
  if (!one_block({rows})) {
    return false;
  }
  line_search_of_sums_kernel<<<1, kBlock, 0, s>>>(rows, nullptr, DotTerm<T>{r, q}, rows,
                                                  DotTerm<T>{q, q}, factor, out);
  CORESET_CUDA_CHECK_LAUNCH();
  return true;
}

template <class T>
bool progress_scalars(cudaStream_t s, const T* residual, index_t rows, DeviceList<T> next,
                      index_t next_bound, DeviceList<T> prev, index_t prev_bound, double* objective,
                      double* change, double* size) {
  if (!one_block({rows, next_bound + prev_bound, next_bound})) {
    return false;
  }
  progress_scalars_kernel<<<1, kBlock, 0, s>>>(rows, residual, next, next_bound, prev, prev_bound,
                                               objective, change, size);
  CORESET_CUDA_CHECK_LAUNCH();
  return true;
}

namespace {
__global__ void line_search_kernel(const double* numerator, const double* denominator,
                                   double factor, double* out) {
  *out = solvers::guarded_step(*numerator, *denominator, factor);
}
__global__ void set_scalar_kernel(double value, double* out) {
  *out = value;
}
template <class T>
__global__ void value_at_kernel(const T* v, index_t i, double* out) {
  *out = static_cast<double>(v[i]);
}
}  // namespace

void line_search(cudaStream_t s, const double* numerator, const double* denominator, double factor,
                 double* out) {
  line_search_kernel<<<1, 1, 0, s>>>(numerator, denominator, factor, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

void set_scalar(cudaStream_t s, double value, double* out) {
  set_scalar_kernel<<<1, 1, 0, s>>>(value, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void value_at(cudaStream_t s, const T* v, index_t i, double* out) {
  value_at_kernel<<<1, 1, 0, s>>>(v, i, out);
  CORESET_CUDA_CHECK_LAUNCH();
}

template <class T>
void zero_at(cudaStream_t s, const index_t* index, index_t m, T* out) {
  for_each(s, m, [=] __device__(index_t p) { out[index[p]] = T(0); });
}

template <class T>
void gather_list(cudaStream_t s, const index_t* index, const index_t* count, index_t bound,
                 const T* dense, T* out, ListCopy copy) {
  // With a copy, at least one thread, for the count of an empty list.
  const index_t threads = copy.count != nullptr ? std::max<index_t>(bound, 1) : bound;
  for_each(s, threads, [=] __device__(index_t p) {
    if (p == 0 && copy.count != nullptr) {
      *copy.count = *count;
    }
    if (p < *count) {
      const index_t i = index[p];
      if (copy.index != nullptr) {
        copy.index[p] = i;
      }
      out[p] = dense[i];
    }
  });
}

#define CORESET_INSTANTIATE_STEP(T, Step)                                                        \
  template void merge_slots<T, sparse::Step<T>>(cudaStream_t, const sparse::Step<T>&,            \
                                                DeviceList<T>, DeviceList<T>, index_t, index_t*, \
                                                T*, Mask*);                                      \
  template void merge_compacted<T, sparse::Step<T>>(cudaStream_t, const sparse::Step<T>&,        \
                                                    DeviceList<T>, DeviceList<T>, index_t,       \
                                                    index_t*, T*, index_t*);
#define CORESET_INSTANTIATE_MAP(T, Step)                                                           \
  template void map_slots<T, sparse::Step<T>>(cudaStream_t, const sparse::Step<T>&, DeviceList<T>, \
                                              index_t, index_t*, T*, Mask*);                       \
  template void map_compacted<T, sparse::Step<T>>(cudaStream_t, const sparse::Step<T>&,            \
                                                  DeviceList<T>, index_t, index_t*, T*, index_t*);
#define CORESET_INSTANTIATE(T)                                                                    \
  CORESET_INSTANTIATE_STEP(T, Extrapolate)                                                        \
  CORESET_INSTANTIATE_STEP(T, Subtract)                                                           \
  CORESET_INSTANTIATE_STEP(T, ConvexStep)                                                         \
  CORESET_INSTANTIATE_STEP(T, GatherDense)                                                        \
  CORESET_INSTANTIATE_STEP(T, StepCandidates)                                                     \
  CORESET_INSTANTIATE_MAP(T, ClampedStep)                                                         \
  CORESET_INSTANTIATE_MAP(T, Scale)                                                               \
  template void keep_if_stopped<T>(cudaStream_t, const solvers::LoopState*, DeviceList<T>,        \
                                   index_t, index_t*, T*, index_t*);                              \
  template void gather_entries<T>(cudaStream_t, const index_t*, const index_t*, index_t,          \
                                  const index_t*, const T*, index_t*, T*);                        \
  template void scale<T>(cudaStream_t, index_t, double, const T*, T*);                            \
  template void axpby<T>(cudaStream_t, index_t, double, const T*, double, const T*, T*);          \
  template void subtract<T>(cudaStream_t, index_t, const T*, const T*, T*);                       \
  template void fill<T>(cudaStream_t, index_t, T, T*);                                            \
  template void dot<T>(cudaStream_t, index_t, const T*, const T*, double*, double*);              \
  template void squared_norm_of_list<T>(cudaStream_t, DeviceList<T>, index_t, double*, double*);  \
  template void squared_distance_of_lists<T>(cudaStream_t, DeviceList<T>, DeviceList<T>, index_t, \
                                             double*, double*);                                   \
  template bool gradient_line_search<T>(cudaStream_t, DeviceList<T>, index_t, const T*, index_t,  \
                                        double, double*);                                         \
  template bool momentum_line_search<T>(cudaStream_t, const T*, const T*, index_t, double,        \
                                        double*);                                                 \
  template bool progress_scalars<T>(cudaStream_t, const T*, index_t, DeviceList<T>, index_t,      \
                                    DeviceList<T>, index_t, double*, double*, double*);           \
  template void value_at<T>(cudaStream_t, const T*, index_t, double*);                            \
  template void zero_at<T>(cudaStream_t, const index_t*, index_t, T*);                            \
  template void gather_list<T>(cudaStream_t, const index_t*, const index_t*, index_t, const T*,   \
                               T*, ListCopy);

CORESET_INSTANTIATE(float)
CORESET_INSTANTIATE(double)
#undef CORESET_INSTANTIATE
#undef CORESET_INSTANTIATE_MAP
#undef CORESET_INSTANTIATE_STEP

}  // namespace coreset::kernels
