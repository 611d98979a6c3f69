// `coreset build`, `coreset evaluate` and `coreset solve --loglik` end to end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "coreset/io.hpp"
#include "helpers/cli_fixture.hpp"
#include "support/isa.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;
namespace fs = std::filesystem;

TEST_F(Cli, BuildOnTheBuiltInExampleThenEvaluateTheSameCoreset) {
  const std::string common = " --model logistic --samples 100 --seed 2";
  const CommandResult built =
      run("build" + common + " -k 20 --out " + path("c.csv") + " --report " + path("build.json"));
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("built-in synthetic logistic data"), std::string::npos) << built.out;
  EXPECT_NE(built.out.find("KL(full || coreset)"), std::string::npos) << built.out;
  const Coreset coreset = io::read_coreset_csv(path("c.csv"));
  EXPECT_GT(coreset.size(), 0);
  EXPECT_LE(coreset.size(), 20);

  const auto report = nlohmann::json::parse(slurp(path("build.json")));
  EXPECT_EQ(report["command"], "build");
  EXPECT_EQ(report["pihat"], "laplace");
  EXPECT_EQ(report["samples"], 100);
  EXPECT_EQ(report["parameters"], 3);
  EXPECT_EQ(report["input"]["rows"], 10000);
  for (const char* key :
       {"relative_projection_error", "forward_kl", "reverse_kl", "symmetric_kl", "map_distance"}) {
    ASSERT_TRUE(report["quality"].contains(key)) << key;
    EXPECT_GE(report["quality"][key].get<double>(), 0.0) << key;
  }
  // Every stage, the set-up before the first included, and a total that adds them all.
  double stages = 0.0;
  for (const char* stage : {"setup", "pihat", "sampling", "projection", "solve", "evaluation"}) {
    ASSERT_TRUE(report["seconds"].contains(stage)) << stage;
    EXPECT_GE(report["seconds"][stage].get<double>(), 0.0) << stage;
    stages += report["seconds"][stage].get<double>();
  }
  EXPECT_GT(report["seconds"]["setup"].get<double>(), 0.0);  // a 10000-row model takes time
  EXPECT_DOUBLE_EQ(report["seconds"]["total"].get<double>(), stages);

  const CommandResult evaluated =
      run("evaluate" + common + " --coreset " + path("c.csv") + " --report " + path("eval.json"));
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.err;
  const auto again = nlohmann::json::parse(slurp(path("eval.json")));
  for (const char* key : {"relative_projection_error", "forward_kl", "reverse_kl"}) {
    EXPECT_NEAR(again["quality"][key].get<double>(), report["quality"][key].get<double>(),
                1e-9 * (1 + report["quality"][key].get<double>()))
        << key;
  }
}

TEST_F(Cli, BuildReadsACsvDatasetWithANamedResponse) {
  std::ofstream csv(path("counts.csv"));
  csv << "hour,count,temp\n";
  for (int i = 0; i < 300; ++i) {
    csv << (i % 24) / 24.0 << "," << (i * 7) % 5 << "," << ((i * 13) % 10) / 10.0 << "\n";
  }
  csv.close();
  const CommandResult r =
      run("build --data " + path("counts.csv") +
          " --model poisson --response count -k 15 --samples 80 --out " + path("c.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("poisson model"), std::string::npos) << r.out;
  for (const index_t row : io::read_coreset_csv(path("c.csv")).indices) {
    EXPECT_LT(row, 300);
  }
}

TEST_F(Cli, SolveAcceptsTheUsersOwnLogLikelihoods) {
  // 30 datapoints at 8 draws, written n x S.
  std::ofstream csv(path("loglik.csv"));
  for (int i = 0; i < 30; ++i) {
    for (int j = 0; j < 8; ++j) {
      csv << (j ? "," : "") << -0.5 * ((i % 7) - j) * ((i % 7) - j) / 8.0;
    }
    csv << "\n";
  }
  csv.close();
  const CommandResult r =
      run("solve --loglik " + path("loglik.csv") + " -k 5 --report " + path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(path("r.json")));
  EXPECT_EQ(report["input"]["rows"], 8);   // S
  EXPECT_EQ(report["input"]["cols"], 30);  // n
  const CommandResult both =
      run("solve --loglik " + path("loglik.csv") + " --phi " + path("loglik.csv") + " -k 5");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("exactly one of --phi"), std::string::npos) << both.err;
}

struct BadBuild {
  std::string name;
  std::string file_contents;  // written to bad.csv
  std::string arguments;      // appended to "build --data bad.csv"
  int exit_code;
  std::string message;
};

TEST_F(Cli, BuildRunsSparseViWithItsOptions) {
  const std::string common = " --model logistic --samples 100 -k 3 --algorithm sparsevi";
  const CommandResult built =
      run("build" + common +
          " --sparsevi-steps 10 --sparsevi-samples 20 --sparsevi-learning-rate 0.25 --out " +
          path("c.csv") + " --report " + path("build.json"));
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("sparsevi"), std::string::npos) << built.out;
  const Coreset coreset = io::read_coreset_csv(path("c.csv"));
  EXPECT_GE(coreset.size(), 1);
  EXPECT_LE(coreset.size(), 3);
  const auto report = nlohmann::json::parse(slurp(path("build.json")));
  EXPECT_EQ(report["algorithm"], "sparsevi");
  EXPECT_EQ(report["iterations"], 3);
  EXPECT_EQ(report["stop_reason"], "budget");
  // The SparseVI settings in effect are recorded: those given, and the model's default rate.
  ASSERT_TRUE(report.contains("sparsevi")) << report.dump(2);
  EXPECT_EQ(report["sparsevi"]["steps"], 10);
  EXPECT_EQ(report["sparsevi"]["samples"], 20);
  EXPECT_DOUBLE_EQ(report["sparsevi"]["learning_rate"].get<double>(), 0.25);
  EXPECT_EQ(report["sparsevi"]["optimizer"], "adam");
  const CommandResult defaults =
      run("build --model logistic --samples 100 -k 1 --algorithm sparsevi --sparsevi-optimizer "
          "sgd --report " +
          path("defaults.json"));
  ASSERT_EQ(defaults.exit_code, 0) << defaults.err;
  const auto defaulted = nlohmann::json::parse(slurp(path("defaults.json")));
  EXPECT_EQ(defaulted["sparsevi"]["steps"], 500);  // logistic: [SVI] sec. 5.3
  EXPECT_EQ(defaulted["sparsevi"]["steps_requested"], 0);
  EXPECT_DOUBLE_EQ(defaulted["sparsevi"]["learning_rate"].get<double>(), 0.5);
  EXPECT_EQ(defaulted["sparsevi"]["samples"], 100);
  EXPECT_EQ(defaulted["sparsevi"]["optimizer"], "sgd");
  const CommandResult other =
      run("build --model logistic --samples 100 -k 3 --report " + path("aiht.json"));
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_FALSE(nlohmann::json::parse(slurp(path("aiht.json"))).contains("sparsevi"));

  const CommandResult help = run("build --help");
  for (const char* flag : {"--sparsevi-steps", "--sparsevi-learning-rate", "--sparsevi-samples",
                           "--sparsevi-optimizer"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
  const CommandResult bad = run("build" + common + " --sparsevi-samples 1");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("samples must be at least 2"), std::string::npos) << bad.err;
  const CommandResult unknown = run("build" + common + " --sparsevi-optimizer rmsprop");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
}

TEST_F(Cli, BadDatasetsFailWithFileLineColumnAndNoOutput) {
  const std::string ok_rows = "x1,x2,y\n0.1,0.2,1\n0.3,0.4,-1\n0.5,0.6,1\n";
  { std::ofstream(path("wide_draws.csv")) << "1,2,3,4\n5,6,7,8\n"; }
  const BadBuild cases[] = {
      {"ragged row", "x1,x2,y\n0.1,0.2,1\n0.3,1\n", " --model logistic -k 1", 3, "bad.csv:3"},
      {"non-numeric cell", "x1,x2,y\n0.1,abc,1\n", " --model logistic -k 1", 3, "bad.csv:2:2"},
      {"NaN", "x1,x2,y\n0.1,nan,1\n", " --model logistic -k 1", 3, "bad.csv:2:2"},
      {"Inf", "x1,x2,y\ninf,0.1,1\n", " --model logistic -k 1", 3, "bad.csv:2:1"},
      {"label outside domain", "x1,x2,y\n0.1,0.2,1\n0.3,0.4,2\n", " --model logistic -k 1", 3,
       "bad.csv:3:3"},
      {"negative count", "x1,y\n0.1,3\n0.2,-1\n", " --model poisson -k 1", 3, "bad.csv:3:2"},
      {"fractional count", "x1,y\n0.1,3\n0.2,1.5\n", " --model poisson -k 1", 3, "bad.csv:3:2"},
      {"empty file", "", " --model logistic -k 1", 3, "empty"},
      {"fewer rows than k", ok_rows, " --model logistic -k 10", 3, "fewer than k = 10"},
      {"sample file width", ok_rows,
       " --model logistic -k 1 --pihat samples " + path("wide_draws.csv"), 3, "wide_draws.csv"},
      {"exact pi-hat for logistic", ok_rows, " --model logistic -k 1 --pihat exact", 2,
       "closed-form posterior"},
      {"unknown model", ok_rows, " --model probit -k 1", 2, "logistic"},
  };
  for (const BadBuild& c : cases) {
    { std::ofstream(path("bad.csv")) << c.file_contents; }
    const CommandResult r = run("build --data " + path("bad.csv") + c.arguments + " --out " +
                                path("out.csv") + " --report " + path("out.json"));
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("out.csv"))) << c.name;
    EXPECT_FALSE(fs::exists(path("out.json"))) << c.name;
  }
}

TEST_F(Cli, TheCoresetDoesNotDependOnWhetherTheCpuHasAvx2OrAvx512) {
  // The link kernels give identical bits and the column sums are taken outside them, so the same
  // build on either kind of CPU writes the same coreset.
  using support::Isa;
  if (!support::supported(Isa::avx2) || !support::supported(Isa::avx512)) {
    GTEST_SKIP() << "needs a CPU with both AVX2 and AVX-512";
  }
  std::string written[2];
  const char* sets[2] = {"avx2", "avx512"};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(setenv("CORESET_ISA", sets[i], 1), 0);
    const std::string out = path(std::string("coreset_") + sets[i] + ".csv");
    const CommandResult result = run("build --model logistic -k 30 --samples 200 --out " + out);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::ifstream file(out);
    written[i].assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  unsetenv("CORESET_ISA");
  EXPECT_FALSE(written[0].empty());
  EXPECT_EQ(written[0], written[1]);
}

}  // namespace
}  // namespace coreset
