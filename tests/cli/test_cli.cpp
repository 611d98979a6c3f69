// The `coreset` command end to end: real files in, real files out, exit codes as documented.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "coreset/io.hpp"
#include "helpers/cli_fixture.hpp"
#include "helpers/random_problem.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;
namespace fs = std::filesystem;

// A mistyped command is named as such, not "A subcommand is required".
TEST_F(Cli, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const CommandResult r = run("biuld --model logistic -k 5");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown command 'biuld' (expected one of: build, evaluate, solve"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(run("-q build --model logistic -k 3 --samples 20").exit_code, 0);
}

TEST_F(Cli, SolveWritesTheCoresetAndAReport) {
  const auto problem = write_planted();
  const CommandResult r =
      run("solve --phi " + path("phi.npy") + " --y " + path("y.npy") + " -k 5 --tol 1e-10 --out " +
          path("coreset.csv") + " --report " + path("report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Coreset coreset = io::read_coreset_csv(path("coreset.csv"));
  EXPECT_EQ(coreset.indices, problem.support);
  EXPECT_EQ(slurp(path("coreset.csv")).rfind("index,weight\n", 0), 0u);

  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["algorithm"], "a-iht-2");
  EXPECT_EQ(report["k"], 5);
  EXPECT_EQ(report["support_size"], 5);
  EXPECT_EQ(report["converged"], true);
  EXPECT_LT(report["relative_error"].get<double>(), 1e-6);
  EXPECT_EQ(report["objective_history"].size(), report["iterations"].get<std::size_t>());
  EXPECT_GE(report["seconds"].get<double>(), 0.0);
  for (const char* key : {"stop_reason", "objective", "step_rule", "input"}) {
    EXPECT_TRUE(report.contains(key)) << key;
  }
  // The objective in the report is f at the weights in the CSV.
  const double recomputed = objective(problem.phi.view(), problem.y.data(), coreset);
  EXPECT_NEAR(report["objective"].get<double>(), recomputed, 1e-12 + 1e-9 * recomputed);
}

TEST_F(Cli, SolveWithoutOutPrintsASummaryAndTheWeights) {
  write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") + " --y " + path("y.npy") +
                              " -k 5 --algorithm a-iht --step-rule reference");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a-iht (step rule reference)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("relative error"), std::string::npos);
  EXPECT_NE(r.out.find("index,weight"), std::string::npos);
}

TEST_F(Cli, SolveWithGigaWritesTheCoresetAndAReport) {
  const auto problem = write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") + " --y " + path("y.npy") +
                              " -k 5 --algorithm giga --out " + path("coreset.csv") + " --report " +
                              path("report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("coreset solve: giga, k = 5"), std::string::npos) << r.out;
  const Coreset coreset = io::read_coreset_csv(path("coreset.csv"));
  EXPECT_GE(coreset.size(), 1);
  EXPECT_LE(coreset.size(), 5);

  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["algorithm"], "giga");
  EXPECT_EQ(report["k"], 5);
  EXPECT_EQ(report["support_size"], coreset.size());
  EXPECT_EQ(report["converged"], true);
  const std::string stop = report["stop_reason"];
  EXPECT_TRUE(stop == "budget" || stop == "stationary") << stop;
  EXPECT_LE(report["iterations"].get<int>(), 5);
  EXPECT_EQ(report["objective_history"].size(), report["iterations"].get<std::size_t>());
  EXPECT_LT(report["relative_error"].get<double>(), 1.0);
  const double recomputed = objective(problem.phi.view(), problem.y.data(), coreset);
  EXPECT_NEAR(report["objective"].get<double>(), recomputed, 1e-12 + 1e-9 * recomputed);
}

// SparseVI samples its own coreset posteriors from the model, so a bare Phi cannot run it: a
// usage error (before the files are read) that points to `coreset build`.
TEST_F(Cli, SolveRefusesSparseViAndPointsToBuild) {
  write_planted();
  const CommandResult r = run("solve --phi " + path("phi.npy") +
                              " -k 5 --algorithm sparsevi --out " + path("coreset.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("coreset build --algorithm sparsevi"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("coreset.csv")));
  const CommandResult missing =
      run("solve --phi " + path("absent.npy") + " -k 5 --algorithm sparsevi");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;  // refused before the file is looked at
}

TEST_F(Cli, ReadsCsvAndCOrderFloatNpyAlike) {
  const auto problem = test::planted_problem(60, 80, 3, 7);
  // Phi as CSV: S lines of n numbers.
  std::ofstream csv(path("phi.csv"));
  csv.precision(17);
  for (index_t i = 0; i < 60; ++i) {
    for (index_t j = 0; j < 80; ++j) {
      csv << (j ? "," : "") << problem.phi(i, j);
    }
    csv << "\n";
  }
  csv.close();
  // The same matrix as float32 in C order.
  std::vector<float> c_order(60 * 80);
  for (index_t i = 0; i < 60; ++i) {
    for (index_t j = 0; j < 80; ++j) {
      c_order[i * 80 + j] = static_cast<float>(problem.phi(i, j));
    }
  }
  io::write_npy(path("phi32.npy"), c_order.data(), {60, 80}, false);
  const CommandResult from_csv =
      run("solve --phi " + path("phi.csv") + " -k 3 --out " + path("a.csv"));
  const CommandResult from_npy =
      run("solve --phi " + path("phi32.npy") + " -k 3 --precision float --out " + path("b.csv"));
  ASSERT_EQ(from_csv.exit_code, 0) << from_csv.err;
  ASSERT_EQ(from_npy.exit_code, 0) << from_npy.err;
  EXPECT_EQ(io::read_coreset_csv(path("a.csv")).indices,
            io::read_coreset_csv(path("b.csv")).indices);
}

TEST_F(Cli, VersionAndInfo) {
  const CommandResult version = run("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("coreset ", 0), 0u) << version.out;
  const CommandResult info = run("info");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("CUDA support"), std::string::npos);
  EXPECT_NE(info.out.find("GPUs"), std::string::npos);
}

// Exit codes from README: 2 usage, 3 input, 4 output. Nothing may be written on failure.
struct BadCase {
  std::string name;
  std::string setup;  // what to write into bad.npy / bad.csv, see BadInput below
  std::string arguments;
  int exit_code;
  std::string message;  // a fragment the error must contain
};

class BadInput : public Cli {};

TEST_F(BadInput, EachFailureHasItsExitCodeAClearMessageAndNoOutput) {
  write_planted(20, 30, 2);
  {
    std::ofstream(path("nan.csv")) << "1,2,3\n4,nan,6\n";
    std::ofstream(path("ragged.csv")) << "1,2,3\n4,5\n";
    std::ofstream(path("short_y.csv")) << "1\n2\n3\n";
    const std::string bytes = slurp(path("phi.npy"));
    std::ofstream(path("truncated.npy"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  const std::string out = " --out " + path("out.csv") + " --report " + path("out.json");
  const BadCase cases[] = {
      {"missing file", "", "solve --phi " + path("nope.npy") + " -k 2" + out, 3, "nope.npy"},
      {"NaN cell", "", "solve --phi " + path("nan.csv") + " -k 1" + out, 3, "nan.csv:2:2"},
      {"ragged row", "", "solve --phi " + path("ragged.csv") + " -k 1" + out, 3, "ragged.csv:2"},
      {"truncated npy", "", "solve --phi " + path("truncated.npy") + " -k 1" + out, 3,
       "truncated.npy"},
      {"y length", "",
       "solve --phi " + path("phi.npy") + " --y " + path("short_y.csv") + " -k 1" + out, 3,
       "3 entries but Phi"},
      {"k = 0", "", "solve --phi " + path("phi.npy") + " -k 0" + out, 2, "k must be at least 1"},
      {"unknown algorithm", "", "solve --phi " + path("phi.npy") + " -k 2 --algorithm gigo" + out,
       2, "a-iht-2"},
      {"unknown option", "", "solve --phi " + path("phi.npy") + " -k 2 --frobnicate" + out, 2,
       "frobnicate"},
      {"missing -k", "", "solve --phi " + path("phi.npy") + out, 2, "-k"},
      {"output folder missing", "",
       "solve --phi " + path("phi.npy") + " -k 2 --out " + path("no/such/dir/out.csv"), 4,
       "does not exist"},
  };
  for (const BadCase& c : cases) {
    const CommandResult r = run(c.arguments);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("out.csv"))) << c.name;
    EXPECT_FALSE(fs::exists(path("out.json"))) << c.name;
    EXPECT_TRUE(r.out.empty()) << c.name << ": " << r.out;
  }
  // Nothing but our own inputs is left in the folder: no temporary files either.
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "phi.npy" || name == "y.npy" || name == "nan.csv" || name == "ragged.csv" ||
                name == "short_y.csv" || name == "truncated.npy")
        << "unexpected file " << name;
  }
}

}  // namespace
}  // namespace coreset
