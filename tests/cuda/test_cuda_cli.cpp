// `coreset solve` and `coreset build` with --device gpu end to end: the same coreset as on the
// CPU, and reports that say where they ran. Label `gpu`: skipped without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "cuda/gpu_test_support.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset {
namespace {

using test::CommandResult;
using test::slurp;

class GpuCli : public test::Cli {
 protected:
  void SetUp() override {
    CORESET_REQUIRE_GPU();
    test::Cli::SetUp();
  }
};

TEST_F(GpuCli, SolveOnTheGpuGivesTheCpuCoreset) {
  write_planted(200, 500, 5);
  const std::string common = "solve --phi " + path("phi.npy") + " --y " + path("y.npy") + " -k 5";
  const CommandResult gpu = run(common + " --device gpu --precision double --out " +
                                path("gpu.csv") + " --report " + path("gpu.json"));
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_TRUE(gpu.err.empty()) << gpu.err;
  const CommandResult cpu = run(common + " --device cpu --out " + path("cpu.csv"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(io::read_coreset_csv(path("gpu.csv")).indices,
            io::read_coreset_csv(path("cpu.csv")).indices);
  const auto report = nlohmann::json::parse(slurp(path("gpu.json")));
  EXPECT_EQ(report["runtime"]["backend"], "gpu");
  EXPECT_TRUE(report["runtime"]["gpu"].is_string());
  // auto picks the GPU, and float by default there.
  const CommandResult automatic = run(common + " --report " + path("auto.json"));
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  const auto auto_report = nlohmann::json::parse(slurp(path("auto.json")));
  EXPECT_EQ(auto_report["runtime"]["backend"], "gpu");
  EXPECT_EQ(auto_report["input"]["precision"], "float");
}

// Hard thresholding on a problem that has not converged moves by tens of percent with rounding
// alone: on the H100 (commit 5afc694) this build's relative error was 0.647 on the GPU and 0.589
// on the CPU, and the built-in example's 0.170 on the GPU, 0.259 on the CPU in double and 0.154
// in float. So the GPU is held to what does not depend on rounding: its report describes its own
// coreset (evaluating that coreset afresh on the same draws gives the same quality, to the
// precision of the build's Phi), and its quality lies within the CPU's own spread over the two
// precisions, with a margin of 25%.
TEST_F(GpuCli, BuildOnTheGpuMatchesTheCpuQuality) {
  const std::string common = "build --model logistic --samples 100 --seed 2 -k 20";
  double cpu_worst = 0;
  std::vector<double> gpu_errors;
  for (const std::string precision : {"float", "double"}) {
    SCOPED_TRACE(precision);
    const std::string gpu_json = path("gpu_" + precision + ".json");
    const std::string gpu_csv = path("gpu_" + precision + ".csv");
    const std::string cpu_json = path("cpu_" + precision + ".json");
    const std::string eval_json = path("eval_" + precision + ".json");
    const CommandResult gpu = run(common + " --device gpu --precision " + precision + " --out " +
                                  gpu_csv + " --report " + gpu_json);
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    const CommandResult cpu =
        run(common + " --device cpu --precision " + precision + " --report " + cpu_json);
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const CommandResult evaluated =
        run("evaluate --model logistic --samples 100 --seed 2 --coreset " + gpu_csv + " --report " +
            eval_json);
    ASSERT_EQ(evaluated.exit_code, 0) << evaluated.err;
    const auto g = nlohmann::json::parse(slurp(gpu_json));
    const auto c = nlohmann::json::parse(slurp(cpu_json));
    const auto e = nlohmann::json::parse(slurp(eval_json));
    EXPECT_EQ(g["runtime"]["backend"], "gpu");
    const double g_error = g["quality"]["relative_projection_error"];
    const double e_error = e["quality"]["relative_projection_error"];
    const double tolerance = precision == "float" ? 1e-3 : 1e-8;
    EXPECT_NEAR(g_error, e_error, tolerance * e_error);
    for (const char* kl : {"forward_kl", "reverse_kl"}) {
      const double reported = g["quality"][kl];
      const double fresh = e["quality"][kl];
      EXPECT_NEAR(reported, fresh, 1e-6 * std::abs(fresh) + 1e-12) << kl;
    }
    cpu_worst = std::max(cpu_worst, c["quality"]["relative_projection_error"].get<double>());
    gpu_errors.push_back(g_error);
  }
  for (const double g_error : gpu_errors) {
    EXPECT_LE(g_error, 1.25 * cpu_worst) << "the CPU's worst of float and double: " << cpu_worst;
    EXPECT_LT(g_error, 1.0);  // better than the empty coreset
  }
}

}  // namespace
}  // namespace coreset
