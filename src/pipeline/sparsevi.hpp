// SparseVI, greedy sparse stochastic variational inference ([SVI] Algorithm 1, spec 1.6, 2.12):
// a coreset built by minimising the reverse KL(pi_w || pi) directly, with Monte Carlo estimates
// from the coreset posterior pi_w itself rather than from a fixed pi-hat.
//
// For M = k selections m = 1..M:
//   - draw S parameters from pi_w; Phi_w = their centred, 1/sqrt(S)-scaled log-likelihood matrix
//     (cpu::projection, exactly the Phi of spec 1.3 at these draws), r = Phi_w (1 - w);
//     c_n = <Phi_w,n, r> is the estimate (1/S) sum_s ghat_sn ghat_s^T (1 - w) of
//     Cov_w[f_n, f^T (1 - w)] of eq. 11 and 13: the centring and the 1/S normalisation of the
//     paper's estimator are those of Phi, so Phi_w^T Phi_w is the paper's (1/S) sum ghat ghat^T;
//   - select n* = argmax of |Corr_n| over the active set I and Corr_n outside it, with
//     Corr_n = c_n / ||Phi_w,n|| (eq. 10, 11; the common 1/Std[residual] factor is dropped);
//   - T times: fresh draws from pi_w, D = -c_I (eq. 13), a step on the active weights (Adam as the
//     authors' code, or plain SGD as printed), then w <- max(w, 0).
// pi_w is the closed form for gaussian and linear and the weighted Laplace approximation for
// logistic and poisson ([CODE]; spec 2.12, 4.5, A16); at w = 0 both are the prior.
//
// Determinism: the draws of selection m, step t come from their own seed, derived from
// the job's seed (BuildOptions::seed), m and t (sparsevi_seed); the projection is bitwise
// independent of its thread count, r = Phi_w (1 - w), the one sum over datapoints, is exact
// (double sums over fixed blocks of kReductionBlock datapoints, made exact and rounded once:
// cpu/datapoint_sums.hpp), every other reduction runs in a fixed order, and Eigen never
// parallelises a product itself (support/eigen.hpp), so the coreset depends only on the options,
// never on `threads`.
//
// Over ranks (options.communicator: a distributed build, each rank holding the whole dataset or
// only its share of the rows, Model::is_share): every rank draws the same Theta (the coreset
// posterior needs only the coreset's rows, gathered from their owners: pipeline/coreset_rows.hpp)
// and projects only its own datapoints (pipeline/rank_rows.hpp); r is the ranks' exact parts
// added; c_n and ||Phi_w,n|| are the owner's; the selection merges the ranks' bests with the tie
// rule of one process (the lower global index); c on the active set is gathered from the owners.
// Only S- and k-sized values cross ranks, and the coreset is one process's bit for bit, for any
// number of ranks and any split.
//
// Cost per selection: (T + 1) x (a coreset posterior over |I| <= k points, S draws, one
// projection of the process's n / R points, O(nSd / R)), so O(k T n S d / R) in all; [SVI] and
// [IHT] call it much slower than the Hilbert constructions, and it is.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/matrix.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"
#include "models/model.hpp"

namespace coreset::pipeline {

/// SparseViOptions with the model's defaults filled in (0 = the papers' value for the model).
struct SparseViSettings {
  int steps = 0;
  double learning_rate = 0.0;
  index_t samples = 0;
  SparseViOptimizer optimizer = SparseViOptimizer::adam;
};

/// Fills in the defaults for `kind`; throws InvalidArgument for values out of their domain.
SparseViSettings resolve_sparsevi_settings(const SparseViOptions& options, ModelKind kind);

/// The seed of the draws at selection `selection` (1-based) and step `step` (0 = the selection's
/// own draws, 1..T the gradient steps), derived from `seed` by splitmix64 so that no two draws of
/// a run, nor the build's pi-hat draws (seeded with `seed` itself), share a stream.
std::uint64_t sparsevi_seed(std::uint64_t seed, int selection, int step);

/// c_n = <Phi_n, Phi (1 - w)> for every column n of `phi` (S x n, centred and scaled as spec 1.3):
/// the Monte Carlo estimate of Cov_w[f_n, f^T (1 - w)] when phi was built at draws from pi_w.
/// `weights` may hold zero weights; its indices must be inside phi. Columns are split over
/// `threads` threads; r is exact and each c_n a fixed-order sum, so the result does not depend
/// on them. (One process's Phi; run_sparsevi takes the same sums over ranks.)
std::vector<double> residual_covariances(const Matrix<double>& phi, const Coreset& weights,
                                         int threads);

/// Called after every selection with its number (1-based) and the coreset so far (ascending
/// indices, strictly positive weights).
using SelectionObserver = std::function<void(int selection, const Coreset& coreset)>;

struct SparseViRun {
  Coreset coreset;     ///< ascending indices, strictly positive weights, at most k points
  int selections = 0;  ///< selections made (k, or fewer when it stopped early)
  StopReason stop_reason = StopReason::budget;  ///< budget, or stationary (nothing to select)
};

/// Runs SparseVI with options.k selections and options.sparsevi on `model`, its draws derived
/// from `seed` (the job's, BuildOptions::seed) by sparsevi_seed. Under options.communicator it is
/// a collective: `model` is this rank's share of the rows (Model::is_share) or the whole dataset,
/// every rank gets the same run, one process's bit for bit (see the top of this file), and a stop
/// that options.progress asks for on any rank stops all of them (polled before every selection
/// and step). It stops early (StopReason::stationary) only when no column can be scored
/// positively (e.g. all potentials constant under pi_w). Throws InvalidArgument for bad options
/// or a share without a communicator, NumericalError when a coreset posterior cannot be formed
/// (a Laplace fit that fails, a non-finite log-likelihood).
SparseViRun run_sparsevi(const models::Model& model, const BuildSolverOptions& options,
                         std::uint64_t seed, const SelectionObserver& observer = {});

}  // namespace coreset::pipeline
