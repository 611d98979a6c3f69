// A model bound to a dataset: the design rows z_n, the link, and the shared quadratic, i.e.
// everything needed to evaluate L_n(theta) = ell(z_n . theta, y_n) - 1/2 theta^T Q theta + c_n,
// its gradient and Hessian, and the weighted log joint of spec 4.1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "support/eigen.hpp"

#include "coreset/dataset.hpp"
#include "coreset/model.hpp"
#include "coreset/solver.hpp"
#include "models/design.hpp"
#include "models/link.hpp"
#include "models/row_offsets.hpp"
#include "models/row_sums.hpp"
#include "support/exact_sum.hpp"

namespace coreset::models {

class RowSumsProvider;

struct Model {
  ModelKind kind = ModelKind::logistic;
  Link link = Link::logistic;
  /// n x d: row n is z_n (covariates then the intercept's unit column; RBF features; or
  /// Sigma^{-1} x_n). The covariates are the dataset's, read in place, when make_model was asked
  /// to borrow them (CovariateStorage::borrowed).
  Design design;
  /// n: y_n as the link takes it (logistic: -1 or 1; gaussian: unused, zeros).
  Eigen::VectorXd response;
  /// n: c_n, the theta-free constants (they cancel in Phi but make L_n a true log density):
  /// stored per row (Poisson, Gaussian) or one value for every row (logistic, linear).
  RowOffsets offset;
  /// Q (d x d) of the shared quadratic, or 0 x 0 when the model has none.
  Eigen::MatrixXd shared_quadratic;
  /// linear: 1 / sigma^2, the link's scale. 1 elsewhere.
  double noise_precision = 1.0;
  /// The prior N(0, P0^{-1}): P0 and log of its normalising constant.
  Eigen::MatrixXd prior_precision;
  double prior_log_normalizer = 0.0;
  std::vector<std::string> parameter_names;

  /// A rank's share of a distributed build: the rows above are rows first_row ... of a dataset
  /// of total_rows (Dataset::first_row, total_rows); total_rows 0: the whole dataset.
  index_t first_row = 0;
  index_t total_rows = 0;

  index_t rows() const noexcept { return design.rows(); }
  index_t dim() const noexcept { return design.cols(); }
  /// n of the whole dataset: the count a sum over all datapoints weighs (log_joint).
  index_t all_rows() const noexcept { return total_rows == 0 ? rows() : total_rows; }
  /// A rank's share (Dataset::is_share): sums over all rows need the ranks, whatever it holds.
  bool is_share() const noexcept { return total_rows != 0; }
};

/// The logistic labels' encoding as `data`'s rows show it: the first label that is 0 or -1
/// ({0, 1} or {-1, 1}) and its row in the whole dataset (Dataset::first_row counted); row -1
/// when every label is 1 or there is none.
struct LabelEncoding {
  index_t row = -1;
  double negative = 0.0;
};
LabelEncoding logistic_label_encoding(const Dataset& data);

/// The linear model's radial-basis functions (spec 3.5): basis k is centred at row k of
/// `centres` (bases x D) with scale scales[k].
struct RbfBasis {
  Eigen::MatrixXd centres;
  std::vector<double> scales;
};

/// The centres each scale has on a dataset of n rows: min(n, centers_per_scale).
inline index_t rbf_centres_per_scale(const RbfOptions& rbf, index_t n) {
  return std::min(n, rbf.centers_per_scale);
}

/// The rows of a dataset of n rows (all of them, not a share's) whose covariates centre the RBF
/// features, scale after scale: min(n, centers_per_scale) rows per scale drawn without
/// replacement (a partial Fisher-Yates shuffle, one engine seeded with `seed` for all scales in
/// order). It depends on the options, n and the seed alone, so every rank of a distributed build
/// draws the same rows. InvalidArgument for bad options (`dims`: the dataset's covariates).
std::vector<index_t> rbf_centre_rows(const RbfOptions& rbf, index_t dims, index_t n,
                                     std::uint64_t seed);

/// Each covariate's sum over `data`'s rows, exact (support/exact_sum.hpp): a share's part of the
/// whole dataset's sums, which the ranks' parts add up to in any order.
std::vector<support::ExactSum> exact_covariate_sums(const Dataset& data);

/// The basis from the covariates of the rows rbf_centre_rows drew (one row each, in its order)
/// and the covariates' exact sums over all n rows: the near-constant basis (when asked for) sits
/// at their means, each sum rounded once and divided by n, so the mean does not depend on how
/// the rows were split to be summed.
RbfBasis rbf_basis(const RbfOptions& rbf, const Eigen::MatrixXd& centre_covariates,
                   const std::vector<support::ExactSum>& covariate_sums, index_t n);

/// What a rank's share cannot see of the whole dataset, found by the ranks together
/// (pipeline/build.cpp) and taken as given by make_model. For the whole dataset both are left
/// empty, and make_model finds them from its rows.
struct WholeDataset {
  /// logistic: the encoding the whole dataset's first 0 or -1 fixes (logistic_label_encoding
  /// over every share), so a share is checked against it as the whole file would be; none: the
  /// share's own first.
  std::optional<double> negative_label;
  /// linear with RBF features: the whole dataset's basis (a share must have it).
  std::optional<RbfBasis> rbf;
};

/// How make_model holds the covariates of a design made of them (logistic, Poisson, and linear
/// without RBF features; the others compute their design's columns and keep them).
enum class CovariateStorage {
  copied,    ///< the model keeps a copy: it may outlive the dataset
  borrowed,  ///< read in place: the dataset's covariates must outlive the model and every model
             ///< copied or cut from it (rows_of), and stay unchanged while they are in use
};

/// Checks the dataset against the model's domain and builds the design. Out-of-domain values
/// (a label not in {-1, 1} / {0, 1}, a negative or fractional count, a missing response) throw
/// InputError naming data.source, the line and the column; bad options throw InvalidArgument.
/// `seed` is the job's seed (BuildOptions::seed): it draws the RBF centres, and nothing else.
/// `whole`: what a rank's share takes from the ranks (see WholeDataset). `storage`: see
/// CovariateStorage; the two give the same model, value for value.
Model make_model(const Dataset& data, const ModelOptions& options, std::uint64_t seed,
                 const WholeDataset& whole = {},
                 CovariateStorage storage = CovariateStorage::copied);

/// `model` without its rows: its kind, link, shared quadratic, noise, prior and parameter names;
/// no design, responses or offsets, and first_row and total_rows 0. What a model of some of
/// another's rows starts from (rows_of; a distributed build's coreset rows gathered), so that a
/// field added to Model is carried by both.
Model without_rows(const Model& model);

/// The model of rows first ... first + count - 1 of `model` (0 <= first, first + count <= its
/// rows), as a rank's share of the whole dataset: what a GPU rank of a distributed build projects
/// on its device when every rank holds the whole dataset.
Model rows_of(const Model& model, index_t first, index_t count);

/// L_n(theta); with non-null outputs also its gradient (d) and Hessian (d x d). The predictor
/// z_n . theta is summed in column order (Design::row_dot).
double log_likelihood(const Model& model, index_t n, const Eigen::VectorXd& theta,
                      Eigen::VectorXd* gradient = nullptr, Eigen::MatrixXd* hessian = nullptr);

/// lj_w(theta) = log prior(theta) + sum_n w_n L_n(theta) (spec 4.1), with optional gradient and
/// negative Hessian (symmetric positive definite for every model here). `weights` null: w = 1;
/// otherwise only its indices are visited (O(k d^2) for a coreset). `full_data` (null: the host
/// reference, models/row_sums.hpp) computes the sums over datapoints when `weights` is null; it
/// must be bound to this model's data (InvalidArgument when its shape differs). A coreset's
/// weighted sums are always taken on the host: k rows are cheap there.
double log_joint(const Model& model, const Coreset* weights, const Eigen::VectorXd& theta,
                 Eigen::VectorXd* gradient = nullptr, Eigen::MatrixXd* negative_hessian = nullptr,
                 const RowSumsProvider* full_data = nullptr);

/// The unit-weight sums of log_joint over the model's rows first ... first + count - 1 (a rank's
/// block of a distributed build: first a multiple of kRowSumBlock), exact and unrounded
/// (models/row_sums.hpp), so that the ranks' parts add up to the one-process sums bit for bit.
ExactRowSums exact_link_sums(const Model& model, index_t first, index_t count,
                             const Eigen::VectorXd& theta, bool want_vector, bool want_matrix);

/// Throws InvalidArgument unless `samples` (S x d) has S >= 1 finite rows of the model's d
/// parameters and the model's response and offset have a value per datapoint: the checks every
/// backend's projection makes before it starts.
void validate_projection_inputs(const Model& model, const Eigen::MatrixXd& samples);

}  // namespace coreset::models
