// The GPU backend: the primitives of the backend contract (solvers/backend.hpp, which states
// their semantics) on device memory, so the drivers written once in solvers/ run unchanged on a
// GPU. cpu/cpu_backend.hpp is the reference implementation; tests/cuda/ compares the two.
//
// Design: no host synchronisation for sizes.
//  - Phi lives on the device column-major (S x n, ld = S); the dense passes are cuBLAS gemv_64,
//    64-bit throughout, except Phi^T r for S up to 1024 in float (512 in double), which the
//    column kernels do nearer the copy bandwidth: whole-column tiles for short columns, streamed
//    columns for longer ones (kernels/phi_t_r_kernel.hpp says which).
//  - SampleVector and DatapointVector are plain device vectors (kernels::DeviceBuffer<T>) of S
//    and n entries.
//  - A SparseDatapointVector is a compact list: its support's ascending indices, one value per
//    index at the same position, and the length in device memory, with a host-side upper bound
//    (`bound`: k after a selection, the sum of the inputs' bounds after a union) that sizes the
//    launches. Every sparse step costs O(bound), never O(n) (issue 16): the union of two
//    supports is a merge path, one thread per output slot (kernels/sparse_list_logic.hpp, unit-
//    tested on the CPU), each slot's value from the same formula as the CPU backend's
//    (solvers/sparse_steps.hpp), and a CUB compaction of the slots that stay. The products
//    (phi_times, phi_t_times_on, squared_norm) walk the list, launched for the bound and reading
//    the exact count on the device. Memory: (sizeof(index_t) + sizeof(T)) per bound entry; a
//    default-constructed SparseDatapointVector owns nothing and reads as empty.
//  - Scalar is a device double (a slot of Resources' ring): line searches and momentum are
//    computed by one-thread kernels, and only read()/read_all() bring numbers to the host (the
//    IHT driver reads three per iteration, in one synchronisation).
//  - Top-k is a radix selection (kernels/radix_select_logic.hpp): 4 (float) or 8 (double)
//    histogram passes over the values with the running state on the device, then one selection
//    of the positions above the threshold and one of the ties, merged (the lowest-index ties
//    fill the places left). Never a sort of n. An excluded support is marked in an n-byte mask,
//    set before the selection and cleared after it, O(k) each. The projected step selects among
//    its at most 3k candidates, not among n. Each of a solver's three selections keeps its last
//    threshold on the device, and the next one first selects within one block among the entries
//    near or above it (one compaction pass over n) when they hold the answer: the same positions.
//    In a recorded CUDA graph the full passes are then skipped (a conditional node); in the host
//    loop they launch and return at once (kernels/radix_select_logic.hpp, ThresholdHint).
//  - Reductions accumulate in double over a launch shape fixed by the size alone, so a result
//    is the same from run to run (it may differ from the CPU backend's in the last bits).
//
// The methods are defined in cuda/cuda_backend.cpp (host code) over the kernels of kernels/.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "cuda/recorded_work.hpp"
#include "cuda/resources.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/launch.hpp"
#include "kernels/phi_t_r_kernel.hpp"
#include "kernels/radix_select_logic.hpp"
#include "solvers/argmax.hpp"
#include "solvers/backend.hpp"
#include "solvers/selection_rule.hpp"
#include "solvers/stopping_rule.hpp"

namespace coreset::cuda {

/// A sparse n-vector on the device (see the header).
template <class T>
struct DeviceSparse {
  kernels::DeviceBuffer<index_t> index;  ///< >= bound entries; the first *count are the support
  kernels::DeviceBuffer<T> value;        ///< value[p] belongs to index[p]
  kernels::DeviceBuffer<index_t> count;  ///< one entry: |support|
  index_t bound = 0;                     ///< host-side upper bound of |support|

  bool allocated() const noexcept { return !count.empty(); }
};

/// A tracked loop's state, history and stopped iterate, in device memory (solvers/backend.hpp:
/// tracked loops).
template <class T>
struct DeviceLoopTracker {
  kernels::DeviceBuffer<solvers::LoopState> state;
  kernels::DeviceBuffer<double> history;  // f after iteration t at (t - 1) mod its size
  DeviceSparse<T> stopped;
  int max_iterations = 0;
  double tolerance = 0.0;
};

/// A number in device memory.
struct DeviceScalar {
  const double* slot = nullptr;
};

template <class T>
class CudaBackend {
 public:
  using SampleVector = kernels::DeviceBuffer<T>;
  using DatapointVector = kernels::DeviceBuffer<T>;
  using SparseDatapointVector = DeviceSparse<T>;
  using Scalar = DeviceScalar;

  /// Copies Phi (host, column-major, any ld >= rows) to the device. Throws DeviceError when it
  /// does not fit in the free device memory (saying how much is needed and free).
  CudaBackend(Resources& resources, MatrixView<T> phi);
  /// Uses a Phi already on the device (S x n, ld = S), e.g. the GPU projection's.
  CudaBackend(Resources& resources, kernels::DeviceBuffer<T>&& phi, index_t rows, index_t cols);

  static constexpr double epsilon() { return std::numeric_limits<T>::epsilon(); }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  SampleVector make_sample_vector() const;
  DatapointVector make_datapoint_vector() const;
  Resources& resources() const noexcept { return res_; }
  const T* phi_data() const noexcept { return phi_.data(); }

  // ---- host transfers (tests, y, the samplers) ----
  void upload(const std::vector<T>& host, kernels::DeviceBuffer<T>& out) const;
  std::vector<T> download(const kernels::DeviceBuffer<T>& v) const;
  /// The support and values of a sparse vector on the host (ascending indices).
  void download(const SparseDatapointVector& v, std::vector<index_t>& index,
                std::vector<T>& value) const;

  // ---- dense passes: O(nS) ----
  void phi_t_times(const SampleVector& r, DatapointVector& out) const;
  void phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
                             DatapointVector& out) const;
  void phi_times_dense(const DatapointVector& v, SampleVector& out) const;
  void column_sums(SampleVector& out) const;

  // ---- sparse products: O(|supp| S) ----
  void phi_times(const SparseDatapointVector& v, SampleVector& out) const;
  void phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
                      SparseDatapointVector& out) const;

  // ---- selection: O(n) ----
  void select_top_k(const DatapointVector& v, index_t k, solvers::SelectionRule rule,
                    const SparseDatapointVector& exclude, SparseDatapointVector& out) const;
  /// select_top_k under largest_magnitude into by_magnitude and under largest_positive into
  /// positive, the same positions and values (solvers/fused_scalars.hpp): the exclusion marked
  /// once for both, and, where no threshold hint serves the selections (k over the hinted
  /// budgets), their histogram passes made together (kernels::top_k_both_rules).
  void select_top_k_both_rules(const DatapointVector& v, index_t k,
                               const SparseDatapointVector& exclude,
                               SparseDatapointVector& by_magnitude,
                               SparseDatapointVector& positive) const;
  void gather(const DatapointVector& v, const SparseDatapointVector& at,
              SparseDatapointVector& out) const;
  void restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
                         const SparseDatapointVector& b, SparseDatapointVector& out) const;

  // ---- sparse steps ----
  void projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
                      const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
                      SparseDatapointVector& x) const;
  void clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
                    SparseDatapointVector& out) const;
  void extrapolate(const SparseDatapointVector& next, const SparseDatapointVector& prev, Scalar tau,
                   SparseDatapointVector& out) const;
  void subtract(const SampleVector& a, const SampleVector& b, SampleVector& out) const;
  void subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
                SparseDatapointVector& out) const;
  void copy(const SparseDatapointVector& from, SparseDatapointVector& to) const;
  void copy(const SampleVector& from, SampleVector& to) const;
  void scale(double c, const DatapointVector& in, DatapointVector& out) const;

  // ---- scalars ----
  Scalar dot(const SampleVector& a, const SampleVector& b) const;
  Scalar squared_norm(const SparseDatapointVector& v) const;
  Scalar squared_distance(const SparseDatapointVector& a, const SparseDatapointVector& b) const;
  Scalar line_search(Scalar numerator, Scalar denominator, double factor) const;
  // The driver's composed steps, each in fewer launches (the optional members of
  // solvers/fused_scalars.hpp) with the same bits as the composed calls: the scalars one launch
  // each where their sums fit one block (two graph nodes fewer each), and a product with its
  // residual in the product's launches (one node fewer).
  Scalar gradient_line_search(const SparseDatapointVector& g, const SampleVector& q,
                              double factor) const;
  Scalar momentum_line_search(const SampleVector& r, const SampleVector& q, double factor) const;
  std::array<Scalar, 3> progress_scalars(const SampleVector& residual,
                                         const SparseDatapointVector& next,
                                         const SparseDatapointVector& prev) const;
  void phi_times_and_residual(const SparseDatapointVector& v, const SampleVector& y,
                              SampleVector& product, SampleVector& residual) const;
  Scalar constant(double c) const;
  double read(Scalar s) const;
  template <class... S>
  std::array<double, sizeof...(S)> read_all(S... s) const {
    const std::array<Scalar, sizeof...(S)> list{s...};
    std::array<double, sizeof...(S)> out{};
    read_many(list.data(), list.size(), out.data());
    return out;
  }

  // ---- the baselines ----
  void column_norms(DatapointVector& out) const;
  std::vector<index_t> duplicate_columns() const;
  /// One hash per column (kernels::column_hashes), on the host: equal columns hash alike. The
  /// distributed backend groups the ranks' columns by them.
  std::vector<std::uint64_t> column_hashes() const;
  void zero_entries(const std::vector<index_t>& at, DatapointVector& v) const;
  /// Instantiated for the rules of solvers/baselines (GigaScore with 3 vectors, FrankWolfeScore
  /// with 2) in kernels/argmax.cu.
  template <class Rule, class... Vectors>
  solvers::ArgMax argmax(const Rule& rule, const Vectors&... v) const {
    const T* vectors[] = {v.data()...};
    return argmax_of(rule, vectors, static_cast<int>(sizeof...(Vectors)));
  }
  Scalar value_at(const DatapointVector& v, index_t i) const;
  Scalar sum(const DatapointVector& v) const;
  std::vector<double> to_host(const DatapointVector& v) const;
  std::vector<double> columns_to_host(const std::vector<index_t>& indices) const;
  void from_host(const std::vector<index_t>& index, const std::vector<double>& value,
                 SparseDatapointVector& out) const;
  void convex_step(const SparseDatapointVector& w, double gamma, index_t j, double vertex,
                   SparseDatapointVector& out) const;
  void scale(double c, const SparseDatapointVector& in, SparseDatapointVector& out) const;
  void axpby(double a, const SampleVector& x, double b, const SampleVector& z,
             SampleVector& out) const;

  // ---- host-listed supports: O(m) for m listed columns, no n-sized pass ----
  // For callers that hold a support as an ascending host list (the distributed solve's device
  // blocks, cuda/device_column_block.hpp): one upload of the list, no device sparse vector.
  /// v[index[p]] for each p.
  std::vector<T> values_at(const DatapointVector& v, const std::vector<index_t>& index) const;
  /// Phi_index[p] . r for each p (one warp per column, as phi_t_times_on).
  std::vector<T> column_dots(const std::vector<index_t>& index, const SampleVector& r) const;
  /// out = sum over p of value[p] Phi_index[p] (phi_times' fixed-chunk double sums).
  void phi_times(const std::vector<index_t>& index, const std::vector<T>& value,
                 SampleVector& out) const;

  // ---- tracked loops: the stopping rule on the device, iterations replayed as a CUDA graph ----
  static constexpr bool records_work = true;
  using LoopTracker = DeviceLoopTracker<T>;
  using Recording = RecordedWork;
  LoopTracker make_loop_tracker(int done, bool z_equals_w, int max_iterations, double tolerance,
                                index_t k, int capacity) const;
  void track(LoopTracker& tracker, Scalar f, Scalar change_squared, Scalar size_squared,
             const SparseDatapointVector& w) const;
  solvers::LoopLook read(const LoopTracker& tracker) const;
  const SparseDatapointVector& stopped_iterate(const LoopTracker& tracker) const {
    return tracker.stopped;
  }
  /// Captures the work body() queues on the stream into a graph; body's host code runs now, its
  /// device work only when replayed.
  template <class Body>
  Recording record(Body body) const {
    recorded_nodes_ = 0;  // stays 0 if the capture fails
    RecordedWork::Capture capture(res_.stream());
    body();
    RecordedWork work = capture.finish();
    recorded_nodes_ = work.nodes();
    return work;
  }
  /// The nodes (kernels, copies, memsets) of the last recording: what one replay launches.
  std::size_t recorded_nodes() const noexcept { return recorded_nodes_; }
  void replay(const Recording& recording, int times) const {
    recording.launch(res_.stream(), times);
  }

  // ---- setup and results ----
  void fill_unit_random(DatapointVector& v, std::uint64_t seed) const;
  Coreset to_coreset(const SparseDatapointVector& w) const;

  // ---- the top-k's threshold reuse (kernels/radix_select_logic.hpp) ----
  /// How the selections over n entries with a hint were made since the backend was made: among
  /// the candidates of the last threshold, or by the full passes. Synchronises.
  struct SelectionCounts {
    long long by_candidates = 0;
    long long full = 0;
  };
  SelectionCounts selection_counts() const;
  /// For reuse_thresholds: hints at every k the kernels serve (up to 3/4 of the one-block
  /// capacity), for the tests and benchmarks of the mechanism.
  static constexpr index_t kEveryBudget = std::numeric_limits<index_t>::max();
  /// Whether selections use their threshold hints, and up to which k. By default, on for k up to
  /// kernels::radix::kLargestHintedBudget, where they pay; off, every selection makes the full
  /// passes. The selected positions are the same either way.
  void reuse_thresholds(bool on, index_t up_to_k = kernels::radix::kLargestHintedBudget) noexcept {
    hinted_budgets_up_to_ = on ? up_to_k : 0;
  }
  // ---- fewer launches (the same bits) ----
  /// Whether the backend takes the fewer-launch paths: both selections over one gradient with
  /// one exclusion mark and, unhinted, one set of histogram passes (select_top_k_both_rules);
  /// values over another vector's support copying it in the same launch (gather,
  /// phi_t_times_on); one-list steps (the clamped step) of up to kernels::kOneLaunchSlots slots
  /// made and compacted in one launch. On by default; off, each takes the launches it took before
  /// them, for the benchmark and the test that compare the two. The results are the same bits
  /// either way.
  void fuse_launches(bool on) noexcept { fuse_launches_ = on; }
  bool fuses_launches() const noexcept { return fuse_launches_; }
  /// Whether unions (the difference, the extrapolation, restrict_to_union, the convex step) of
  /// up to kernels::kOneLaunchSlots slots are made and compacted in one launch
  /// (kernels::merge_compacted) where the fewer-launch paths are on and the output is neither
  /// input. Off by default until a GPU has timed it against the two launches (bench_gpu
  /// --primitives); the same bits either way.
  void unions_in_one_launch(bool on) noexcept { unions_in_one_launch_ = on; }
  /// The products over a support list in chunks of at least `places` (kernels::kProductChunk by
  /// default; 64 before 50b3380), for the benchmark that times the two. The sums' chunks, and so
  /// their last bits, follow it (kernels/list_product_logic.hpp). InvalidArgument below 1.
  void chunk_products_by(index_t places) {
    kernels::require_least_chunk(places);
    product_chunk_ = places;
  }
  // ---- Phi^T r's kernel (kernels/phi_t_r_kernel.hpp) ----
  /// Which kernel computes Phi^T r: kernels::PhiTr::automatic (the default: the rule of
  /// kernels::phi_t_r_kernel for this S) or the one named, for the benchmarks and tests that
  /// compare them. InvalidArgument when that kernel does not take this Phi's columns.
  void compute_phi_t_r_by(kernels::PhiTr kernel);
  /// The kernel phi_t_times uses now (never automatic).
  kernels::PhiTr phi_t_r_kernel() const noexcept;

  /// The most keys one block selects among on this device (kernels::prepare_top_k): the largest
  /// dense selection made in one launch and the most candidates a hint may gather.
  index_t selection_capacity() const noexcept { return select_capacity_; }

 private:
  /// The selections that keep a threshold hint each: the two of select_top_k over the gradient,
  /// and the projected step's among its candidates (hinted only when they outnumber the one-block
  /// capacity, k > 5461 at 16384: never under the default's kernels::radix::kLargestHintedBudget).
  enum class HintSlot { none = -1, by_magnitude = 0, positive = 1, projection = 2 };
  static constexpr int kHintSlots = 3;

  template <class Rule>
  solvers::ArgMax argmax_of(const Rule& rule, const T* const* vectors, int count) const;
  void read_many(const Scalar* list, std::size_t count, double* out) const;
  /// `s` itself, or the backend's all-empty vector for a SparseDatapointVector that owns nothing
  /// yet.
  const SparseDatapointVector& or_empty(const SparseDatapointVector& s) const;
  /// The empty sparse vector and the scratch of the reductions and the selection.
  void allocate_working_state();
  /// Makes room in `out` for `bound` support entries.
  void prepare(SparseDatapointVector& out, index_t bound) const;
  kernels::DeviceList<T> list_of(const SparseDatapointVector& v) const;
  // out = Phi times the list (phi_times_list, its partials sized for `bound`), and y - out into
  // residual when given: every product of a list goes through here.
  void list_product(const kernels::DeviceList<T>& list, index_t bound, T* out, const T* y = nullptr,
                    T* residual = nullptr) const;
  /// to's index list and count from from's (room already prepared).
  void copy_list_of(const SparseDatapointVector& from, SparseDatapointVector& to) const;
  /// *count = value, from the host.
  void set_count(index_t* count, index_t value) const;
  /// The merge slots hold at least `slots` entries.
  void reserve_slots(index_t slots) const;
  static bool holds(const SparseDatapointVector& out, const kernels::DeviceList<T>& list);
  /// Whether a step of `slots` slots into `out` may be made and compacted in one launch: the
  /// fewer-launch paths on, one tile of slots at most, and `out` none of the lists it reads
  /// (preparing it first could free them).
  bool in_one_launch(index_t slots, const SparseDatapointVector& out,
                     std::initializer_list<kernels::DeviceList<T>> reads) const;
  /// The entries a selection of k over n takes: k within [0, n].
  index_t selectable(index_t k) const { return std::max<index_t>(0, std::min(k, cols_)); }
  /// out = the union of a and b under a step of kernels/sparse_list_logic.hpp (`out` may be a
  /// or b): the slots, then their compaction; in one launch when unions_in_one_launch asks and
  /// in_one_launch allows.
  template <class Step>
  void merge(const Step& step, kernels::DeviceList<T> a, index_t a_bound, kernels::DeviceList<T> b,
             index_t b_bound, SparseDatapointVector& out) const;
  template <class Step>
  void merge(const Step& step, const SparseDatapointVector& a, const SparseDatapointVector& b,
             SparseDatapointVector& out) const;
  /// out = in under a one-list step (`out` may be `in`); `reads`: another vector whose values
  /// the step reads, if any. In one launch up to kernels::kOneLaunchSlots slots when `out` is
  /// neither.
  template <class Step>
  void map(const Step& step, const SparseDatapointVector& in, SparseDatapointVector& out,
           const SparseDatapointVector* reads = nullptr) const;
  /// out = the kept entries among the first `slots` merge slots.
  void compact_slots(index_t slots, SparseDatapointVector& out) const;
  /// The top-k positions of v[0..n) (exclude: an n-byte mask, or null), ascending, and their
  /// number, both in device memory.
  void top_k(index_t n, const T* v, bool by_magnitude, const kernels::Mask* exclude, index_t k,
             HintSlot hint, index_t* positions, index_t* count) const;
  /// The top-k's work space for a selection of k (room for its positions and ties made), with
  /// the hint of `hint` when k is within the hinted budgets (else none).
  kernels::TopKWork top_k_work(index_t n, index_t k, HintSlot hint) const;
  /// The exclusion mask set on exclude's support: the mask, or null when exclude owns nothing.
  /// The mask is all zero between selections: clear_excluded(exclude) after them.
  const kernels::Mask* mark_excluded(const SparseDatapointVector& exclude) const;
  void clear_excluded(const SparseDatapointVector& exclude) const;
  /// select_top_k's work once the exclusion is marked (mask: mark_excluded's).
  void select_marked(const DatapointVector& v, index_t k, bool by_magnitude,
                     const kernels::Mask* mask, SparseDatapointVector& out) const;
  /// `index` into list_ and its length into list_count_, for the list kernels.
  void upload_list(const std::vector<index_t>& index) const;
  /// dense[list_[p]] for the m listed entries (upload_list first), on the host.
  std::vector<T> listed_to_host(const T* dense, index_t m) const;
  double* scalar() const { return res_.next_scalar(); }

  Resources& res_;
  index_t rows_ = 0;
  index_t cols_ = 0;
  kernels::DeviceBuffer<T> phi_;
  SparseDatapointVector empty_;
  // Reused work space (the backend is used by one thread at a time).
  mutable kernels::DeviceBuffer<double> partials_;
  mutable kernels::DeviceBuffer<T> candidates_;
  mutable kernels::DeviceBuffer<index_t> list_;        // host lists; the top-k's ties (n)
  mutable kernels::DeviceBuffer<index_t> list_count_;  // list_'s length; the top-k's three counts
  mutable kernels::DeviceBuffer<index_t> above_;       // the top-k's positions above its threshold
  mutable kernels::DeviceBuffer<index_t> positions_;   // the projected step's selected candidates
  // The top-k's two histograms and states (the second for top_k_both_rules' positive rule).
  mutable kernels::DeviceBuffer<unsigned long long> histogram_;
  mutable kernels::DeviceBuffer<unsigned int> blocks_done_;  // the top-k's finished blocks
  mutable kernels::DeviceBuffer<unsigned char> select_state_;
  mutable kernels::DeviceBuffer<unsigned char> select_hints_;  // kHintSlots hints
  index_t select_capacity_ = 0;  // the keys one block selects among (kernels::prepare_top_k)
  // Selections of k up to this keep threshold hints (0: none; a selection has k >= 1).
  index_t hinted_budgets_up_to_ = kernels::radix::kLargestHintedBudget;
  bool fuse_launches_ = true;                              // fuse_launches
  bool unions_in_one_launch_ = false;                      // unions_in_one_launch
  index_t product_chunk_ = kernels::kProductChunk;         // chunk_products_by
  kernels::PhiTr phi_t_r_by_ = kernels::PhiTr::automatic;  // compute_phi_t_r_by
  mutable kernels::DeviceBuffer<kernels::Mask> excluded_;  // n bytes, all zero between calls
  mutable kernels::DeviceBuffer<index_t> unit_;            // convex_step's vertex: index, count 1
  // The slots of a merge or map before their compaction.
  mutable kernels::DeviceBuffer<index_t> merged_index_;
  mutable kernels::DeviceBuffer<T> merged_value_;
  mutable kernels::DeviceBuffer<kernels::Mask> keep_;
  mutable kernels::DeviceBuffer<index_t> duplicates_;
  mutable std::vector<index_t> duplicates_host_;  // what duplicates_ holds
  mutable std::size_t recorded_nodes_ = 0;
};

static_assert(solvers::check_backend<CudaBackend<float>>());
static_assert(solvers::check_backend<CudaBackend<double>>());

}  // namespace coreset::cuda
