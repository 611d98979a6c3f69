// `coreset sweep`, `coreset build -k auto` and the pictures (issue 19): the files they write,
// what the picture holds, and the exact exit codes of bad input.
#include <fstream>
#include <string>
#include <vector>

#include "coreset/dataset.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset::test {
namespace {

// A small logistic dataset as CSV (x1,x2,y): the built-in data's first `rows` rows.
std::string write_small_logistic(const std::string& file, index_t rows) {
  const Dataset data = synthetic_logistic_dataset(rows, 0);
  std::ofstream out(file);
  out << "x1,x2,y\n";
  for (index_t i = 0; i < rows; ++i) {
    out << data.covariates(i, 0) << "," << data.covariates(i, 1) << ","
        << data.response[static_cast<std::size_t>(i)] << "\n";
  }
  return file;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST_F(Cli, SweepWritesTheTableOneCoresetPerKTheReportAndAPicture) {
  const std::string data = write_small_logistic(path("small.csv"), 400);
  const CommandResult r =
      run("sweep --data " + data + " --model logistic -k 40,5,10,20 --samples 100 --out " +
          path("sw") + " --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = slurp(path("sw/sweep.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "k,support,relative_error,forward_kl,reverse_kl,symmetric_kl,map_distance,seconds");
  EXPECT_EQ(count(csv, "\n"), 5u);              // header and four budgets
  EXPECT_EQ(csv.find("\n5,"), csv.find('\n'));  // ascending: 5 first
  for (const char* k : {"5", "10", "20", "40"}) {
    const Coreset coreset = io::read_coreset_csv(path(std::string("sw/coreset_k") + k + ".csv"));
    EXPECT_LE(coreset.size(), std::stol(k));
    EXPECT_GT(coreset.size(), 0);
  }
  const std::string report = slurp(path("sw/report.json"));
  EXPECT_NE(report.find("\"command\": \"sweep\""), std::string::npos);
  EXPECT_NE(report.find("\"warm_start_from\": 20"), std::string::npos);  // k = 40's start
  const std::string svg = slurp(path("sw/sweep.svg"));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("logistic model, a-iht-2"), std::string::npos);  // the title
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);              // k spans 5..40
  EXPECT_EQ(count(svg, "<path d="), 4u);           // error and three KLs, one line each
  EXPECT_EQ(count(svg, "<circle"), 4u * 4u + 4u);  // 4 points per line, 4 legend markers
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST_F(Cli, SweepBadInputHasExactExitCodesAndWritesNothing) {
  const std::string data = write_small_logistic(path("small.csv"), 100);
  const std::string base =
      "sweep --data " + data + " --model logistic --device cpu --out " + path("sw") + " ";
  for (const char* k : {"-k 10,abc", "-k 0,10", "-k 10,-5", "-k ''"}) {
    const CommandResult r = run(base + k);
    EXPECT_EQ(r.exit_code, 2) << k << ": " << r.err;
    EXPECT_NE(r.err.find("-k"), std::string::npos) << r.err;
  }
  const CommandResult too_big = run(base + "-k 10,101");
  EXPECT_EQ(too_big.exit_code, 3) << too_big.err;
  EXPECT_NE(too_big.err.find("k = 101"), std::string::npos) << too_big.err;
  const CommandResult missing = run("sweep --data " + data + " --model logistic --out x");
  EXPECT_EQ(missing.exit_code, 2);  // -k is required
  EXPECT_FALSE(fs::exists(path("sw")));
}

// A rerun with other budgets into the same folder would leave the first run's coresets beside
// its results: refused before any work, and nothing of the first run removed.
TEST_F(Cli, SweepRefusesAFolderHoldingAnotherSweepsCoresets) {
  const std::string data = write_small_logistic(path("small.csv"), 100);
  const std::string base =
      "sweep --data " + data + " --model logistic --samples 50 --device cpu --out " + path("sw");
  ASSERT_EQ(run(base + " -k 5,10").exit_code, 0);
  const std::string first = slurp(path("sw/sweep.csv"));
  const CommandResult fewer = run(base + " -k 5");
  EXPECT_EQ(fewer.exit_code, 2) << fewer.err;
  EXPECT_NE(fewer.err.find("holds coreset_k10.csv of another sweep"), std::string::npos)
      << fewer.err;
  EXPECT_EQ(slurp(path("sw/sweep.csv")), first);
  EXPECT_TRUE(fs::exists(path("sw/coreset_k10.csv")));
  EXPECT_EQ(run(base + " -k 10,5").exit_code, 0);  // the same budgets: rewritten in place
  // An output over the input: the dataset named sweep.csv inside the folder.
  fs::copy_file(data, path("sw/sweep.csv"), fs::copy_options::overwrite_existing);
  const CommandResult over =
      run("sweep --data " + path("sw/sweep.csv") +
          " --model logistic --samples 50 --device cpu -k 5,10 --out " + path("sw"));
  EXPECT_EQ(over.exit_code, 2) << over.err;
  EXPECT_NE(over.err.find("would overwrite the input --data"), std::string::npos) << over.err;
}

// --seed is unsigned: "-1" used to wrap to 2^64 - 1 and run.
TEST_F(Cli, ANegativeSeedIsAUsageError) {
  const CommandResult r = run("build --model logistic -k 5 --samples 50 --seed -1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("expected a seed from 0 to 2^64 - 1, got -1"), std::string::npos) << r.err;
}

// --pihat samples FILE as two words or as one quoted argument: the same coreset.
TEST_F(Cli, PihatSamplesTakesItsFileAsOneArgumentOrTwo) {
  std::ofstream(path("draws.csv")) << "0.1,0.2,0.3\n0.2,0.1,0.0\n0.0,0.3,-0.1\n0.3,0.0,0.1\n";
  const std::string base = "build --model logistic -k 5 --samples 4 --device cpu ";
  const CommandResult two =
      run(base + "--pihat samples " + path("draws.csv") + " --out " + path("two.csv"));
  const CommandResult one =
      run(base + "--pihat 'samples " + path("draws.csv") + "' --out " + path("one.csv"));
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(slurp(path("one.csv")), slurp(path("two.csv")));
  const CommandResult none = run(base + "--pihat samples");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("--pihat samples needs a file"), std::string::npos) << none.err;
}

TEST_F(Cli, BuildKAutoFindsTheSmallestKAndReportsTheBudgetsTried) {
  const std::string data = write_small_logistic(path("small.csv"), 400);
  const CommandResult r =
      run("build --data " + data + " --model logistic -k auto --target-kl 0.05 --samples 100 " +
          "--device cpu --out " + path("c.csv") + " --report " + path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("coreset: -k auto: k = 1: symmetrised KL"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("k auto:"), std::string::npos) << r.out;
  const std::string report = slurp(path("r.json"));
  EXPECT_NE(report.find("\"choose_k\""), std::string::npos);
  EXPECT_NE(report.find("\"metric\": \"symmetric_kl\""), std::string::npos);
  EXPECT_NE(report.find("\"reached\": true"), std::string::npos);
  EXPECT_TRUE(fs::exists(path("c.csv")));
}

TEST_F(Cli, BuildKAutoBadInputHasExactExitCodes) {
  const std::string data = write_small_logistic(path("small.csv"), 60);
  const std::string base = "build --data " + data + " --model logistic --device cpu --samples 50 ";
  const auto expect_code = [&](const std::string& arguments, int code, const std::string& names) {
    const CommandResult r = run(base + arguments + " --out " + path("c.csv"));
    EXPECT_EQ(r.exit_code, code) << arguments << ": " << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << arguments << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("c.csv"))) << arguments;
  };
  expect_code("-k auto", 2, "-k auto needs a target");
  expect_code("-k auto --target-kl 0.1 --target-error 0.1", 2, "--target-kl and --target-error");
  expect_code("-k 10 --target-kl 0.1", 2, "--target-kl needs -k auto");
  expect_code("-k auto --target-error 0", 2, "--target-error must be");
  expect_code("-k ten", 2, "-k: 'ten' is not a budget");
  // uniform subsampling never matches the full posterior to 1e-12, even at k = n.
  expect_code("-k auto --target-kl 1e-12 --algorithm uniform", 8, "the best reached was");
}

TEST_F(Cli, ExperimentDrawsOnePicturePerDatasetBesideResults) {
  const CommandResult r =
      run("experiment gaussian --trials 2 --k 1,5,20 --algorithms a-iht-2,uniform --out " +
          path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = slurp(path("exp/synthetic_gaussian.svg"));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("a-iht-2"), std::string::npos);
  EXPECT_NE(svg.find("uniform"), std::string::npos);
  EXPECT_EQ(count(svg, "<polygon"), 2u);  // each algorithm's percentile band
}

}  // namespace
}  // namespace coreset::test
