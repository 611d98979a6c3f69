// --device and --precision on `solve` and `build`, on a machine without a GPU (the build
// machines, CI): auto falls back to the CPU with a one-line notice, gpu is exit code 7 with the
// reason and writes nothing. Where a GPU is usable these skip (tests/cuda covers that side).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "coreset/io.hpp"
#include "coreset/solver.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;
namespace fs = std::filesystem;

bool no_gpu() {
  return !gpu_usable(nullptr);
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(Cli, SolveOnAMissingGpuIsExitCode7AndWritesNothing) {
  if (!no_gpu()) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --device gpu --out " +
                              path("c.csv") + " --report " + path("r.json"));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("--device gpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no usable GPU"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_FALSE(fs::exists(path("c.csv")));
  EXPECT_FALSE(fs::exists(path("r.json")));
}

TEST_F(Cli, BuildOnAMissingGpuIsExitCode7BeforeAnyWork) {
  if (!no_gpu()) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  // The data file does not exist: the device is checked first, so the error is the GPU's.
  const CommandResult r = run("build --model logistic --data " + path("missing.csv") +
                              " --device gpu --out " + path("c.csv"));
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_FALSE(fs::exists(path("c.csv")));
}

TEST_F(Cli, AutoFallsBackToTheCpuWithOneNoticeAndTheCpuAnswer) {
  if (!no_gpu()) {
    GTEST_SKIP() << "a GPU is usable here";
  }
  write_planted();
  const std::string common = "solve --phi " + path("phi.npy") + " --y " + path("y.npy") + " -k 5";
  const CommandResult automatic =
      run(common + " --out " + path("auto.csv") + " --report " + path("auto.json"));
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  EXPECT_EQ(count_lines(automatic.err), 1u) << automatic.err;
  EXPECT_NE(automatic.err.find("notice: no usable GPU"), std::string::npos) << automatic.err;
  EXPECT_NE(automatic.err.find("running on the CPU"), std::string::npos) << automatic.err;

  const CommandResult cpu = run(common + " --device cpu --out " + path("cpu.csv"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_TRUE(cpu.err.empty()) << cpu.err;  // asked for the CPU: nothing to note
  EXPECT_EQ(slurp(path("auto.csv")), slurp(path("cpu.csv")));

  // auto precision on the CPU is double, and the report says where it ran.
  const auto report = nlohmann::json::parse(slurp(path("auto.json")));
  EXPECT_EQ(report["input"]["precision"], "double");
  EXPECT_EQ(report["runtime"]["backend"], "cpu");
}

TEST_F(Cli, DeviceAndPrecisionRejectUnknownValues) {
  write_planted();
  const std::string common = "solve --phi " + path("phi.npy") + " -k 5";
  EXPECT_EQ(run(common + " --device tpu").exit_code, 2);
  EXPECT_EQ(run(common + " --precision half").exit_code, 2);
  const CommandResult single =
      run(common + " --device cpu --precision float --report " + path("f.json"));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(path("f.json")))["input"]["precision"], "float");
}

}  // namespace
}  // namespace coreset
