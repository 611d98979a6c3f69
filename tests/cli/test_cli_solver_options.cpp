// `--batch-fraction`, `--sync-every` and `--refit` on `solve` and `build`: accepted, recorded in
// the report and the summary, refused with a usage error where they do not apply; and the
// summary's note when a coreset has fewer points than k.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "coreset/io.hpp"
#include "helpers/cli_fixture.hpp"
#include "helpers/non_monotone_phi.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;

// Out-of-range solver options are refused by the command, naming its options (the library's
// own messages name its fields: max_iterations, tolerance).
TEST_F(Cli, OutOfRangeSolverOptionsNameTheOption) {
  const std::string base = "build --model logistic -k 3 --samples 20 --device cpu ";
  const std::pair<const char*, const char*> cases[] = {
      {"--max-iter 0", "--max-iter: Value 0 not in range 1 to 1000000000"},
      {"--tol -1", "--tol: expected a number >= 0, got -1"},
      {"--batch-fraction 1.5", "--batch-fraction: Value 1.5 not in range"},
      {"--threads -2", "--threads: expected a number >= 0, got -2"},
      {"--sync-every -1", "--sync-every: Value -1 not in range 0 to 1000000"},
  };
  for (const auto& [option, message] : cases) {
    const CommandResult r = run(base + option);
    EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << option << "\n" << r.err;
  }
}

TEST_F(Cli, SolveWithBatchesAndRefitRecoversThePlantedCoresetAndReportsBothObjectives) {
  const auto problem = write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") + " --y " + path("y.npy") +
                              " -k 5 --tol 1e-10 --batch-fraction 0.2 --refit --seed 3 --out " +
                              path("coreset.csv") + " --report " + path("report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("refit:          NNLS on the support: f = "), std::string::npos) << r.out;
  EXPECT_EQ(io::read_coreset_csv(path("coreset.csv")).indices, problem.support);
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["batch_fraction"], 0.2);
  EXPECT_EQ(report["refit"], true);
  EXPECT_LE(report["objective"].get<double>(), report["objective_before_refit"].get<double>());
  EXPECT_LT(report["relative_error"].get<double>(), 1e-6);
}

TEST_F(Cli, SolveWithoutRefitReportsEqualObjectivesAndNoRefitLine) {
  write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") +
                              " -k 5 --algorithm giga --report " + path("report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("refit:"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["refit"], false);
  EXPECT_EQ(report["objective"], report["objective_before_refit"]);
}

TEST_F(Cli, BatchFractionOutsideItsDomainOrWithIhtIsAUsageError) {
  write_planted();
  const CommandResult iht =
      run("solve --phi " + path("phi.npy") + " -k 5 --algorithm iht --batch-fraction 0.2");
  EXPECT_EQ(iht.exit_code, 2) << iht.err;
  EXPECT_NE(iht.err.find("a batch fraction in (0, 1) is for a-iht and a-iht-2"), std::string::npos)
      << iht.err;
  const CommandResult big = run("solve --phi " + path("phi.npy") + " -k 5 --batch-fraction 1.5");
  EXPECT_EQ(big.exit_code, 2) << big.err;
  EXPECT_NE(big.err.find("--batch-fraction: Value 1.5 not in range"), std::string::npos) << big.err;
}

// --sync-every changes how often the host looks at the solve, never the result; out of range it
// is a usage error naming the option.
TEST_F(Cli, SyncEveryGivesTheSameSolveAndIsRecorded) {
  write_planted();
  const std::string common = "solve --phi " + path("phi.npy") + " -k 5 --tol 1e-12 --device cpu";
  const CommandResult every = run(common + " --sync-every 1 --out " + path("every.csv") +
                                  " --report " + path("every.json"));
  ASSERT_EQ(every.exit_code, 0) << every.err;
  const CommandResult tracked = run(common + " --sync-every 3 --out " + path("tracked.csv") +
                                    " --report " + path("tracked.json"));
  ASSERT_EQ(tracked.exit_code, 0) << tracked.err;
  EXPECT_EQ(slurp(path("tracked.csv")), slurp(path("every.csv")));
  const auto a = nlohmann::json::parse(slurp(path("every.json")));
  const auto b = nlohmann::json::parse(slurp(path("tracked.json")));
  EXPECT_GT(a["iterations"].get<int>(), 4);  // past the host-loop iterations
  EXPECT_EQ(b["objective_history"], a["objective_history"]);
  EXPECT_EQ(b["sync_every"], 3);
  const CommandResult bad = run(common + " --sync-every -2");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--sync-every: Value -2 not in range"), std::string::npos) << bad.err;
}

TEST_F(Cli, BuildWithRefitLowersTheObjectiveOfAUniformCoreset) {
  const CommandResult r =
      run("build --model logistic -k 40 --samples 100 --algorithm uniform "
          "--refit --report " +
          path("report.json") + " --out " + path("coreset.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("refit:          NNLS on the support"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["refit"], true);
  EXPECT_LT(report["objective"].get<double>(),
            0.5 * report["objective_before_refit"].get<double>());
  EXPECT_EQ(report["support_size"].get<long>(),
            static_cast<long>(io::read_coreset_csv(path("coreset.csv")).size()));
}

TEST_F(Cli, BuildWithBatchFractionRecordsIt) {
  const CommandResult r =
      run("build --model logistic -k 20 --samples 100 --batch-fraction 0.2 "
          "--report " +
          path("report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["batch_fraction"], 0.2);
  EXPECT_TRUE(std::isfinite(report["quality"]["forward_kl"].get<double>()));
}

// Twelve datapoints, three distinct: the coreset has fewer points than k, and the summary says
// why instead of leaving the user to wonder.
TEST_F(Cli, FewerPointsThanKAreExplainedInTheSummary) {
  const Matrix<double> base = test::gaussian_matrix(20, 3, 5);
  Matrix<double> phi(20, 12);
  for (index_t j = 0; j < 12; ++j) {
    std::copy(base.column(j % 3), base.column(j % 3) + 20, phi.column(j));
  }
  io::write_npy(path("copies.npy"), phi.data(), {20, 12}, true);
  const CommandResult iht =
      run("solve --phi " + path("copies.npy") + " -k 12 --out " + path("coreset.csv"));
  ASSERT_EQ(iht.exit_code, 0) << iht.err;
  EXPECT_NE(iht.out.find("note:           3 points, fewer than k = 12: no other point lowers f"),
            std::string::npos)
      << iht.out;
  EXPECT_EQ(io::read_coreset_csv(path("coreset.csv")).indices, (std::vector<index_t>{0, 1, 2}));
  const CommandResult uniform =
      run("solve --phi " + path("copies.npy") + " -k 12 --algorithm uniform --refit");
  ASSERT_EQ(uniform.exit_code, 0) << uniform.err;
  EXPECT_NE(uniform.out.find("repeated draws of a point merge into one weight; the refit drops"),
            std::string::npos)
      << uniform.out;
  const CommandResult enough = run("solve --phi " + path("copies.npy") + " -k 3");
  EXPECT_EQ(enough.out.find("note:"), std::string::npos) << enough.out;
}

}  // namespace
// A-IHT II can end at an iterate worse than an earlier one (here the empty coreset, after
// iteration 1's column): the note names the better iteration and how to get it.
TEST_F(Cli, ANoteNamesAnEarlierBetterIterate) {
  const Matrix<double> phi = test::comes_back_to_empty_phi();
  io::write_npy(path("phi.npy"), phi.data(), {10, 3}, true);
  const CommandResult last = run("solve --phi " + path("phi.npy") + " -k 1 --device cpu");
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.out.find("0 points, fewer than k = 1: iteration 1 had f = 0.229"),
            std::string::npos)
      << last.out;
  EXPECT_NE(last.out.find("--max-iter 1 returns iteration 1's coreset"), std::string::npos)
      << last.out;
  const CommandResult first =
      run("solve --phi " + path("phi.npy") + " -k 1 --device cpu --max-iter 1");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("objective:      ||y - Phi w||^2 = 0.229"), std::string::npos)
      << first.out;
  EXPECT_EQ(first.out.find("note:"), std::string::npos) << first.out;
}

}  // namespace coreset
