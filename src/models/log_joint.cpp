// The per-datapoint log-likelihood L_n and the weighted log joint lj_w of spec 4.1, with their
// analytic derivatives. Every model here is "scalar link of z_n . theta plus a shared quadratic",
// so the sums over datapoints are, per block of rows, the linear predictors, one elementwise pass
// through the link (vectorised for the logistic link), and a weighted sum of the rows for each
// derivative (models/row_sums.hpp, models/simd/row_block.hpp).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "coreset/error.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "models/row_sums_provider.hpp"
#include "models/simd/log_sigmoid.hpp"
#include "models/simd/row_block.hpp"

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

/// One thread's per-block buffers for exact_link_sums: the predictors and the link's values (its
/// derivatives go straight into the sums' g and c).
struct LinkScratch {
  std::vector<double> predictor;
  std::vector<double> value;
};

/// This thread's buffers, of at least `rows` entries each (a block of at most kRowSumBlock
/// rows): kept across blocks and calls, so that no pass allocates per block.
LinkScratch& link_scratch(index_t rows) {
  thread_local LinkScratch scratch;
  if (static_cast<index_t>(scratch.predictor.size()) < rows) {
    for (std::vector<double>* buffer : {&scratch.predictor, &scratch.value}) {
      buffer->resize(static_cast<std::size_t>(rows));
    }
  }
  return scratch;
}

/// The weighted sum over the rows of `design` (the whole design, or the coreset's rows gathered)
/// of the link part of L_n: sum_n w_n (ell(a_n) + c_n), plus the gradient design^T (w .* ell')
/// and the negative Hessian design^T diag(w .* -ell'') design when asked for, in the fixed
/// order of models/row_sums.hpp; `weights` null means every w_n = 1. The shared quadratic and
/// the prior are added by the caller, once, scaled by the total weight.
ExactRowSums exact_link_sums(const Model& model, const Design& design,
                             const Eigen::Ref<const Eigen::VectorXd>& response, OffsetsView offset,
                             const double* weights, const Eigen::VectorXd& theta,
                             bool want_gradient, bool want_hessian) {
  const bool value_only = !want_gradient && !want_hessian;
  const auto terms = [&](index_t first, const simd::RowBlock& block, Eigen::VectorXd& g,
                         Eigen::VectorXd& c) {
    const index_t count = block.rows;
    const double* y = response.data() + first;
    // A shared offset is added as a stored one would be: the same bits, and no n-vector read.
    const double* shift = offset.stored != nullptr ? offset.stored + first : nullptr;
    LinkScratch& scratch = link_scratch(count);
    const double* w = block_weights(weights, first);  // the coreset's, or ones
    double* predictor = scratch.predictor.data();
    simd::linear_predictors(block, theta.data(), predictor);
    // values[j] = ell(a_j), then w_j (ell(a_j) + c_j): the terms the value adds up.
    double* values = scratch.value.data();
    if (model.link == Link::logistic) {
      // The vector link (simd/row_block.hpp). A line search's evaluation takes the value alone,
      // log sigma(y a) by the log-sigmoid kernel: the bits of the full evaluation's value.
      if (value_only) {
        for (index_t j = 0; j < count; ++j) {
          values[j] = y[j] * predictor[j];
        }
        simd::log_sigmoid(values, values, count);
      } else {
        simd::logistic_link_terms(predictor, y, count, values, g.data(), c.data());
      }
    } else if (value_only) {
      // The link's value alone (link_value computes it as evaluate_link does, bit for bit),
      // without the derivatives' exponentials.
      for (index_t j = 0; j < count; ++j) {
        values[j] = link_value(model.link, predictor[j], y[j], model.noise_precision);
      }
    } else {
      for (index_t j = 0; j < count; ++j) {
        const LinkTerms link = evaluate_link(model.link, predictor[j], y[j], model.noise_precision);
        values[j] = link.value;
        g[j] = link.first;
        c[j] = link.second;
      }
    }
    if (!value_only) {
      // g_n = w_n ell'(a_n) and c_n = w_n * -ell''(a_n) >= 0, in place of the link's terms.
      for (index_t j = 0; j < count; ++j) {
        g[j] = w[j] * g[j];
        c[j] = -w[j] * c[j];
      }
    }
    if (shift != nullptr) {
      for (index_t j = 0; j < count; ++j) {
        values[j] = w[j] * (values[j] + shift[j]);
      }
    } else {
      for (index_t j = 0; j < count; ++j) {
        values[j] = w[j] * (values[j] + offset.shared);
      }
    }
    return simd::sum_in_lanes(values, count);
  };
  return exact_sums_over_rows(design, want_gradient, want_hessian, terms);
}

RowSums link_sums(const Model& model, const Design& design,
                  const Eigen::Ref<const Eigen::VectorXd>& response, OffsetsView offset,
                  const double* weights, const Eigen::VectorXd& theta, bool want_gradient,
                  bool want_hessian) {
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
  return exact_link_sums(model, model.design.middle_rows(first, count),
                         model.response.segment(first, count), model.offset.view(first), nullptr,
                         theta, want_vector, want_matrix);
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
  const LinkTerms terms = evaluate_link(model.link, model.design.row_dot(n, theta.data()),
                                        model.response[n], model.noise_precision);
  const bool has_quadratic = model.shared_quadratic.size() != 0;
  double value = terms.value + model.offset[n];
  Eigen::VectorXd q_theta;
  if (has_quadratic) {
    q_theta = model.shared_quadratic * theta;
    value -= 0.5 * theta.dot(q_theta);
  }
  Eigen::VectorXd z;  // z_n, for the derivatives
  if (gradient != nullptr || hessian != nullptr) {
    z = model.design.row(n).transpose();
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
      sums = link_sums(model, model.design, model.response, model.offset.view(), nullptr, theta,
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
    for (Eigen::Index i = 0; i < k; ++i) {
      const index_t index = weights->indices[static_cast<std::size_t>(i)];
      rows.row(i) = model.design.row(index);
      response[i] = model.response[index];
    }
    const RowOffsets offsets = model.offset.rows_at(weights->indices);
    sums = link_sums(model, Design(std::move(rows)), response, offsets.view(),
                     weights->weights.data(), theta, want_gradient, want_hessian);
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
