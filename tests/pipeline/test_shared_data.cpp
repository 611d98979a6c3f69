// The papers' real datasets (../shared/data), skipped when the folder is absent: on phishing
// (logistic) and biketrips (Poisson) the A-IHT II coreset's posterior beats uniform subsampling
// and improves as k grows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/io.hpp"
#include "helpers/uniform_coreset.hpp"

namespace coreset {
namespace {

std::string shared_data(const std::string& name) {
  const char* override_dir = std::getenv("CORESET_SHARED_DATA");
  const std::filesystem::path dir = override_dir ? override_dir : CORESET_SHARED_DATA_DIR;
  return (dir / name).string();
}

struct RealCase {
  const char* file;
  ModelKind model;
};

class SharedData : public ::testing::TestWithParam<RealCase> {};

TEST_P(SharedData, CoresetBeatsUniformAndImprovesWithK) {
  const std::string path = shared_data(GetParam().file);
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << path << " is absent";
  }
  const Dataset data = io::read_dataset_csv(path);
  BuildOptions options;
  options.model.kind = GetParam().model;
  options.samples = 500;
  options.seed = 0;

  std::vector<double> forward_kl;
  for (const index_t k : {10, 50, 100}) {
    options.solver.k = k;
    forward_kl.push_back(build_coreset(data, options).quality.forward_kl);
  }
  const double at_50 = forward_kl[1];
  std::vector<double> uniform;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    uniform.push_back(
        evaluate_coreset(data, options, test::uniform_coreset(data.rows(), 50, seed)).forward_kl);
  }
  std::nth_element(uniform.begin(), uniform.begin() + 5, uniform.end());
  const double uniform_median = uniform[5];  // the upper median of 10
  RecordProperty("forward_kl_k10", std::to_string(forward_kl[0]));
  RecordProperty("forward_kl_k50", std::to_string(at_50));
  RecordProperty("forward_kl_k100", std::to_string(forward_kl[2]));
  RecordProperty("uniform_median_k50", std::to_string(uniform_median));
  EXPECT_LT(at_50, uniform_median) << GetParam().file;
  EXPECT_LT(forward_kl[1], forward_kl[0]) << GetParam().file;
  EXPECT_LT(forward_kl[2], forward_kl[1]) << GetParam().file;
}

INSTANTIATE_TEST_SUITE_P(PapersDatasets, SharedData,
                         ::testing::Values(RealCase{"phishing.csv", ModelKind::logistic},
                                           RealCase{"biketrips.csv", ModelKind::poisson}),
                         [](const auto& info) {
                           return std::string(info.param.model == ModelKind::logistic
                                                  ? "phishing_logistic"
                                                  : "biketrips_poisson");
                         });

}  // namespace
}  // namespace coreset
