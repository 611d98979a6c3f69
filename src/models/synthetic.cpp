// The synthetic logistic-regression data of spec 3.6, generated from raw mt19937_64 output so the
// same seed gives the same dataset with every compiler and standard library.
#include <cstdint>
#include <string>

#include "core/random.hpp"
#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "models/link.hpp"

namespace coreset {

Dataset synthetic_logistic_dataset(index_t rows, std::uint64_t seed) {
  if (rows < 1) {
    throw InvalidArgument("the synthetic dataset needs at least one row (got " +
                          std::to_string(rows) + ")");
  }
  // The generating parameters of the papers: theta = (3, 3), intercept 0.
  constexpr double kSlope = 3.0;

  Dataset data;
  data.covariates = Matrix<double>(rows, 2);
  data.response.resize(static_cast<std::size_t>(rows));
  core::NormalGenerator random(seed);
  for (index_t i = 0; i < rows; ++i) {
    // A fixed draw order per row (x1, x2, then the label's uniform), so the first m rows of a
    // longer dataset are the m-row dataset of the same seed.
    const double x1 = random();
    const double x2 = random();
    const double u = random.uniform();
    data.covariates(i, 0) = x1;
    data.covariates(i, 1) = x2;
    data.response[static_cast<std::size_t>(i)] =
        u < models::sigmoid(kSlope * x1 + kSlope * x2) ? 1.0 : -1.0;
  }
  data.covariate_names = {"x1", "x2"};
  data.response_name = "y";
  data.source = "built-in synthetic logistic data";
  data.first_data_line = 0;
  data.response_column = 0;
  return data;
}

}  // namespace coreset
