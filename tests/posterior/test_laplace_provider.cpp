// The Laplace fit's sums over the full data can come from elsewhere (a GPU job's device copy of
// the dataset, models::RowSumsProvider). On the host: a provider that computes exactly the host
// reference's sums gives a bit-identical fit (so log_joint adds the provided sums as it adds its
// own, and nothing else changes), the fit really asks the provider (every Newton step and line
// search point), a weighted fit never does, and a provider of another dataset's shape is refused.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <string>

#include "coreset/error.hpp"
#include "helpers/model_datasets.hpp"
#include "models/link.hpp"
#include "models/model.hpp"
#include "models/row_sums.hpp"
#include "models/row_sums_provider.hpp"
#include "posterior/posterior.hpp"

namespace coreset::posterior {
namespace {

/// The host reference's own sums (log_joint's, through the rank interface's exact_link_sums over
/// all rows), counted. The sums are the reference's by construction: what the bit-identity test
/// below checks is that log_joint adds provided sums exactly as it adds its own.
class HostSums final : public models::RowSumsProvider {
 public:
  explicit HostSums(const models::Model& model, double matrix_scale = 1.0)
      : model_(model), matrix_scale_(matrix_scale) {}
  index_t rows() const noexcept override { return model_.rows(); }
  index_t dim() const noexcept override { return model_.dim(); }
  models::RowSums link_sums(const Eigen::VectorXd& theta, bool want_vector,
                            bool want_matrix) const override {
    ++calls;
    ++(want_vector || want_matrix ? calls_with_derivatives : value_calls);
    models::RowSums sums = models::round_row_sums(
        models::exact_link_sums(model_, 0, model_.rows(), theta, want_vector, want_matrix),
        model_.dim(), want_vector, want_matrix);
    if (want_matrix) {
      sums.matrix *= matrix_scale_;
    }
    return sums;
  }
  mutable int calls = 0;
  mutable int calls_with_derivatives = 0;
  mutable int value_calls = 0;

 private:
  const models::Model& model_;
  double matrix_scale_;
};

models::Model model_of(ModelKind kind) {
  ModelOptions options;
  options.kind = kind;
  // 5000 rows: three row blocks of the host sums, so their fixed order is exercised too.
  return models::make_model(test::model_dataset(kind, 5000, 3, 7), options, 7);
}

TEST(LaplaceProvider, TheHostSumsThroughTheProviderGiveTheSameBitsOnEveryModel) {
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const models::Model model = model_of(kind);
    const HostSums host(model);
    LaplaceOptions options;
    const LaplaceFit reference = laplace(model, nullptr, options);
    options.full_data = &host;
    const LaplaceFit provided = laplace(model, nullptr, options);
    EXPECT_GT(host.calls, reference.iterations);  // each step, and the line search's points
    EXPECT_EQ(provided.iterations, reference.iterations);
    EXPECT_TRUE(provided.posterior.mean == reference.posterior.mean);
    EXPECT_TRUE(provided.posterior.covariance == reference.posterior.covariance);
    EXPECT_EQ(provided.gradient_norm, reference.gradient_norm);
  }
}

TEST(LaplaceProvider, OnePassPerNewtonStepAndTheFitCountsItsPasses) {
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const models::Model model = model_of(kind);
    const HostSums host(model);
    LaplaceOptions options;
    options.full_data = &host;
    const LaplaceFit fit = laplace(model, nullptr, options);
    EXPECT_EQ(fit.full_evaluations, host.calls_with_derivatives);
    EXPECT_EQ(fit.value_evaluations, host.value_calls);
    // The start, one pass per step (the polishing one included), one more if the polish is
    // refused, and a second pass at a step the line search shortened: never two passes at a
    // full step, which the line search takes with the derivatives it needs next.
    EXPECT_GE(fit.full_evaluations, fit.iterations + 1);
    EXPECT_LE(fit.full_evaluations, fit.iterations + 2 + fit.value_evaluations);
    if (kind == ModelKind::gaussian || kind == ModelKind::linear) {
      // A quadratic log joint: the first full Newton step lands on the mode, no halving.
      EXPECT_EQ(fit.value_evaluations, 0);
      EXPECT_LE(fit.iterations, 2);
    }
  }
}

TEST(LaplaceProvider, LogJointAddsTheProvidedSumsToThePriorAndSharedQuadratic) {
  for (const ModelKind kind : test::all_model_kinds()) {
    SCOPED_TRACE(to_string(kind));
    const models::Model model = model_of(kind);
    const HostSums host(model);
    const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(model.dim(), -0.3, 0.4);
    Eigen::VectorXd g_ref;
    Eigen::VectorXd g;
    Eigen::MatrixXd h_ref;
    Eigen::MatrixXd h;
    const double ref = models::log_joint(model, nullptr, theta, &g_ref, &h_ref);
    const double value = models::log_joint(model, nullptr, theta, &g, &h, &host);
    EXPECT_EQ(value, ref);
    EXPECT_TRUE(g == g_ref);
    EXPECT_TRUE(h == h_ref);
    // The value alone asks for no derivatives.
    EXPECT_EQ(models::log_joint(model, nullptr, theta, nullptr, nullptr, &host), ref);
  }
}

TEST(LaplaceProvider, TheFitUsesTheProvidersHessian) {
  // A provider whose Hessian is twice the data's: the covariance must change, so the fit cannot
  // be quietly taking the host's sums.
  const models::Model model = model_of(ModelKind::logistic);
  const HostSums doubled(model, 2.0);
  LaplaceOptions options;
  const LaplaceFit reference = laplace(model, nullptr, options);
  options.full_data = &doubled;
  const LaplaceFit fit = laplace(model, nullptr, options);
  EXPECT_LT(fit.posterior.covariance.trace(), 0.75 * reference.posterior.covariance.trace());
}

TEST(LaplaceProvider, AWeightedFitNeverAsksTheProvider) {
  const models::Model model = model_of(ModelKind::poisson);
  const HostSums host(model);
  Coreset coreset;
  coreset.indices = {1, 10, 100, 1000};
  coreset.weights = {1000.0, 1500.0, 1200.0, 1300.0};
  LaplaceOptions options;
  const LaplaceFit reference = laplace(model, &coreset, options);
  options.full_data = &host;
  const LaplaceFit fit = laplace(model, &coreset, options);
  EXPECT_EQ(host.calls, 0);
  EXPECT_TRUE(fit.posterior.mean == reference.posterior.mean);
}

TEST(LaplaceProvider, AProviderOfAnotherShapeIsRefused) {
  const models::Model model = model_of(ModelKind::logistic);
  const models::Model other = model_of(ModelKind::gaussian);  // 3 parameters, no intercept
  ASSERT_NE(other.dim(), model.dim());
  const HostSums wrong(other);
  const Eigen::VectorXd theta = Eigen::VectorXd::Zero(model.dim());
  EXPECT_THROW(models::log_joint(model, nullptr, theta, nullptr, nullptr, &wrong), InvalidArgument);
  LaplaceOptions options;
  options.full_data = &wrong;
  EXPECT_THROW(laplace(model, nullptr, options), InvalidArgument);
}

}  // namespace
}  // namespace coreset::posterior
