// Reproducibility on the CPU backend: the same inputs, options and --seed give bit-identical
// output (whatever the thread count), a different seed gives other samples, and the report
// records what is needed to rerun the job: version, options, seed, backend, kernels, threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "coreset/version.hpp"
#include "helpers/cli_fixture.hpp"
#include "support/isa.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;
using Json = nlohmann::json;

// The bit patterns of a JSON array of doubles (nlohmann reads back what it wrote exactly).
std::vector<std::uint64_t> bits(const Json& values) {
  std::vector<std::uint64_t> out;
  for (const Json& value : values) {
    const double x = value.get<double>();
    std::uint64_t word = 0;
    std::memcpy(&word, &x, sizeof word);
    out.push_back(word);
  }
  return out;
}

// The report without what legitimately changes from run to run (wall times) or with the
// thread count (the runtime block that records it).
Json without_timing(Json report) {
  report.erase("seconds");
  report.erase("runtime");
  return report;
}

class Reproducible : public Cli {
 protected:
  // `coreset build` on the built-in logistic data (N = 10,000). S x n = 1.2e6 is above the size
  // at which the dense passes use threads, so --threads changes how the work is split.
  Json build(const std::string& name, std::uint64_t seed, int threads,
             const std::string& extra = "") {
    const CommandResult r =
        run("build --model logistic -k 20 --samples 120 --seed " + std::to_string(seed) +
            " --threads " + std::to_string(threads) + extra + " --out " + path(name + ".csv") +
            " --report " + path(name + ".json"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(slurp(path(name + ".json")));
  }
};

TEST_F(Reproducible, BuildWithTheSameSeedIsBitIdenticalForAnyThreadCount) {
  const Json first = build("first", 5, 2);
  const Json again = build("again", 5, 2);
  const Json one_thread = build("one_thread", 5, 1);

  const std::string csv = slurp(path("first.csv"));
  ASSERT_GT(io::read_coreset_csv(path("first.csv")).size(), 0);
  EXPECT_EQ(slurp(path("again.csv")), csv);  // weights printed with 17 digits: bytes = bits
  EXPECT_EQ(slurp(path("one_thread.csv")), csv);
  EXPECT_EQ(again["coreset"]["indices"], first["coreset"]["indices"]);
  EXPECT_EQ(bits(again["coreset"]["weights"]), bits(first["coreset"]["weights"]));
  EXPECT_EQ(one_thread["coreset"]["indices"], first["coreset"]["indices"]);
  EXPECT_EQ(bits(one_thread["coreset"]["weights"]), bits(first["coreset"]["weights"]));
  // Everything else too: quality, both posterior means, the objective after every iteration.
  EXPECT_EQ(without_timing(again).dump(), without_timing(first).dump());
  EXPECT_EQ(without_timing(one_thread).dump(), without_timing(first).dump());
  EXPECT_EQ(again["runtime"], first["runtime"]);
}

TEST_F(Reproducible, BuildReportRecordsVersionOptionsSeedAndRuntime) {
  const Json report = build("r", 9, 1, " --algorithm a-iht --step-rule reference --tol 1e-6");
  EXPECT_EQ(report["version"], version());
  EXPECT_EQ(report["seed"], 9);
  EXPECT_EQ(report["algorithm"], "a-iht");
  EXPECT_EQ(report["step_rule"], "reference");
  EXPECT_EQ(report["k_requested"], 20);
  EXPECT_EQ(report["max_iterations"], 300);
  EXPECT_EQ(report["tolerance"], 1e-6);
  const Json& input = report["input"];
  EXPECT_EQ(input["model"], "logistic");
  EXPECT_EQ(input["intercept"], true);
  EXPECT_EQ(input["precision"], "double");
  EXPECT_EQ(input["pihat_requested"], "auto");
  EXPECT_EQ(input["samples_requested"], 120);
  EXPECT_TRUE(input["prior_covariance"].is_null());
  const Json& runtime = report["runtime"];
  EXPECT_EQ(runtime["backend"], "cpu");
  EXPECT_EQ(runtime["cpu_kernels"], support::isa_name(support::active_isa()));
  EXPECT_EQ(runtime["threads"], 1);
  EXPECT_EQ(runtime["threads_requested"], 1);
  EXPECT_FALSE(runtime["compiler"].get<std::string>().empty());

  const Json every_core = build("every_core", 9, 0);
  EXPECT_EQ(every_core["runtime"]["threads_requested"], 0);
  EXPECT_EQ(every_core["runtime"]["threads"], build_info().threads);
}

TEST_F(Reproducible, ADifferentSeedDrawsOtherSamples) {
  const Json five = build("five", 5, 2);
  const Json six = build("six", 6, 2);
  // The Laplace fit does not depend on the seed; the samples, hence Phi and y = Phi 1, do.
  EXPECT_EQ(bits(six["full_posterior_mean"]), bits(five["full_posterior_mean"]));
  EXPECT_NE(six["target_norm"].get<double>(), five["target_norm"].get<double>());
  EXPECT_NE(bits(six["objective_history"]), bits(five["objective_history"]));
  EXPECT_NE(six["quality"]["relative_projection_error"].get<double>(),
            five["quality"]["relative_projection_error"].get<double>());
  EXPECT_NE(slurp(path("six.csv")), slurp(path("five.csv")));
}

TEST_F(Reproducible, SolveWithTheSameSeedIsBitIdenticalAndRecordsItsRuntime) {
  // S x n = 1.2e6: threaded dense passes. `is` is the solver whose draws the seed drives.
  write_planted(300, 4000, 10);
  const auto solve = [&](const std::string& name, int seed, int threads) {
    const CommandResult r =
        run("solve --phi " + path("phi.npy") + " -k 40 --algorithm is --seed " +
            std::to_string(seed) + " --threads " + std::to_string(threads) + " --out " +
            path(name + ".csv") + " --report " + path(name + ".json"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(slurp(path(name + ".json")));
  };
  const Json first = solve("first", 3, 2);
  const Json again = solve("again", 3, 1);
  const Json other = solve("other", 4, 2);
  EXPECT_EQ(slurp(path("again.csv")), slurp(path("first.csv")));
  EXPECT_EQ(bits(again["coreset"]["weights"]), bits(first["coreset"]["weights"]));
  EXPECT_EQ(without_timing(again).dump(), without_timing(first).dump());
  EXPECT_NE(slurp(path("other.csv")), slurp(path("first.csv")));

  EXPECT_EQ(first["version"], version());
  EXPECT_EQ(first["seed"], 3);
  EXPECT_EQ(first["runtime"]["backend"], "cpu");
  EXPECT_EQ(first["runtime"]["cpu_kernels"], support::isa_name(support::active_isa()));
  EXPECT_EQ(first["runtime"]["threads"], 2);
  EXPECT_EQ(again["runtime"]["threads"], 1);
}

}  // namespace
}  // namespace coreset
