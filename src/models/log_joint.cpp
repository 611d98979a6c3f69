// The per-datapoint log-likelihood L_n and the weighted log joint lj_w of spec 4.1, with their
// analytic derivatives. Every model here is "scalar link of z_n . theta plus a shared quadratic",
// so the sums over datapoints are, per block of rows, one matrix-vector product for the linear
// predictors, one elementwise pass through the link, and one product block^T (...) for each
// derivative (models/row_sums.hpp).
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "coreset/error.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "models/row_sums_provider.hpp"

namespace coreset::models {
namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

/// The shape checks are O(1) and run on every call: a model assembled by hand with, say, an
/// offset of the wrong length would otherwise read past the end of a buffer.
void validate_model(const Model& model, const char* caller) {
  const Eigen::Index n = model.design.rows();
  const Eigen::Index d = model.design.cols();
  const std::string where = std::string(caller) + ": ";
  if (model.response.size() != n || model.offset.size() != n) {
    throw InvalidArgument(where + "the model has " + std::to_string(n) + " design rows but " +
                          std::to_string(model.response.size()) + " responses and " +
                          std::to_string(model.offset.size()) + " offsets");
  }
  const bool has_quadratic = model.shared_quadratic.size() != 0;
  if (has_quadratic && (model.shared_quadratic.rows() != d || model.shared_quadratic.cols() != d)) {
    throw InvalidArgument(where + "the shared quadratic is " +
                          shape(model.shared_quadratic.rows(), model.shared_quadratic.cols()) +
                          " but the model has " + std::to_string(d) + " parameters");
  }
  if (model.prior_precision.rows() != d || model.prior_precision.cols() != d) {
    throw InvalidArgument(where + "the prior precision is " +
                          shape(model.prior_precision.rows(), model.prior_precision.cols()) +
                          " but the model has " + std::to_string(d) + " parameters");
  }
}

/// A model of one rank's rows (Model::is_share) has neither all rows nor a coreset's.
void require_whole(const Model& model, const std::string& what) {
  if (model.is_share()) {
    throw InvalidArgument(what + " need the whole data, but the model holds only rows " +
                          std::to_string(model.first_row) + " ... " +
                          std::to_string(model.first_row + model.rows() - 1) + " of " +
                          std::to_string(model.all_rows()) +
                          " (a distributed build's share: sum through a provider)");
  }
}

void validate_theta(const Model& model, const Eigen::VectorXd& theta, const char* caller) {
  if (theta.size() != model.dim()) {
    throw InvalidArgument(std::string(caller) + ": theta has " + std::to_string(theta.size()) +
                          " entries but the model has " + std::to_string(model.dim()) +
                          " parameters");
  }
}

/// The weighted sum over the rows of `design` (the whole design, or the coreset's rows gathered)
/// of the link part of L_n: sum_n w_n (ell(a_n) + c_n), plus the gradient design^T (w .* ell')
/// and the negative Hessian design^T diag(w .* -ell'') design when asked for, in the fixed
/// order of models/row_sums.hpp. The shared quadratic and the prior are added by the caller,
/// once, scaled by the total weight.
ExactRowSums exact_link_sums(const Model& model, const Eigen::Ref<const Eigen::MatrixXd>& design,
                             const Eigen::Ref<const Eigen::VectorXd>& response,
                             const Eigen::Ref<const Eigen::VectorXd>& offset,
                             const Eigen::Ref<const Eigen::VectorXd>& weights,
                             const Eigen::VectorXd& theta, bool want_gradient, bool want_hessian) {
  const auto terms = [&](index_t first, const Eigen::MatrixXd& block, Eigen::VectorXd& g,
                         Eigen::VectorXd& c) {
    // On the block's own copy: Eigen's matrix-vector kernel picks its blocking by the matrix's
    // stride (from d = 128 on), which differs between the whole design and a share.
    const Eigen::VectorXd predictor = block * theta;
    const index_t count = block.rows();
    double value = 0.0;
    if (!want_gradient && !want_hessian) {
      // A line search's evaluation: the link's value alone (link_value computes it as
      // evaluate_link does, bit for bit), without the derivatives' exponentials.
      for (index_t j = 0; j < count; ++j) {
        const index_t i = first + j;
        value +=
            weights[i] *
            (link_value(model.link, predictor[j], response[i], model.noise_precision) + offset[i]);
      }
      return value;
    }
    for (index_t j = 0; j < count; ++j) {
      const index_t i = first + j;
      const LinkTerms link =
          evaluate_link(model.link, predictor[j], response[i], model.noise_precision);
      value += weights[i] * (link.value + offset[i]);
      g[j] = weights[i] * link.first;
      c[j] = -weights[i] * link.second;  // w_n * -ell''(a_n) >= 0
    }
    return value;
  };
  return exact_sums_over_rows(design, want_gradient, want_hessian, terms);
}

RowSums link_sums(const Model& model, const Eigen::Ref<const Eigen::MatrixXd>& design,
                  const Eigen::Ref<const Eigen::VectorXd>& response,
                  const Eigen::Ref<const Eigen::VectorXd>& offset,
                  const Eigen::Ref<const Eigen::VectorXd>& weights, const Eigen::VectorXd& theta,
                  bool want_gradient, bool want_hessian) {
  return round_row_sums(
      exact_link_sums(model, design, response, offset, weights, theta, want_gradient, want_hessian),
      design.cols(), want_gradient, want_hessian);
}

}  // namespace

ExactRowSums exact_link_sums(const Model& model, index_t first, index_t count,
                             const Eigen::VectorXd& theta, bool want_vector, bool want_matrix) {
  validate_model(model, "exact_link_sums");
  validate_theta(model, theta, "exact_link_sums");
  if (first < 0 || count < 0 || first + count > model.rows() ||
      (count > 0 && first % kRowSumBlock != 0)) {
    throw InvalidArgument("exact_link_sums: rows " + std::to_string(first) + " ... " +
                          std::to_string(first + count - 1) + " are not a block of the model's " +
                          std::to_string(model.rows()) + " starting at a multiple of " +
                          std::to_string(kRowSumBlock));
  }
  return exact_link_sums(model, model.design.middleRows(first, count),
                         model.response.segment(first, count), model.offset.segment(first, count),
                         Eigen::VectorXd::Ones(count), theta, want_vector, want_matrix);
}

double log_likelihood(const Model& model, index_t n, const Eigen::VectorXd& theta,
                      Eigen::VectorXd* gradient, Eigen::MatrixXd* hessian) {
  validate_model(model, "log_likelihood");
  validate_theta(model, theta, "log_likelihood");
  if (n < 0 || n >= model.rows()) {
    throw InvalidArgument("log_likelihood: datapoint " + std::to_string(n) +
                          " is out of range (the model has " + std::to_string(model.rows()) +
                          " datapoints)");
  }
  const auto z = model.design.row(n).transpose();
  const LinkTerms terms =
      evaluate_link(model.link, z.dot(theta), model.response[n], model.noise_precision);
  const bool has_quadratic = model.shared_quadratic.size() != 0;
  double value = terms.value + model.offset[n];
  Eigen::VectorXd q_theta;
  if (has_quadratic) {
    q_theta = model.shared_quadratic * theta;
    value -= 0.5 * theta.dot(q_theta);
  }
  if (gradient != nullptr) {
    *gradient = terms.first * z;
    if (has_quadratic) {
      *gradient -= q_theta;
    }
  }
  if (hessian != nullptr) {
    *hessian = terms.second * (z * z.transpose());
    if (has_quadratic) {
      *hessian -= model.shared_quadratic;
    }
    // Eigen folds the scalar into one factor of the outer product, (ell'' z_i) z_j, which
    // differs from (ell'' z_j) z_i in the last bit; callers may rely on exact symmetry.
    const Eigen::MatrixXd transpose = hessian->transpose();
    *hessian = 0.5 * (*hessian + transpose);
  }
  return value;
}

double log_joint(const Model& model, const Coreset* weights, const Eigen::VectorXd& theta,
                 Eigen::VectorXd* gradient, Eigen::MatrixXd* negative_hessian,
                 const RowSumsProvider* full_data) {
  validate_model(model, "log_joint");
  validate_theta(model, theta, "log_joint");
  const Eigen::Index d = model.dim();

  // The prior: log N(theta; 0, P0^{-1}) = normaliser - theta^T P0 theta / 2.
  const Eigen::VectorXd p0_theta = model.prior_precision * theta;
  double value = model.prior_log_normalizer - 0.5 * theta.dot(p0_theta);
  if (gradient != nullptr) {
    *gradient = -p0_theta;
  }
  if (negative_hessian != nullptr) {
    *negative_hessian = model.prior_precision;
  }

  const bool want_gradient = gradient != nullptr;
  const bool want_hessian = negative_hessian != nullptr;
  double total_weight = 0.0;
  RowSums sums;
  if (weights == nullptr) {
    total_weight = static_cast<double>(model.all_rows());
    if (full_data != nullptr) {
      if (full_data->rows() != model.all_rows() || full_data->dim() != d) {
        throw InvalidArgument(
            "log_joint: the sums provider holds " + shape(full_data->rows(), full_data->dim()) +
            " design rows and columns but the model has " + shape(model.all_rows(), d));
      }
      sums = full_data->link_sums(theta, want_gradient, want_hessian);
    } else {
      require_whole(model, "log_joint: the sums over all datapoints");
      const Eigen::VectorXd ones = Eigen::VectorXd::Ones(model.rows());
      sums = link_sums(model, model.design, model.response, model.offset, ones, theta,
                       want_gradient, want_hessian);
    }
  } else {
    require_whole(model, "log_joint: a coreset's rows");
    if (weights->indices.size() != weights->weights.size()) {
      throw InvalidArgument("log_joint: the coreset has " +
                            std::to_string(weights->indices.size()) + " indices but " +
                            std::to_string(weights->weights.size()) + " weights");
    }
    const Eigen::Index k = weights->size();
    for (std::size_t p = 0; p < weights->indices.size(); ++p) {
      const index_t index = weights->indices[p];
      if (index < 0 || index >= model.rows()) {
        throw InvalidArgument("log_joint: coreset index " + std::to_string(index) +
                              " is out of range (the model has " + std::to_string(model.rows()) +
                              " datapoints)");
      }
      // Negative weights would make -grad^2 lj_w indefinite and break every caller that relies
      // on it being positive definite; zero weights are harmless.
      if (!(weights->weights[p] >= 0.0) || !std::isfinite(weights->weights[p])) {
        throw InvalidArgument("log_joint: coreset weight " + std::to_string(p) +
                              " is negative or not finite");
      }
      total_weight += weights->weights[p];
    }
    // Gathering the k rows (O(k d)) lets the coreset take the same vectorised path as the full
    // data, at O(k d^2) instead of O(n d^2).
    Eigen::MatrixXd rows(k, d);
    Eigen::VectorXd response(k);
    Eigen::VectorXd offset(k);
    const Eigen::Map<const Eigen::VectorXd> w(weights->weights.data(), k);
    for (Eigen::Index i = 0; i < k; ++i) {
      const index_t index = weights->indices[static_cast<std::size_t>(i)];
      rows.row(i) = model.design.row(index);
      response[i] = model.response[index];
      offset[i] = model.offset[index];
    }
    sums = link_sums(model, rows, response, offset, w, theta, want_gradient, want_hessian);
  }
  // The data's sums, from the host or the provider alike. The Hessian's is symmetric up to the
  // summation order of the products, which the symmetrisation below removes.
  value += sums.value;
  if (want_gradient) {
    *gradient += sums.vector;
  }
  if (want_hessian) {
    *negative_hessian += sums.matrix;
  }

  if (model.shared_quadratic.size() != 0 && total_weight != 0.0) {
    const Eigen::VectorXd q_theta = model.shared_quadratic * theta;
    value -= 0.5 * total_weight * theta.dot(q_theta);
    if (gradient != nullptr) {
      *gradient -= total_weight * q_theta;
    }
    if (negative_hessian != nullptr) {
      *negative_hessian += total_weight * model.shared_quadratic;
    }
  }
  if (negative_hessian != nullptr) {
    // Exact symmetry, so that a Cholesky factorisation or a comparison with the transpose never
    // sees the GEMM's round-off asymmetry.
    const Eigen::MatrixXd transpose = negative_hessian->transpose();
    *negative_hessian = 0.5 * (*negative_hessian + transpose);
  }
  return value;
}

}  // namespace coreset::models
