// The backend contract: everything the drivers of solvers/ (iht_driver.hpp, power_iteration.hpp,
// refit.hpp, run_algorithm.hpp, baselines/*.hpp) ask of a backend, in one place. A backend is a
// class B over Phi (S x n, element type T: float or double) that the drivers take as `B&`; the
// CPU backend (cpu/cpu_backend.hpp) is the reference, the CUDA one (cuda/cuda_backend.hpp) the
// second. A third backend is written from this file alone; check_backend<B>() below holds it to
// the signatures, tests/solvers/test_backend_contract.cpp shows a naive backend written from this
// text giving the CPU backend's coresets.
//
// ===== Words =====
//
// Two spaces: the SAMPLE space (S entries: y, Phi w, residuals y - Phi w) and the DATAPOINT space
// (n entries, one per column of Phi: weights w, gradients Phi^T r). A backend has a type for each
// (they may be one type) and a sparse type for datapoint vectors with few non-zeros.
//
// Support: a SparseDatapointVector holds a strictly ascending index list, its support, and one
// value per index; every entry off the support is 0. A value on the support may itself be 0 only
// where a primitive says "keeps the support" (gather, restrict_to_union, phi_t_times_on,
// from_host); the primitives marked "zeros leave" drop every entry that rounds to exactly 0
// (clamped_step and projected_step keep only values > 0). The drivers rely on this: IHT's z
// (from extrapolate or a copy of w) is the `exclude` set of select_top_k, so an explicit 0 kept
// there would change which points can be chosen.
//
// Rounding: "in double, rounded once to T" means the formula is evaluated in double from the T
// inputs (converted exactly) and the result converted to T once. Sums of many terms ("reduction")
// are taken in double unless stated, in an order the backend chooses but which depends only on
// the sizes: the same inputs give the same bits on every run, whatever the thread count. The
// drivers' reproducibility (same seed, same coreset) rests on this; they never rely on two
// primitives, or two backends, rounding alike.
//
// Aliasing: an output argument is distinct from every input unless its entry says otherwise.
// Outputs are overwritten whole (a sparse output's old support is forgotten). A default-
// constructed SparseDatapointVector is empty and valid as input and as output.
//
// Costs (per call; S rows, n columns, |.| a support size): "pass" = O(nS), one read of Phi,
// the only cost that matters at scale; drivers make one or two per iteration.
//
// ===== Member types and constants =====
//
//  SampleVector           S entries of T. Made only by make_sample_vector(); movable, swappable
//                         (std::swap exchanges contents).
//  DatapointVector        n entries of T. Made only by make_datapoint_vector(); movable.
//  SparseDatapointVector  a sparse n-vector (see Support); default-constructible (empty),
//                         movable, swappable.
//  Scalar                 one number the backend may keep where it computes (the CUDA one is a
//                         device double): produced by the functions below, consumed by
//                         line_search, read, read_all. Default-constructible, copyable; holds a
//                         double's worth of precision.
//  static double epsilon()  the unit roundoff of T (std::numeric_limits<T>::epsilon()): GIGA
//                         scales its degeneracy thresholds by it.
//
// ===== Sizes and factories: O(1), O(S), O(n) =====
//
//  index_t rows()                          S.
//  index_t cols()                          n.
//  SampleVector make_sample_vector()       S zeros.
//  DatapointVector make_datapoint_vector() n zeros.
//
// ===== Dense passes: O(nS) =====
//
//  phi_t_times(const SampleVector& r, DatapointVector& out)
//      out[j] = <Phi_j, r> for every column j, accumulated in at least T precision; each entry
//      depends on column j and r only.
//  phi_t_times_on_subset(const SampleVector& r, const std::vector<index_t>& subset,
//                        DatapointVector& out)                                   O(|subset| S)
//      out[j] = <Phi_j, r> for j in subset (strictly ascending host indices), 0 elsewhere: batch
//      A-IHT's gradient. Reads only those columns.
//  phi_times_dense(const DatapointVector& v, SampleVector& out)
//      out = Phi v (the power iteration's half-step).
//  column_sums(SampleVector& out)
//      out = Phi 1, the default target y. Not called by the drivers but by the entry points that
//      make y (cpu/solve_cpu.cpp, cuda/solve_cuda.cpp); how a given host y becomes a
//      SampleVector is the backend's own API.
//  column_norms(DatapointVector& out)
//      out[j] = ||Phi_j||: the sum of squares in double, its square root rounded once to T.
//  std::vector<index_t> duplicate_columns()                        a pass, expected (hashing)
//      The columns equal bit for bit (so 0.0 and -0.0 differ) to a column of lower index,
//      strictly ascending. Exact: a hash may group candidates, never decide.
//
// ===== Sparse products: O(|supp| S) =====
//
//  phi_times(const SparseDatapointVector& v, SampleVector& out)
//      out = sum over supp(v) of v_j Phi_j; the empty v gives 0.
//  phi_t_times_on(const SparseDatapointVector& support, const SampleVector& r,
//                 SparseDatapointVector& out)
//      out has support's support (keeps the support) and values <Phi_j, r>.
//
// ===== Selection over the datapoints: O(n) =====
//
//  select_top_k(const DatapointVector& v, index_t k, SelectionRule rule,
//               const SparseDatapointVector& exclude, SparseDatapointVector& out)
//      The (at most) k indices i outside supp(exclude) ranked first by `rule`
//      (solvers/selection_rule.hpp): largest_positive ranks entries v_i > 0 by v_i,
//      largest_magnitude entries v_i != 0 by |v_i|; ties go to the lower index; zeros, -0.0 and
//      NaN are never chosen, so fewer than k come back when fewer qualify. out holds them in
//      ascending index order with their values v_i (signed, not |v_i|). 0 <= k <= n. Never a sort
//      of n entries: a selection.
//  gather(const DatapointVector& v, const SparseDatapointVector& at, SparseDatapointVector& out)
//      out = v on supp(at) (keeps the support, zero values included).
//  restrict_to_union(const DatapointVector& v, const SparseDatapointVector& a,
//                    const SparseDatapointVector& b, SparseDatapointVector& out)
//      out = v on supp(a) united with supp(b) (keeps the support).
//  zero_entries(const std::vector<index_t>& at, DatapointVector& v)                 O(|at|)
//      v_i = 0 for i in `at` (ascending). The IHT driver passes the same list every iteration.
//  ArgMax argmax(const Rule& rule, const DatapointVector&... v)    (1 to 3 vectors)
//      The index i maximising rule(double(v1_i), ..., double(vm_i)) (a double) and that score
//      (solvers/argmax.hpp): ties to the lower index, NaN and -infinity never win, index -1 when
//      nothing scores above -infinity. Rule is a CORESET_HOST_DEVICE functor; the drivers use
//      GigaScore with (e, c, sigma) and FrankWolfeScore with (c, sigma). Reduce with
//      solvers::better, which is associative and commutative, so any order gives one answer.
//
// ===== Small sparse steps: O(k) =====
//
//  projected_step(const SparseDatapointVector& z, const SparseDatapointVector& g_on_z,
//                 const SparseDatapointVector& g_outside_z, Scalar step, index_t k,
//                 SparseDatapointVector& x)
//      x = Pi_{C_k and R+}(z + step g): the candidates are z_i + step g_i for i in supp(z)
//      (g_on_z has exactly z's support) and step g_i for i in supp(g_outside_z) (disjoint from
//      supp(z)), each in double, rounded once to T; x keeps the k largest candidates > 0, ties to
//      the lower index, in ascending index order. step >= 0.
//  clamped_step(const SparseDatapointVector& x, Scalar step, const SparseDatapointVector& g,
//               SparseDatapointVector& out)
//      out = Pi_{R+}(x + step g) on supp(x) (g has x's support): x_i + step g_i in double,
//      rounded once to T, kept when > 0.
//  extrapolate(const SparseDatapointVector& next, const SparseDatapointVector& prev,
//              Scalar tau, SparseDatapointVector& out)
//      out_i = a + tau (a - b), a = next_i, b = prev_i, over the union of the supports, in double,
//      rounded once to T; zeros leave.
//  subtract(const SparseDatapointVector& a, const SparseDatapointVector& b,
//           SparseDatapointVector& out)
//      out = a - b over the union of the supports, rounded once to T; zeros leave.
//  copy(const SparseDatapointVector& from, SparseDatapointVector& to)      to = from exactly.
//  convex_step(const SparseDatapointVector& w, double gamma, index_t j, double vertex,
//              SparseDatapointVector& out)
//      out_i = (1 - gamma) w_i + [i == j] gamma vertex, over supp(w) and j, evaluated as written
//      in double, rounded once to T; zeros leave. GIGA's and Frank-Wolfe's step.
//  scale(double c, const SparseDatapointVector& in, SparseDatapointVector& out)
//      out_i = c in_i in double, rounded once to T; zeros leave. `out` may be `in`.
//
// ===== Sample-space vector ops: O(S) =====
//
//  subtract(const SampleVector& a, const SampleVector& b, SampleVector& out)
//      out = a - b in T. `out` may be `a` or `b`.
//  copy(const SampleVector& from, SampleVector& to)                        to = from exactly.
//  axpby(double a, const SampleVector& x, double b, const SampleVector& z, SampleVector& out)
//      out_i = a x_i + b z_i in double, rounded once to T. `out` may be `x`, `z` or both.
//
// ===== Datapoint-space vector ops: O(n) =====
//
//  scale(double c, const DatapointVector& in, DatapointVector& out)
//      out_i = in_i * T(c) in T (the factor rounded to T first). `out` may be `in`.
//  fill_unit_random(DatapointVector& v, std::uint64_t seed)
//      The power iteration's start, the same on every backend so that IHT's step (and with it
//      the whole trajectory) is too: g_i = T(the i-th draw of std::normal_distribution<double>
//      driven by std::mt19937_64(seed)), i = 0 ... n-1, drawn on the host in index order;
//      q = sum of double(g_i)^2 in index order; v_i = g_i * T(1 / sqrt(q)) in T.
//
// ===== Scalars: reductions to one number =====
//
//  Scalar dot(const SampleVector& a, const SampleVector& b)        O(S)    <a, b>, reduction.
//  Scalar dot(const DatapointVector& a, const DatapointVector& b)  O(n)    the same on n entries
//      (the power iteration's ||Phi^T u||^2); one overload serves when the types coincide.
//  Scalar squared_norm(const SparseDatapointVector& v)             O(|supp|)  sum of v_i^2.
//  Scalar squared_distance(const SparseDatapointVector& a, const SparseDatapointVector& b)
//      sum of (a_i - b_i)^2 over the union of the supports, the difference in double.
//  Scalar line_search(Scalar numerator, Scalar denominator, double factor)          O(1)
//      solvers::guarded_step(numerator, denominator, factor) (solvers/line_search.hpp), exactly:
//      0 for a denominator that is not > 0 or a step that is not finite.
//  Scalar constant(double c)                                       O(1)    c, exactly.
//  Scalar value_at(const DatapointVector& v, index_t i)            O(1)    double(v_i).
//  Scalar sum(const DatapointVector& v)                            O(n)    sum of v_i, reduction.
//
// ===== Host read-back (the only synchronisation points) =====
//
//  double read(Scalar s)                                   s on the host, exactly.
//  std::array<double, m> read_all(Scalar... s)             read of each, in argument order, in
//      one synchronisation: the IHT driver reads its three progress numbers per iteration so.
//  std::vector<double> to_host(const DatapointVector& v)   n doubles (importance sampling draws
//      from the column norms on the host, so every backend makes the same draws).
//  std::vector<double> to_host(const SampleVector& y)      S doubles (the refit's target).
//  std::vector<double> columns_to_host(const std::vector<index_t>& indices)    O(|indices| S)
//      The columns `indices` of Phi, in double, column-major S x |indices|: the refit's small
//      NNLS problem (refit.hpp), solved on the host.
//  from_host(const std::vector<index_t>& index, const std::vector<double>& value,
//            SparseDatapointVector& out)                   O(|index|)
//      out has support `index` (strictly ascending, each < n: solvers::check_support throws
//      InvalidArgument otherwise) and values T(value) (keeps the support).
//  Coreset to_coreset(const SparseDatapointVector& w)      O(|supp|)
//      The entries with w_i > 0, ascending, weights double(w_i).
//
// ===== Optional: tracked loops (SolverSettings::sync_every) =====
//
// A backend that has these (tracks_loops<B> below) lets the IHT driver run a-iht and a-iht-2
// several iterations per look of the host (iht_driver.hpp: run_tracked). Without them every
// iteration's numbers are read on the host. LoopState and track_iteration: stopping_rule.hpp.
//
//  static constexpr bool records_work
//      Whether record() saves the host's launch cost (a CUDA graph): sync_every = 0 then means
//      16 iterations per look; without it, 1.
//  LoopTracker make_loop_tracker(int done, bool z_equals_w, int max_iterations, double tolerance,
//                                index_t k, int capacity)
//      A LoopState where the iterations run, after iteration `done` with that z_equals_w; room
//      for f after `capacity` iterations (the host reads them at least that often) and for an
//      iterate of k entries.
//  track(LoopTracker& tracker, Scalar f, Scalar change_squared, Scalar size_squared,
//        const SparseDatapointVector& w)
//      track_iteration(state, f, change_squared, size_squared, tolerance, max_iterations,
//      history, capacity) where the numbers are; when that stops the solve, a copy of w. No
//      host read.
//  LoopLook read(const LoopTracker& tracker)
//      The state and the ring of f values on the host, in one synchronisation (the driver takes
//      f after the iterations since its last look from the ring: tracked_history).
//  const SparseDatapointVector& stopped_iterate(const LoopTracker& tracker)
//      w as track() kept it at the stop.
//  Recording record(Body body)
//      The backend work that body() queues, kept to be replayed. The host code of body runs
//      once while recording on a device (whose work does not run then) and at every replay on
//      the CPU, so its host-side effects must cancel out (the driver swaps its iterates twice).
//      Every buffer body touches must already have its final size (a recording allocates
//      nothing).
//  replay(Recording& recording, int times)      the recorded work, `times` times over, in order.
//
// ===== Optional: fused scalars =====
//
// The IHT driver's composed scalars, for a backend that computes them in fewer steps (each a
// node of a recorded iteration on a GPU). Each must give exactly the composition's bits;
// without them solvers/fused_scalars.hpp composes the primitives above.
//
//  Scalar gradient_line_search(const SparseDatapointVector& g, const SampleVector& q,
//                              double factor)
//      line_search(squared_norm(g), dot(q, q), factor).
//  Scalar momentum_line_search(const SampleVector& r, const SampleVector& q, double factor)
//      line_search(dot(r, q), dot(q, q), factor).
//  std::array<Scalar, 3> progress_scalars(const SampleVector& residual,
//                                         const SparseDatapointVector& next,
//                                         const SparseDatapointVector& prev)
//      {dot(residual, residual), squared_distance(next, prev), squared_norm(next)}.
//  phi_times_and_residual(const SparseDatapointVector& v, const SampleVector& y,
//                         SampleVector& product, SampleVector& residual)
//      phi_times(v, product), then subtract(y, product, residual).
//  select_top_k_both_rules(const DatapointVector& v, index_t k,
//                          const SparseDatapointVector& exclude,
//                          SparseDatapointVector& by_magnitude, SparseDatapointVector& positive)
//      select_top_k(v, k, largest_magnitude, exclude, by_magnitude), then the same under
//      largest_positive into positive (the accelerated iterations' two selections over one
//      gradient; the GPU marks the exclusion once and makes both selections' passes together).
//
// ===== What the drivers do with them =====
//
// Per IHT-family iteration: one dense pass (phi_t_times, or phi_t_times_on_subset in batch
// mode), two or three selections and O(1) sparse products over at most 3k columns, read_all
// once. Once per solve: duplicate_columns, and for IHT the power iteration (fill_unit_random,
// then phi_times_dense and phi_t_times alternately, dot and scale on datapoint vectors). Per
// GIGA / Frank-Wolfe step: one dense pass, one argmax, a convex_step, one sparse product, a few
// reads. The samplers (importance sampling, uniform) draw on the host and hand the weights over
// with from_host. The refit uses columns_to_host and to_host(y) only.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/solver.hpp"
#include "coreset/types.hpp"
#include "solvers/argmax.hpp"
#include "solvers/baselines/frank_wolfe.hpp"
#include "solvers/baselines/giga.hpp"
#include "solvers/selection_rule.hpp"

namespace coreset::solvers {
namespace backend_contract {

// The detection idiom (std::experimental::is_detected), in C++17.
template <class, template <class> class Op, class = void>
struct detector : std::false_type {
  using type = void;
};
template <template <class> class Op, class B>
struct detector<B, Op, std::void_t<Op<B>>> : std::true_type {
  using type = Op<B>;
};
/// Whether Op<B> is well-formed.
template <class B, template <class> class Op>
constexpr bool detected = detector<B, Op>::value;
/// Whether Op<B> is well-formed and converts to R (any R when R is void).
template <class B, template <class> class Op, class R>
constexpr bool returns() {
  if constexpr (!detector<B, Op>::value) {
    return false;
  } else if constexpr (std::is_void_v<R>) {
    return true;
  } else {
    return std::is_convertible_v<typename detector<B, Op>::type, R>;
  }
}

template <class B>
using Samples = typename B::SampleVector;
template <class B>
using Points = typename B::DatapointVector;
template <class B>
using Sparse = typename B::SparseDatapointVector;
template <class B>
using Scalar = typename B::Scalar;
template <class X>
X& out();  // an output argument
template <class X>
const X& in();  // an input argument
using Indices = std::vector<index_t>;

// One detector per primitive; the names follow the sections of the comment above.
template <class B>
using epsilon_t = decltype(B::epsilon());
template <class B>
using rows_t = decltype(out<B>().rows());
template <class B>
using cols_t = decltype(out<B>().cols());
template <class B>
using make_sample_vector_t = decltype(out<B>().make_sample_vector());
template <class B>
using make_datapoint_vector_t = decltype(out<B>().make_datapoint_vector());

template <class B>
using phi_t_times_t = decltype(out<B>().phi_t_times(in<Samples<B>>(), out<Points<B>>()));
template <class B>
using phi_t_times_on_subset_t =
    decltype(out<B>().phi_t_times_on_subset(in<Samples<B>>(), in<Indices>(), out<Points<B>>()));
template <class B>
using phi_times_dense_t = decltype(out<B>().phi_times_dense(in<Points<B>>(), out<Samples<B>>()));
template <class B>
using column_sums_t = decltype(out<B>().column_sums(out<Samples<B>>()));
template <class B>
using column_norms_t = decltype(out<B>().column_norms(out<Points<B>>()));
template <class B>
using duplicate_columns_t = decltype(out<B>().duplicate_columns());

template <class B>
using phi_times_t = decltype(out<B>().phi_times(in<Sparse<B>>(), out<Samples<B>>()));
template <class B>
using phi_t_times_on_t =
    decltype(out<B>().phi_t_times_on(in<Sparse<B>>(), in<Samples<B>>(), out<Sparse<B>>()));

template <class B>
using select_top_k_t = decltype(out<B>().select_top_k(in<Points<B>>(), index_t{}, SelectionRule{},
                                                      in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using gather_t = decltype(out<B>().gather(in<Points<B>>(), in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using restrict_to_union_t = decltype(out<B>().restrict_to_union(in<Points<B>>(), in<Sparse<B>>(),
                                                                in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using zero_entries_t = decltype(out<B>().zero_entries(in<Indices>(), out<Points<B>>()));
template <class B>
using argmax_giga_t =
    decltype(out<B>().argmax(in<GigaScore>(), in<Points<B>>(), in<Points<B>>(), in<Points<B>>()));
template <class B>
using argmax_frank_wolfe_t =
    decltype(out<B>().argmax(in<FrankWolfeScore>(), in<Points<B>>(), in<Points<B>>()));

template <class B>
using projected_step_t =
    decltype(out<B>().projected_step(in<Sparse<B>>(), in<Sparse<B>>(), in<Sparse<B>>(),
                                     in<Scalar<B>>(), index_t{}, out<Sparse<B>>()));
template <class B>
using clamped_step_t = decltype(out<B>().clamped_step(in<Sparse<B>>(), in<Scalar<B>>(),
                                                      in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using extrapolate_t = decltype(out<B>().extrapolate(in<Sparse<B>>(), in<Sparse<B>>(),
                                                    in<Scalar<B>>(), out<Sparse<B>>()));
template <class B>
using subtract_sparse_t =
    decltype(out<B>().subtract(in<Sparse<B>>(), in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using copy_sparse_t = decltype(out<B>().copy(in<Sparse<B>>(), out<Sparse<B>>()));
template <class B>
using convex_step_t = decltype(out<B>().convex_step(in<Sparse<B>>(), double{}, index_t{}, double{},
                                                    out<Sparse<B>>()));
template <class B>
using scale_sparse_t = decltype(out<B>().scale(double{}, in<Sparse<B>>(), out<Sparse<B>>()));

template <class B>
using subtract_samples_t =
    decltype(out<B>().subtract(in<Samples<B>>(), in<Samples<B>>(), out<Samples<B>>()));
template <class B>
using copy_samples_t = decltype(out<B>().copy(in<Samples<B>>(), out<Samples<B>>()));
template <class B>
using axpby_t = decltype(out<B>().axpby(double{}, in<Samples<B>>(), double{}, in<Samples<B>>(),
                                        out<Samples<B>>()));

template <class B>
using scale_points_t = decltype(out<B>().scale(double{}, in<Points<B>>(), out<Points<B>>()));
template <class B>
using fill_unit_random_t = decltype(out<B>().fill_unit_random(out<Points<B>>(), std::uint64_t{}));

template <class B>
using dot_samples_t = decltype(out<B>().dot(in<Samples<B>>(), in<Samples<B>>()));
template <class B>
using dot_points_t = decltype(out<B>().dot(in<Points<B>>(), in<Points<B>>()));
template <class B>
using squared_norm_t = decltype(out<B>().squared_norm(in<Sparse<B>>()));
template <class B>
using squared_distance_t = decltype(out<B>().squared_distance(in<Sparse<B>>(), in<Sparse<B>>()));
template <class B>
using line_search_t = decltype(out<B>().line_search(in<Scalar<B>>(), in<Scalar<B>>(), double{}));
template <class B>
using constant_t = decltype(out<B>().constant(double{}));
template <class B>
using value_at_t = decltype(out<B>().value_at(in<Points<B>>(), index_t{}));
template <class B>
using sum_t = decltype(out<B>().sum(in<Points<B>>()));

template <class B>
using read_t = decltype(out<B>().read(in<Scalar<B>>()));
template <class B>
using read_all_t = decltype(out<B>().read_all(in<Scalar<B>>(), in<Scalar<B>>(), in<Scalar<B>>()));
template <class B>
using to_host_points_t = decltype(out<B>().to_host(in<Points<B>>()));
template <class B>
using to_host_samples_t = decltype(out<B>().to_host(in<Samples<B>>()));
template <class B>
using columns_to_host_t = decltype(out<B>().columns_to_host(in<Indices>()));
template <class B>
using from_host_t =
    decltype(out<B>().from_host(in<Indices>(), in<std::vector<double>>(), out<Sparse<B>>()));
template <class B>
using to_coreset_t = decltype(out<B>().to_coreset(in<Sparse<B>>()));

// The member types, one detector each so that a missing one is named.
template <class B>
using sample_vector_t = Samples<B>;
template <class B>
using datapoint_vector_t = Points<B>;
template <class B>
using sparse_t = Sparse<B>;
template <class B>
using scalar_t = Scalar<B>;

template <class B, template <class> class Op>
constexpr bool movable() {
  if constexpr (detected<B, Op>) {
    using X = Op<B>;
    return std::is_move_constructible_v<X> && std::is_move_assignable_v<X> &&
           std::is_swappable_v<X>;
  } else {
    return false;
  }
}

}  // namespace backend_contract

/// True when B provides every primitive of the contract above with the signature the drivers
/// call; otherwise compilation stops at the first missing one, naming it. Semantics cannot be
/// checked here: tests/solvers/test_backend_contract.cpp runs them.
template <class B>
constexpr bool check_backend() {
  namespace c = backend_contract;
  using std::array;
  using std::vector;

  static_assert(c::detected<B, c::sample_vector_t>, "missing member type B::SampleVector");
  static_assert(c::detected<B, c::datapoint_vector_t>, "missing member type B::DatapointVector");
  static_assert(c::detected<B, c::sparse_t>, "missing member type B::SparseDatapointVector");
  static_assert(c::detected<B, c::scalar_t>, "missing member type B::Scalar");
  static_assert(c::movable<B, c::sample_vector_t>(), "SampleVector must be movable and swappable");
  static_assert(c::movable<B, c::datapoint_vector_t>(),
                "DatapointVector must be movable and swappable");
  static_assert(c::movable<B, c::sparse_t>(),
                "SparseDatapointVector must be movable and swappable");
  static_assert(std::is_default_constructible_v<typename B::SparseDatapointVector>,
                "SparseDatapointVector must be default-constructible (empty)");
  static_assert(std::is_default_constructible_v<typename B::Scalar> &&
                    std::is_copy_constructible_v<typename B::Scalar> &&
                    std::is_copy_assignable_v<typename B::Scalar>,
                "Scalar must be default-constructible and copyable");

  // Sizes and factories.
  static_assert(c::returns<B, c::epsilon_t, double>(), "missing: static double epsilon()");
  static_assert(c::returns<B, c::rows_t, index_t>(), "missing: index_t rows()");
  static_assert(c::returns<B, c::cols_t, index_t>(), "missing: index_t cols()");
  static_assert(c::returns<B, c::make_sample_vector_t, typename B::SampleVector>(),
                "missing: SampleVector make_sample_vector()");
  static_assert(c::returns<B, c::make_datapoint_vector_t, typename B::DatapointVector>(),
                "missing: DatapointVector make_datapoint_vector()");

  // Dense passes.
  static_assert(c::returns<B, c::phi_t_times_t, void>(),
                "missing: phi_t_times(const SampleVector& r, DatapointVector& out)");
  static_assert(c::returns<B, c::phi_t_times_on_subset_t, void>(),
                "missing: phi_t_times_on_subset(const SampleVector& r, const "
                "std::vector<index_t>& subset, DatapointVector& out)");
  static_assert(c::returns<B, c::phi_times_dense_t, void>(),
                "missing: phi_times_dense(const DatapointVector& v, SampleVector& out)");
  static_assert(c::returns<B, c::column_sums_t, void>(), "missing: column_sums(SampleVector& out)");
  static_assert(c::returns<B, c::column_norms_t, void>(),
                "missing: column_norms(DatapointVector& out)");
  static_assert(c::returns<B, c::duplicate_columns_t, vector<index_t>>(),
                "missing: std::vector<index_t> duplicate_columns()");

  // Sparse products.
  static_assert(c::returns<B, c::phi_times_t, void>(),
                "missing: phi_times(const SparseDatapointVector& v, SampleVector& out)");
  static_assert(c::returns<B, c::phi_t_times_on_t, void>(),
                "missing: phi_t_times_on(const SparseDatapointVector& support, const "
                "SampleVector& r, SparseDatapointVector& out)");

  // Selection.
  static_assert(c::returns<B, c::select_top_k_t, void>(),
                "missing: select_top_k(const DatapointVector& v, index_t k, SelectionRule rule, "
                "const SparseDatapointVector& exclude, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::gather_t, void>(),
                "missing: gather(const DatapointVector& v, const SparseDatapointVector& at, "
                "SparseDatapointVector& out)");
  static_assert(c::returns<B, c::restrict_to_union_t, void>(),
                "missing: restrict_to_union(const DatapointVector& v, const "
                "SparseDatapointVector& a, const SparseDatapointVector& b, "
                "SparseDatapointVector& out)");
  static_assert(c::returns<B, c::zero_entries_t, void>(),
                "missing: zero_entries(const std::vector<index_t>& at, DatapointVector& v)");
  static_assert(c::returns<B, c::argmax_giga_t, ArgMax>(),
                "missing: ArgMax argmax(const GigaScore&, const DatapointVector& (x3))");
  static_assert(c::returns<B, c::argmax_frank_wolfe_t, ArgMax>(),
                "missing: ArgMax argmax(const FrankWolfeScore&, const DatapointVector& (x2))");

  // Small sparse steps.
  static_assert(c::returns<B, c::projected_step_t, void>(),
                "missing: projected_step(const SparseDatapointVector& z, const "
                "SparseDatapointVector& g_on_z, const SparseDatapointVector& g_outside_z, "
                "Scalar step, index_t k, SparseDatapointVector& x)");
  static_assert(c::returns<B, c::clamped_step_t, void>(),
                "missing: clamped_step(const SparseDatapointVector& x, Scalar step, const "
                "SparseDatapointVector& g, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::extrapolate_t, void>(),
                "missing: extrapolate(const SparseDatapointVector& next, const "
                "SparseDatapointVector& prev, Scalar tau, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::subtract_sparse_t, void>(),
                "missing: subtract(const SparseDatapointVector& a, const SparseDatapointVector& "
                "b, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::copy_sparse_t, void>(),
                "missing: copy(const SparseDatapointVector& from, SparseDatapointVector& to)");
  static_assert(c::returns<B, c::convex_step_t, void>(),
                "missing: convex_step(const SparseDatapointVector& w, double gamma, index_t j, "
                "double vertex, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::scale_sparse_t, void>(),
                "missing: scale(double c, const SparseDatapointVector& in, "
                "SparseDatapointVector& out)");

  // Sample-space vector ops.
  static_assert(c::returns<B, c::subtract_samples_t, void>(),
                "missing: subtract(const SampleVector& a, const SampleVector& b, SampleVector& "
                "out)");
  static_assert(c::returns<B, c::copy_samples_t, void>(),
                "missing: copy(const SampleVector& from, SampleVector& to)");
  static_assert(c::returns<B, c::axpby_t, void>(),
                "missing: axpby(double a, const SampleVector& x, double b, const SampleVector& z, "
                "SampleVector& out)");

  // Datapoint-space vector ops.
  static_assert(c::returns<B, c::scale_points_t, void>(),
                "missing: scale(double c, const DatapointVector& in, DatapointVector& out)");
  static_assert(c::returns<B, c::fill_unit_random_t, void>(),
                "missing: fill_unit_random(DatapointVector& v, std::uint64_t seed)");

  // Scalars.
  static_assert(c::returns<B, c::dot_samples_t, typename B::Scalar>(),
                "missing: Scalar dot(const SampleVector& a, const SampleVector& b)");
  static_assert(c::returns<B, c::dot_points_t, typename B::Scalar>(),
                "missing: Scalar dot(const DatapointVector& a, const DatapointVector& b)");
  static_assert(c::returns<B, c::squared_norm_t, typename B::Scalar>(),
                "missing: Scalar squared_norm(const SparseDatapointVector& v)");
  static_assert(c::returns<B, c::squared_distance_t, typename B::Scalar>(),
                "missing: Scalar squared_distance(const SparseDatapointVector& a, const "
                "SparseDatapointVector& b)");
  static_assert(c::returns<B, c::line_search_t, typename B::Scalar>(),
                "missing: Scalar line_search(Scalar numerator, Scalar denominator, double "
                "factor)");
  static_assert(c::returns<B, c::constant_t, typename B::Scalar>(),
                "missing: Scalar constant(double c)");
  static_assert(c::returns<B, c::value_at_t, typename B::Scalar>(),
                "missing: Scalar value_at(const DatapointVector& v, index_t i)");
  static_assert(c::returns<B, c::sum_t, typename B::Scalar>(),
                "missing: Scalar sum(const DatapointVector& v)");

  // Host read-back.
  static_assert(c::returns<B, c::read_t, double>(), "missing: double read(Scalar s)");
  static_assert(c::returns<B, c::read_all_t, array<double, 3>>(),
                "missing: std::array<double, sizeof...(s)> read_all(Scalar... s)");
  static_assert(c::returns<B, c::to_host_points_t, vector<double>>(),
                "missing: std::vector<double> to_host(const DatapointVector& v)");
  static_assert(c::returns<B, c::to_host_samples_t, vector<double>>(),
                "missing: std::vector<double> to_host(const SampleVector& y)");
  static_assert(c::returns<B, c::columns_to_host_t, vector<double>>(),
                "missing: std::vector<double> columns_to_host(const std::vector<index_t>& "
                "indices)");
  static_assert(c::returns<B, c::from_host_t, void>(),
                "missing: from_host(const std::vector<index_t>& index, const "
                "std::vector<double>& value, SparseDatapointVector& out)");
  static_assert(c::returns<B, c::to_coreset_t, Coreset>(),
                "missing: Coreset to_coreset(const SparseDatapointVector& w)");
  return true;
}

/// Whether B has the optional tracked-loop primitives (see "Optional: tracked loops" above).
template <class B, class = void>
constexpr bool tracks_loops = false;
template <class B>
constexpr bool tracks_loops<B, std::void_t<typename B::LoopTracker>> = true;

}  // namespace coreset::solvers
