// The IHT driver's composed scalars, products and selections (solvers/backend.hpp, "Optional:
// fused scalars"): a backend's own member where it has one, which must give the composition's
// bits, else the composition of the required primitives. The GPU backend fuses each into fewer
// launches: nodes fewer per use in a recorded iteration.
#pragma once

#include <array>

#include "solvers/backend.hpp"

namespace coreset::solvers {

namespace fused_detail {

// The optional members, detected as backend.hpp detects the required ones.
namespace c = backend_contract;
template <class B>
using gradient_line_search_t = decltype(c::out<B>().gradient_line_search(
    c::in<c::Sparse<B>>(), c::in<c::Samples<B>>(), double{}));
template <class B>
using momentum_line_search_t = decltype(c::out<B>().momentum_line_search(
    c::in<c::Samples<B>>(), c::in<c::Samples<B>>(), double{}));
template <class B>
using progress_scalars_t = decltype(c::out<B>().progress_scalars(
    c::in<c::Samples<B>>(), c::in<c::Sparse<B>>(), c::in<c::Sparse<B>>()));
template <class B>
using phi_times_and_residual_t =
    decltype(c::out<B>().phi_times_and_residual(c::in<c::Sparse<B>>(), c::in<c::Samples<B>>(),
                                                c::out<c::Samples<B>>(), c::out<c::Samples<B>>()));

template <class B>
using select_top_k_both_rules_t = decltype(c::out<B>().select_top_k_both_rules(
    c::in<c::Points<B>>(), index_t{}, c::in<c::Sparse<B>>(), c::out<c::Sparse<B>>(),
    c::out<c::Sparse<B>>()));

template <class B>
constexpr bool has_gradient_line_search = c::returns<B, gradient_line_search_t, c::Scalar<B>>();
template <class B>
constexpr bool has_momentum_line_search = c::returns<B, momentum_line_search_t, c::Scalar<B>>();
template <class B>
constexpr bool has_progress_scalars =
    c::returns<B, progress_scalars_t, std::array<c::Scalar<B>, 3>>();
template <class B>
constexpr bool has_phi_times_and_residual = c::returns<B, phi_times_and_residual_t, void>();
template <class B>
constexpr bool has_select_top_k_both_rules = c::returns<B, select_top_k_both_rules_t, void>();

}  // namespace fused_detail

/// The compositions of the required primitives, one definition each: the dispatchers below use
/// them for a backend without the member, and a backend's member may fall back on them (the
/// CUDA backend past its one-block sums). `B` may be const.
namespace composed {

/// The exact step along g restricted to its support: line_search(||g||^2, ||q||^2, factor), q =
/// Phi g (solvers/line_search.hpp).
template <class B>
typename B::Scalar gradient_line_search(B& be, const typename B::SparseDatapointVector& g,
                                        const typename B::SampleVector& q, double factor) {
  return be.line_search(be.squared_norm(g), be.dot(q, q), factor);
}

/// The exact momentum: line_search(<r, q>, ||q||^2, factor), q = Phi d.
template <class B>
typename B::Scalar momentum_line_search(B& be, const typename B::SampleVector& r,
                                        const typename B::SampleVector& q, double factor) {
  return be.line_search(be.dot(r, q), be.dot(q, q), factor);
}

/// f = ||residual||^2, ||next - prev||^2 and ||next||^2: an iteration's progress numbers.
template <class B>
std::array<typename B::Scalar, 3> progress_scalars(B& be, const typename B::SampleVector& residual,
                                                   const typename B::SparseDatapointVector& next,
                                                   const typename B::SparseDatapointVector& prev) {
  return {be.dot(residual, residual), be.squared_distance(next, prev), be.squared_norm(next)};
}

}  // namespace composed

template <class B>
typename B::Scalar gradient_line_search(B& be, const typename B::SparseDatapointVector& g,
                                        const typename B::SampleVector& q, double factor) {
  if constexpr (fused_detail::has_gradient_line_search<B>) {
    return be.gradient_line_search(g, q, factor);
  } else {
    return composed::gradient_line_search(be, g, q, factor);
  }
}

template <class B>
typename B::Scalar momentum_line_search(B& be, const typename B::SampleVector& r,
                                        const typename B::SampleVector& q, double factor) {
  if constexpr (fused_detail::has_momentum_line_search<B>) {
    return be.momentum_line_search(r, q, factor);
  } else {
    return composed::momentum_line_search(be, r, q, factor);
  }
}

template <class B>
std::array<typename B::Scalar, 3> progress_scalars(B& be, const typename B::SampleVector& residual,
                                                   const typename B::SparseDatapointVector& next,
                                                   const typename B::SparseDatapointVector& prev) {
  if constexpr (fused_detail::has_progress_scalars<B>) {
    return be.progress_scalars(residual, next, prev);
  } else {
    return composed::progress_scalars(be, residual, next, prev);
  }
}

/// product = Phi v and residual = y - product: an iterate's product and the residual at it.
template <class B>
void phi_times_and_residual(B& be, const typename B::SparseDatapointVector& v,
                            const typename B::SampleVector& y, typename B::SampleVector& product,
                            typename B::SampleVector& residual) {
  if constexpr (fused_detail::has_phi_times_and_residual<B>) {
    be.phi_times_and_residual(v, y, product, residual);
  } else {
    be.phi_times(v, product);
    be.subtract(y, product, residual);
  }
}

/// The two selections of an accelerated iteration over one gradient, outside exclude: the k
/// largest in magnitude into by_magnitude and the k largest positive into positive, as
/// select_top_k makes each.
template <class B>
void select_top_k_both_rules(B& be, const typename B::DatapointVector& v, index_t k,
                             const typename B::SparseDatapointVector& exclude,
                             typename B::SparseDatapointVector& by_magnitude,
                             typename B::SparseDatapointVector& positive) {
  if constexpr (fused_detail::has_select_top_k_both_rules<B>) {
    be.select_top_k_both_rules(v, k, exclude, by_magnitude, positive);
  } else {
    be.select_top_k(v, k, SelectionRule::largest_magnitude, exclude, by_magnitude);
    be.select_top_k(v, k, SelectionRule::largest_positive, exclude, positive);
  }
}

}  // namespace coreset::solvers
