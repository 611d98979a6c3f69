// The CUB-based pieces of the GPU backend, kept in one translation unit because CUB templates are
// slow to compile: stream compaction (of a mask into an index list, of a sparse step's flagged
// slots into a list), the radix top-k (kernels/radix_select_logic.hpp: 8-bit digit histograms
// with the state on the device, never a sort of n), and the (hash, column) sort of the duplicate
// search.
#include <thrust/iterator/counting_iterator.h>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "kernels/bin_add.cuh"
#include "kernels/compact_tile.cuh"
#include "kernels/grid.cuh"
#include "kernels/launch.hpp"
#include "kernels/radix_select_logic.hpp"
#include "kernels/sparse_list_logic.hpp"

namespace coreset::kernels {
namespace {

// The histogram passes' blocks an SM (top_k_pass_blocks, and the pass kernel's launch bounds).
constexpr int kPassBlocksPerSm = 8;

using Counting = thrust::counting_iterator<index_t>;

template <class T>
struct KeyOf {
  const T* v;
  const Mask* exclude;
  bool by_magnitude;
  __device__ bool excluded(index_t i) const { return exclude != nullptr && exclude[i]; }
  /// The key of a value that is not excluded.
  __device__ kernels::radix::key_t<T> of_value(T value) const {
    return kernels::radix::selection_key(value, by_magnitude);
  }
  __device__ kernels::radix::key_t<T> operator()(index_t i) const {
    return excluded(i) ? 0 : of_value(v[i]);
  }
};

// The keys of one dense vector under kRules rules (each its own by_magnitude), read once for all
// of them: entry i's exclusion, its value, then each rule's key.
template <class T, int kRules>
struct RuleKeys {
  const T* v;
  const Mask* exclude;
  bool by_magnitude[kRules];
  __device__ __host__ KeyOf<T> rule(int r) const { return {v, exclude, by_magnitude[r]}; }
  __device__ void operator()(index_t i, kernels::radix::key_t<T> (&keys)[kRules]) const {
    const bool excluded = rule(0).excluded(i);
    const T value = excluded ? T(0) : v[i];
#pragma unroll
    for (int r = 0; r < kRules; ++r) {
      keys[r] = excluded ? 0 : rule(r).of_value(value);
    }
  }
};

template <class T>
using State = kernels::radix::SelectState<kernels::radix::key_t<T>>;
template <class T>
using Hint = kernels::radix::ThresholdHint<kernels::radix::key_t<T>>;

static_assert(kernels::radix::kChunks == kWarp, "a warp's lanes hold the histogram's chunks");

// Whether a selection's full passes have work: no hint, or its candidates did not hold the
// selection (read in every kernel of the full passes, which return at once otherwise).
template <class Key>
__device__ bool full_passes_needed(const kernels::radix::ThresholdHint<Key>* hint) {
  return hint == nullptr || hint->by_candidates == 0;
}

// choose_digit() by the calling warp, all 32 lanes (radix::choose_digit_in_chunk): each lane sums
// its chunk of 8 bins, a scan of the chunks from the highest gives each lane the keys above its
// chunk, and the one lane that answers passes its choice to all. A few dozen instructions a lane
// instead of one thread walking 256 bins, once per pass, while the rest of the block waits.
__device__ kernels::radix::DigitChoice choose_digit_by_warp(const unsigned long long* histogram,
                                                            index_t remaining) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int top = kernels::radix::kBins - 1 - lane * kernels::radix::kChunkBins;
  long long chunk = 0;
  for (int j = 0; j < kernels::radix::kChunkBins; ++j) {
    chunk += static_cast<long long>(histogram[top - j]);
  }
  long long through = chunk;  // the keys of this chunk and every chunk above it
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const long long other = __shfl_up_sync(kAll, through, offset);
    if (lane >= offset) {
      through += other;
    }
  }
  kernels::radix::DigitChoice mine{0, 0};
  const bool answers =
      kernels::radix::choose_digit_in_chunk(histogram, lane, through - chunk, remaining, mine);
  const int source = __ffs(static_cast<int>(__ballot_sync(kAll, answers))) - 1;
  return {__shfl_sync(kAll, mine.digit, source),
          static_cast<index_t>(__shfl_sync(kAll, static_cast<long long>(mine.remaining), source))};
}

// Adds one to bin `digit` of a block's histogram in shared memory for every calling thread, in
// the histogram passes over n keys: each lane its own atomic (bin_add.cuh, where the
// alternatives are). bench_gpu_histogram on an H200 (bench/results/gpu_h200_20261127_4a3fc22)
// timed it at 0.34-1.004 of the labelled partition over every vector, size, pass and grid: a
// second pass over 1e7 Gaussian keys on eight blocks an SM took 25.8 us against 59.8 us. Spread
// over every SM, the hardware's shared atomics serialise the lanes of one address more cheaply
// than the partition's match.
template <class Counter>
__device__ void add_to_pass_bin(Counter* histogram, int digit) {
  bins::add_each(histogram, digit);
}

// The same for the one-block selection (select_in_block_kernel), whose block alone adds up to
// 16384 keys, nearly all of them to one or two bins in the first passes: there every lane's own
// atomic queues 1024 threads on one address of one SM. On an H200 the one-block top-k of 16384
// Gaussian keys took 48.8-51.6 us by partition (bench_gpu_histogram, 4a3fc22) and 335-337 us by
// each lane's atomic (the same bench at d8c69d2, bench/results/gpu_h200_20261128_d8c69d2); 4096
// keys 20.7-22.0 against 92.8-93.8 us.
template <class Counter>
__device__ void add_to_block_bin(Counter* histogram, int digit) {
  bins::add_by_partition(histogram, digit);
}

// Each rule's selection state and global histogram, for the passes over its keys.
template <class T, int kRules>
struct PassTargets {
  State<T>* state[kRules];
  unsigned long long* histogram[kRules];
};

// One pass of the radix selection of each of kRules rules over the same keys (top_k: one;
// top_k_both_rules: two, each entry read once for both), in one launch. Each block adds its
// histograms (in shared memory, add_to_pass_bin) to the global ones. The block that finishes last
// (a count of finished blocks) folds each global histogram into its rule's state (a warp a rule),
// and zeroes them and the count for the next pass: no second launch per pass to advance the
// states, and no memset. The first pass (`fresh`) starts from the fresh state,
// SelectState{remaining = k}, instead of reading one. Between selections the histograms and the
// count are zero (the backend zeroes them once, when it allocates them).
// kPassBlocksPerSm blocks an SM at once (top_k_pass_blocks' grid in one wave): 32 registers a
// thread at most.
template <class T, int kRules>
__global__ void __launch_bounds__(kBlock, kPassBlocksPerSm)
    histogram_pass_kernel(index_t n, RuleKeys<T, kRules> keys, PassTargets<T, kRules> targets,
                          bool fresh, index_t k, unsigned int* blocks_done, const Hint<T>* hint) {
  static_assert(kRules >= 1 && kRules * kWarp <= kBlock, "a warp folds each rule's histogram");
  constexpr int kBins = kernels::radix::kBins;
  if (!full_passes_needed(hint)) {
    return;  // selected among the candidates: every block leaves, the count stays 0
  }
  __shared__ unsigned int local[kRules][kBins];
  __shared__ unsigned long long totals[kRules][kBins];
  __shared__ bool last;
  // Rule by rule (unrolled): an index into `targets` known at compile time keeps the kernel's
  // parameters out of local memory.
#pragma unroll
  for (int r = 0; r < kRules; ++r) {
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
      local[r][b] = 0;
    }
  }
  __syncthreads();
  State<T> st[kRules];
#pragma unroll
  for (int r = 0; r < kRules; ++r) {
    st[r] = fresh ? State<T>::fresh(k) : *targets.state[r];
  }
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    kernels::radix::key_t<T> key[kRules];
    keys(i, key);
#pragma unroll
    for (int r = 0; r < kRules; ++r) {
      if (st[r].counts(key[r])) {
        add_to_pass_bin(local[r], st[r].digit(key[r]));
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < kRules; ++r) {
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
      if (local[r][b] != 0) {
        atomicAdd(&targets.histogram[r][b], static_cast<unsigned long long>(local[r][b]));
      }
    }
  }
  // This block's additions are made before it counts itself finished, so the block that counts
  // last sees every block's. Every thread that added fences (and every reader below), not only
  // thread 0: under the PTX memory model it is the adding threads' own fences that order their
  // atomics before the count; do not trim them to one thread.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) {
    return;
  }
  __threadfence();
#pragma unroll
  for (int r = 0; r < kRules; ++r) {
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
      totals[r][b] = __ldcg(&targets.histogram[r][b]);  // from L2, where the atomics are
      targets.histogram[r][b] = 0;
    }
  }
  __syncthreads();
  // Warp r folds rule r's histogram; thread 0 also zeroes the count for the next pass.
#pragma unroll
  for (int r = 0; r < kRules; ++r) {
    if (threadIdx.x >= r * kWarp && threadIdx.x < (r + 1) * kWarp) {
      const kernels::radix::DigitChoice choice = choose_digit_by_warp(totals[r], st[r].remaining);
      if (threadIdx.x == r * kWarp) {
        State<T> next = st[r];
        next.advance(choice);
        *targets.state[r] = next;
        if (r == 0) {
          *blocks_done = 0;
        }
      }
    }
  }
}

// The full selection's predicates, after the passes: the keys above t (kTies false) or tied with
// it (true); none holds when the selection was made among the candidates.
template <class T, bool kTies>
struct InFullSelection {
  KeyOf<T> key_of;
  const State<T>* state;
  const Hint<T>* hint;
  __device__ bool operator()(index_t i) const {
    if (!full_passes_needed(hint)) {
      return false;
    }
    const auto key = key_of(i);
    return kTies ? state->tie(key) : state->above(key);
  }
};

// The candidates of a selection with a hint: the keys at or above the hint's bound; without a
// guess, none, and no value is read.
template <class T>
struct IsCandidate {
  KeyOf<T> key_of;
  const Hint<T>* hint;
  __device__ bool operator()(index_t i) const {
    return hint->guessing() && key_of(i) >= hint->bound;
  }
};

// The selection: the positions above the threshold and the lowest-index ties that fill the places
// left, both ascending, merged into one ascending list (sparse_list_logic.hpp).
// With a hint: nothing when the selection was made among the candidates, else t is recorded for
// the next selection.
template <class T>
__global__ void take_selection_kernel(index_t bound, const index_t* above, const index_t* ties,
                                      const index_t* counts, const State<T>* state, Hint<T>* hint,
                                      index_t* out_positions, index_t* out_count) {
  if (!full_passes_needed(hint)) {
    return;
  }
  const index_t above_count = counts[0];
  const index_t ties_taken = min(counts[1], state->remaining);
  const index_t total = min(above_count + ties_taken, bound);
  if (global_thread() == 0) {
    *out_count = total;
    if (hint != nullptr) {
      hint->record(state->prefix);
    }
  }
  for (index_t p = global_thread(); p < total; p += grid_stride()) {
    out_positions[p] = sparse::selected_position(above, above_count, ties, ties_taken, p);
  }
}

// Up to this many slots (four tiles), a sparse step's kept entries are compacted by one block,
// one launch; beyond, by CUB's device-wide selection. One block walks its tiles in turn, so its
// time grows with the slots: at k = 10^4 (supports of up to 3 x 10^4 slots) an A-IHT II
// iteration on an H100 took 0.6-0.7 ms more than at k = 100 (bench_gpu at f516e67, when this was
// 2^16), against a few microseconds for each of CUB's launches.
constexpr index_t kOneBlockCompaction = index_t{1} << 13;

// The kept slots in order: each tile's flags scanned (blocked arrangement: thread t holds slots
// 8t ... 8t + 7 of the tile), the kept ones written after those of the earlier tiles.
template <class T>
__global__ void compact_entries_kernel(index_t m, const index_t* index, const T* value,
                                       const Mask* keep, index_t* out_index, T* out_value,
                                       index_t* out_count) {
  __shared__ typename cub::BlockScan<index_t, kCompactThreads>::TempStorage scan;
  constexpr index_t kTile = index_t{kCompactThreads} * kCompactItems;
  index_t written = 0;  // the same in every thread
  for (index_t tile = 0; tile < m; tile += kTile) {
    const index_t first = tile + static_cast<index_t>(threadIdx.x) * kCompactItems;
    index_t flags[kCompactItems];
    for (int j = 0; j < kCompactItems; ++j) {
      flags[j] = first + j < m && keep[first + j] != 0 ? 1 : 0;
    }
    written += compact_tile<kCompactThreads>(scan, flags, written, [&](int j, index_t at) {
      out_index[at] = index[first + j];
      out_value[at] = value[first + j];
    });
  }
  if (threadIdx.x == 0) {
    *out_count = written;
  }
}

// A selection within one block of 1024 threads, of at most radix::kCandidateCapacity keys: the
// keys read once into (dynamic) shared memory, the passes' histograms there, each pass's digit
// chosen by a warp, then the positions above the threshold and the first `remaining` ties, in
// ascending order, by two block-wide scans per tile of 4096 keys (4 a thread). The state machine
// is the multi-block path's. Serves two callers (see top_k): a short dense vector (DenseKeys),
// and the candidates of a selection with a hint (ListedKeys), where the kernel first judges
// whether the candidates hold the answer (ThresholdHint::fits) and leaves the work to the full
// passes when they do not.
constexpr int kSelectThreads = 1024;
constexpr int kSelectItems = 4;  // per thread and tile
constexpr int kSelectTile = kSelectThreads * kSelectItems;
static_assert(kernels::radix::kCandidateCapacity % kSelectTile == 0, "the capacity is whole tiles");

// The dynamic shared memory of a selection of up to m keys (the keys themselves).
template <class T>
std::size_t select_shared_bytes(index_t m) {
  return static_cast<std::size_t>(m) * sizeof(kernels::radix::key_t<T>);
}

// Entries 0 ... n - 1 of a dense vector, at their own positions.
template <class T>
struct DenseKeys {
  KeyOf<T> key_of;
  index_t n;
  __device__ index_t count() const { return n; }
  __device__ kernels::radix::key_t<T> key(index_t j) const { return key_of(j); }
  __device__ index_t position(index_t j) const { return j; }
};

// The entries at the listed positions (ascending), as many as the count on the device says.
template <class T>
struct ListedKeys {
  KeyOf<T> key_of;
  const index_t* list;
  const index_t* list_count;
  __device__ index_t count() const { return *list_count; }
  __device__ kernels::radix::key_t<T> key(index_t j) const { return key_of(list[j]); }
  __device__ index_t position(index_t j) const { return list[j]; }
};

// With a hint and `sets_condition` (the launch is part of a CUDA graph), the verdict also goes to
// the graph's conditional node, whose body holds the full passes: 1, run them; 0, skip them.
template <class T, class Keys>
__global__ void __launch_bounds__(kSelectThreads)
    select_in_block_kernel(Keys keys, index_t k, Hint<T>* hint, bool sets_condition,
                           cudaGraphConditionalHandle condition, index_t* out_positions,
                           index_t* out_count) {
  using Key = kernels::radix::key_t<T>;
  // Ranks and offsets below the capacity: 32-bit, so that 4 items a thread fit in the 64
  // registers a thread of 1024 has.
  using Scan = cub::BlockScan<int, kSelectThreads>;
  extern __shared__ __align__(16) unsigned char select_shared[];
  Key* key_at = reinterpret_cast<Key*>(select_shared);  // the launch's select_shared_bytes
  __shared__ unsigned long long histogram[kernels::radix::kBins];
  __shared__ typename Scan::TempStorage scan;
  __shared__ kernels::radix::DigitChoice choice;
  const index_t n = keys.count();
  if (hint != nullptr) {
    // The same verdict in every thread; only thread 0 writes the hint, never its capacity, the
    // one field the others read.
    const bool fits = hint->fits(n, k);
    if (threadIdx.x == 0) {
      hint->adapt(n, k);
      hint->by_candidates = fits ? 1 : 0;
      ++(fits ? hint->candidate_selections : hint->full_selections);
      if (sets_condition) {
        cudaGraphSetConditional(condition, fits ? 0u : 1u);
      }
    }
    if (!fits) {
      return;
    }
  }
  for (index_t j = threadIdx.x; j < n; j += kSelectThreads) {
    key_at[j] = keys.key(j);
  }
  State<T> state = State<T>::fresh(k);  // every thread keeps the same copy
  for (int pass = 0; pass < kernels::radix::pass_count<Key>(); ++pass) {
    for (int b = threadIdx.x; b < kernels::radix::kBins; b += kSelectThreads) {
      histogram[b] = 0;
    }
    __syncthreads();  // the keys are in, the histogram clear, the last choice read by all
    for (index_t j = threadIdx.x; j < n; j += kSelectThreads) {
      if (state.counts(key_at[j])) {
        add_to_block_bin(histogram, state.digit(key_at[j]));
      }
    }
    __syncthreads();
    if (threadIdx.x < kWarp) {
      const kernels::radix::DigitChoice chosen = choose_digit_by_warp(histogram, state.remaining);
      if (threadIdx.x == 0) {
        choice = chosen;
      }
    }
    __syncthreads();
    state.advance(choice);
  }
  // Tile by tile; blocked within a tile: thread t holds its keys 4t ... 4t + 3. Keys past n are
  // 0, neither above nor tied. `ties_seen` and `taken` run on over the tiles, the same in every
  // thread.
  int ties_seen = 0;
  int taken = 0;
  for (int tile = 0; tile < n; tile += kSelectTile) {
    const int first = tile + static_cast<int>(threadIdx.x) * kSelectItems;
    int tie[kSelectItems];
    int take[kSelectItems];
    for (int j = 0; j < kSelectItems; ++j) {
      const Key key = first + j < n ? key_at[first + j] : Key(0);
      tie[j] = state.tie(key) ? 1 : 0;
      take[j] = state.above(key) ? 1 : 0;
    }
    int tie_rank[kSelectItems];
    int tile_ties = 0;
    Scan(scan).ExclusiveSum(tie, tie_rank, tile_ties);
    __syncthreads();  // the scan's storage serves the next scan
    for (int j = 0; j < kSelectItems; ++j) {
      if (tie[j] != 0 && ties_seen + tie_rank[j] < state.remaining) {
        take[j] = 1;  // the lowest-index ties fill the places left
      }
    }
    taken += compact_tile<kSelectThreads>(
        scan, take, taken, [&](int j, int at) { out_positions[at] = keys.position(first + j); });
    ties_seen += tile_ties;
  }
  if (threadIdx.x == 0) {
    *out_count = taken;
    if (hint != nullptr) {
      hint->record(state.prefix);
    }
  }
}

__global__ void iota_kernel(index_t n, index_t* values) {
  for (index_t i = global_thread(); i < n; i += grid_stride()) {
    values[i] = i;
  }
}

// The passes of kRules selections of k over the same keys on stream s, one launch a pass.
template <class T, int kRules>
void histogram_passes(cudaStream_t s, index_t n, const RuleKeys<T, kRules>& keys,
                      const PassTargets<T, kRules>& targets, index_t k, unsigned int* blocks_done,
                      const Hint<T>* hint) {
  const unsigned int blocks = top_k_pass_blocks(n);
  for (int pass = 0; pass < kernels::radix::pass_count<kernels::radix::key_t<T>>(); ++pass) {
    histogram_pass_kernel<T, kRules>
        <<<blocks, kBlock, 0, s>>>(n, keys, targets, pass == 0, k, blocks_done, hint);
    CORESET_CUDA_CHECK_LAUNCH();
  }
}

// A full selection's positions once its passes have left t in `state`: the positions above t
// and the ties, merged. work.above, ties and counts serve any number of selections in turn.
template <class T>
void take_full_selection(cudaStream_t s, Scratch& scratch, index_t n, const KeyOf<T>& key_of,
                         index_t k, const TopKWork& work, const State<T>* state, Hint<T>* hint,
                         index_t* out_positions, index_t* out_count) {
  // Fewer than k keys beat the k-th largest, so `above` needs k places; ties may be all n.
  const InFullSelection<T, false> is_above{key_of, state, hint};
  const InFullSelection<T, true> is_tie{key_of, state, hint};
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::If(nullptr, bytes, Counting(0), work.above, work.counts, n, is_above, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::If(scratch.get(bytes), bytes, Counting(0), work.above,
                                         work.counts, n, is_above, s));
  bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::If(nullptr, bytes, Counting(0), work.ties, work.counts + 1, n, is_tie, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::If(scratch.get(bytes), bytes, Counting(0), work.ties,
                                         work.counts + 1, n, is_tie, s));
  const index_t bound = std::min(k, n);
  take_selection_kernel<T><<<blocks_for(bound), kBlock, 0, s>>>(
      bound, work.above, work.ties, work.counts, state, hint, out_positions, out_count);
  CORESET_CUDA_CHECK_LAUNCH();
}

// The full selection on stream s: the histogram passes, the positions above the threshold and
// the ties, merged. With a hint, each kernel first checks whether the candidates already made the
// selection (and returns at once if so), and the threshold is recorded in the hint.
template <class T>
void full_selection(cudaStream_t s, Scratch& scratch, index_t n, const KeyOf<T>& key_of, index_t k,
                    const TopKWork& work, Hint<T>* hint, index_t* out_positions,
                    index_t* out_count) {
  auto* state = reinterpret_cast<State<T>*>(work.state);
  histogram_passes<T, 1>(s, n, RuleKeys<T, 1>{key_of.v, key_of.exclude, {key_of.by_magnitude}},
                         PassTargets<T, 1>{{state}, {work.histogram}}, k, work.blocks_done, hint);
  take_full_selection(s, scratch, n, key_of, k, work, state, hint, out_positions, out_count);
}

// The graph stream s is being captured into (null when it is not being captured), and the nodes
// its next work will follow.
struct CaptureInfo {
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* dependencies = nullptr;
  std::size_t count = 0;
};

CaptureInfo capture_info(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CaptureInfo info;
  CORESET_CUDA_TRY(cudaStreamGetCaptureInfo(s, &status, nullptr, &info.graph, &info.dependencies,
                                            nullptr, &info.count));
  if (status != cudaStreamCaptureStatusActive) {
    info = CaptureInfo{};
  }
  return info;
}

// Appends to the graph s is captured into an `if` node on `condition`, after everything captured
// so far (later work on s follows the node), and records body(body_stream) as the node's body.
template <class Body>
void capture_if(cudaStream_t s, cudaStream_t body_stream, cudaGraphConditionalHandle condition,
                const Body& body) {
  const CaptureInfo at = capture_info(s);
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = condition;
  params.conditional.type = cudaGraphCondTypeIf;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  CORESET_CUDA_TRY(cudaGraphAddNode(&node, at.graph, at.dependencies, nullptr, at.count, &params));
  CORESET_CUDA_TRY(
      cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  CORESET_CUDA_TRY(cudaStreamBeginCaptureToGraph(body_stream, params.conditional.phGraph_out[0],
                                                 nullptr, nullptr, 0,
                                                 cudaStreamCaptureModeThreadLocal));
  cudaGraph_t recorded = nullptr;
  try {
    body(body_stream);
  } catch (...) {
    cudaStreamEndCapture(body_stream, &recorded);  // the error thrown is the first one
    cudaGetLastError();
    throw;
  }
  CORESET_CUDA_TRY(cudaStreamEndCapture(body_stream, &recorded));
}

}  // namespace

void compact(cudaStream_t s, Scratch& scratch, index_t n, const Mask* mask, index_t* out_index,
             index_t* out_count) {
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::Flagged(nullptr, bytes, Counting(0), mask, out_index, out_count, n, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::Flagged(scratch.get(bytes), bytes, Counting(0), mask,
                                              out_index, out_count, n, s));
}

template <class T>
void top_k(cudaStream_t s, Scratch& scratch, index_t n, const T* v, bool by_magnitude,
           const Mask* exclude, index_t k, const TopKWork& work, index_t* out_positions,
           index_t* out_count) {
  static_assert(sizeof(State<T>) <= kTopKStateBytes, "top-k state does not fit its buffer");
  static_assert(sizeof(Hint<T>) <= kTopKHintBytes, "top-k hint does not fit its buffer");
  if (k <= 0) {
    CORESET_CUDA_TRY(cudaMemsetAsync(out_count, 0, sizeof(index_t), s));
    return;
  }
  const KeyOf<T> key_of{v, exclude, by_magnitude};
  if (n <= work.capacity) {
    select_in_block_kernel<T><<<1, kSelectThreads, select_shared_bytes<T>(n), s>>>(
        DenseKeys<T>{key_of, n}, k, nullptr, false, 0, out_positions, out_count);
    CORESET_CUDA_CHECK_LAUNCH();
    return;
  }
  auto* hint = kernels::radix::hint_serves(n, k, work.capacity)
                   ? reinterpret_cast<Hint<T>*>(work.hint)
                   : nullptr;
  if (hint == nullptr) {
    full_selection(s, scratch, n, key_of, k, work, hint, out_positions, out_count);
    return;
  }
  // Threshold reuse (radix_select_logic.hpp): the candidates at or above the hint's bound,
  // ascending, into `ties` (n places, free until the full passes' ties), and the selection among
  // them when they hold it.
  const IsCandidate<T> is_candidate{key_of, hint};
  index_t* candidate_count = work.counts + 2;
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(cub::DeviceSelect::If(nullptr, bytes, Counting(0), work.ties, candidate_count, n,
                                         is_candidate, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::If(scratch.get(bytes), bytes, Counting(0), work.ties,
                                         candidate_count, n, is_candidate, s));
  // In a CUDA graph the full passes are the body of an `if` node that the candidates' kernel
  // sets (reset to "run" at every launch of the graph): skipped, they cost no launch at all.
  // Outside a graph (the host loop) they are queued after it and return at once when not needed.
  cudaGraph_t graph = work.body_stream != nullptr ? capture_info(s).graph : nullptr;
  const bool conditional = graph != nullptr;
  cudaGraphConditionalHandle condition = 0;
  if (conditional) {
    CORESET_CUDA_TRY(
        cudaGraphConditionalHandleCreate(&condition, graph, 1, cudaGraphCondAssignDefault));
  }
  select_in_block_kernel<T><<<1, kSelectThreads, select_shared_bytes<T>(work.capacity), s>>>(
      ListedKeys<T>{key_of, work.ties, candidate_count}, k, hint, conditional, condition,
      out_positions, out_count);
  CORESET_CUDA_CHECK_LAUNCH();
  if (conditional) {
    capture_if(s, work.body_stream, condition, [&](cudaStream_t body) {
      full_selection(body, scratch, n, key_of, k, work, hint, out_positions, out_count);
    });
  } else {
    full_selection(s, scratch, n, key_of, k, work, hint, out_positions, out_count);
  }
}

template <class T>
void top_k_both_rules(cudaStream_t s, Scratch& scratch, index_t n, const T* v, const Mask* exclude,
                      index_t k, const TopKWork& work, const TopKSelection& by_magnitude,
                      const TopKSelection& positive) {
  TopKWork unhinted = work;
  unhinted.hint = nullptr;
  if (k <= 0 || n <= work.capacity) {  // nothing to select, or each in one block's launch
    top_k(s, scratch, n, v, true, exclude, k, unhinted, by_magnitude.positions, by_magnitude.count);
    top_k(s, scratch, n, v, false, exclude, k, unhinted, positive.positions, positive.count);
    return;
  }
  const RuleKeys<T, 2> keys{v, exclude, {true, false}};
  State<T>* states[2] = {reinterpret_cast<State<T>*>(work.state),
                         reinterpret_cast<State<T>*>(work.second_state)};
  histogram_passes<T, 2>(
      s, n, keys,
      PassTargets<T, 2>{{states[0], states[1]}, {work.histogram, work.second_histogram}}, k,
      work.blocks_done, nullptr);
  take_full_selection(s, scratch, n, keys.rule(0), k, work, states[0], nullptr,
                      by_magnitude.positions, by_magnitude.count);
  take_full_selection(s, scratch, n, keys.rule(1), k, work, states[1], nullptr, positive.positions,
                      positive.count);
}

template <class T>
void compact_entries(cudaStream_t s, Scratch& scratch, index_t m, const index_t* index,
                     const T* value, const Mask* keep, index_t* out_index, T* out_value,
                     index_t* out_count) {
  if (m <= kOneBlockCompaction) {
    compact_entries_kernel<T>
        <<<1, kCompactThreads, 0, s>>>(m, index, value, keep, out_index, out_value, out_count);
    CORESET_CUDA_CHECK_LAUNCH();
    return;
  }
  // Two selections with the same flags: the same slots, so the same count, written twice.
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::Flagged(nullptr, bytes, index, keep, out_index, out_count, m, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::Flagged(scratch.get(bytes), bytes, index, keep, out_index,
                                              out_count, m, s));
  bytes = 0;
  CORESET_CUDA_TRY(
      cub::DeviceSelect::Flagged(nullptr, bytes, value, keep, out_value, out_count, m, s));
  CORESET_CUDA_TRY(cub::DeviceSelect::Flagged(scratch.get(bytes), bytes, value, keep, out_value,
                                              out_count, m, s));
}

void sort_pairs(cudaStream_t s, Scratch& scratch, index_t n, const std::uint64_t* keys_in,
                std::uint64_t* keys_out, const index_t* values_in, index_t* values_out) {
  std::size_t bytes = 0;
  CORESET_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in,
                                                   values_out, n, 0, 64, s));
  CORESET_CUDA_TRY(cub::DeviceRadixSort::SortPairs(scratch.get(bytes), bytes, keys_in, keys_out,
                                                   values_in, values_out, n, 0, 64, s));
}

// The one-block selection's keys take up to 64 KiB (float) or 128 KiB (double) of shared memory,
// over the 48 KiB a launch gets unless the kernel is allowed more, and over what some devices
// give a block at all (99 KiB on sm_86/89/120, 64 KiB on sm_75): as many whole tiles as fit.
template <class T>
index_t prepare_top_k() {
  const void* kernels[] = {
      reinterpret_cast<const void*>(&select_in_block_kernel<T, DenseKeys<T>>),
      reinterpret_cast<const void*>(&select_in_block_kernel<T, ListedKeys<T>>)};
  int device = 0;
  CORESET_CUDA_TRY(cudaGetDevice(&device));
  int per_block = 0;
  CORESET_CUDA_TRY(
      cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  std::size_t fixed = 0;  // the kernels' static shared memory
  for (const void* kernel : kernels) {
    cudaFuncAttributes attributes{};
    CORESET_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    fixed = std::max(fixed, attributes.sharedSizeBytes);
  }
  const std::size_t room = static_cast<std::size_t>(per_block) - fixed;
  const auto tiles = static_cast<index_t>(room / select_shared_bytes<T>(kSelectTile));
  const index_t capacity =
      std::clamp<index_t>(tiles * kSelectTile, kSelectTile, kernels::radix::kCandidateCapacity);
  for (const void* kernel : kernels) {
    CORESET_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(select_shared_bytes<T>(capacity))));
  }
  return capacity;
}

// Eight blocks an SM: bench_gpu_histogram on an H200 (bench/results/gpu_h200_20261127_4a3fc22)
// timed the passes on eight blocks an SM against the 4096 that were the grid here, and with each
// lane's own atomic the smaller grid took a second pass over 1e7 Gaussian keys in 25.8 us against
// 50.9, over 1e6 in 17.5 against 46.0; first passes took 2-35% less. With the add above, a pass
// takes 0.35-0.83 of its time before both changes. Each block adds its histogram to the global
// one at its end, so fewer blocks make fewer of those atomics.
unsigned int top_k_pass_blocks(index_t n) {
  int device = 0;
  CORESET_CUDA_TRY(cudaGetDevice(&device));
  int sms = 0;
  CORESET_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::min(blocks_for(n), static_cast<unsigned int>(kPassBlocksPerSm * std::max(sms, 1)));
}

void iota(cudaStream_t s, index_t n, index_t* values) {
  iota_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, values);
  CORESET_CUDA_CHECK_LAUNCH();
}

#define CORESET_INSTANTIATE(T)                                                                  \
  template index_t prepare_top_k<T>();                                                          \
  template void top_k<T>(cudaStream_t, Scratch&, index_t, const T*, bool, const Mask*, index_t, \
                         const TopKWork&, index_t*, index_t*);                                  \
  template void top_k_both_rules<T>(cudaStream_t, Scratch&, index_t, const T*, const Mask*,     \
                                    index_t, const TopKWork&, const TopKSelection&,             \
                                    const TopKSelection&);                                      \
  template void compact_entries<T>(cudaStream_t, Scratch&, index_t, const index_t*, const T*,   \
                                   const Mask*, index_t*, T*, index_t*);

CORESET_INSTANTIATE(float)
CORESET_INSTANTIATE(double)
#undef CORESET_INSTANTIATE

}  // namespace coreset::kernels
