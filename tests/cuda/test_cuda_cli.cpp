// `coreset solve` and `coreset build` with --device gpu end to end: the same coreset as on the
// CPU, and reports that say where they ran. Label `gpu`: skipped without one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

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

TEST_F(GpuCli, BuildOnTheGpuMatchesTheCpuQuality) {
  const std::string common = "build --model logistic --samples 100 --seed 2 -k 20";
  const CommandResult gpu =
      run(common + " --device gpu --precision double --report " + path("gpu.json"));
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  const CommandResult cpu = run(common + " --device cpu --report " + path("cpu.json"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  const auto g = nlohmann::json::parse(slurp(path("gpu.json")));
  const auto c = nlohmann::json::parse(slurp(path("cpu.json")));
  EXPECT_EQ(g["runtime"]["backend"], "gpu");
  const double g_error = g["quality"]["relative_projection_error"];
  const double c_error = c["quality"]["relative_projection_error"];
  EXPECT_NEAR(g_error, c_error, 5e-2 * c_error + 1e-9);  // the same quality, not bits
}

}  // namespace
}  // namespace coreset
