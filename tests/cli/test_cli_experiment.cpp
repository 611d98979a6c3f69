// `coreset experiment` end to end: the tidy results table, its properties, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "coreset/dataset.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
using test::slurp;
namespace fs = std::filesystem;

constexpr const char* kHeader =
    "experiment,dataset,algorithm,k,trial,forward_kl,reverse_kl,symmetric_kl,map_distance,"
    "objective,relative_error,support,seconds";

struct Row {
  std::string experiment;
  std::string dataset;
  std::string algorithm;
  long k = 0;
  long trial = 0;
  double forward_kl = 0;
  double reverse_kl = 0;
  double symmetric_kl = 0;
  double map_distance = 0;
  double objective = 0;
  double relative_error = 0;
  long support = 0;
  double seconds = 0;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) {
    fields.push_back(field);
  }
  return fields;
}

// Reads results.csv, checking the header and the field count of every line.
std::vector<Row> read_results(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  EXPECT_TRUE(std::getline(in, line)) << path;
  EXPECT_EQ(line, kHeader);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line);
    EXPECT_EQ(f.size(), 13u) << line;
    if (f.size() != 13) {
      continue;
    }
    rows.push_back({f[0], f[1], f[2], std::stol(f[3]), std::stol(f[4]), std::stod(f[5]),
                    std::stod(f[6]), std::stod(f[7]), std::stod(f[8]), std::stod(f[9]),
                    std::stod(f[10]), std::stol(f[11]), std::stod(f[12])});
  }
  return rows;
}

void expect_sane(const Row& row) {
  SCOPED_TRACE(row.dataset + " " + row.algorithm + " k=" + std::to_string(row.k));
  for (const double value : {row.forward_kl, row.reverse_kl, row.symmetric_kl, row.map_distance,
                             row.objective, row.relative_error, row.seconds}) {
    EXPECT_TRUE(std::isfinite(value));
    EXPECT_GE(value, 0.0);
  }
  EXPECT_NEAR(row.symmetric_kl, row.forward_kl + row.reverse_kl, 1e-9 * (1 + row.symmetric_kl));
  EXPECT_GE(row.support, 1);
  EXPECT_LE(row.support, row.k);
}

double median_forward_kl(const std::vector<Row>& rows, const std::string& algorithm, long k) {
  std::vector<double> values;
  for (const Row& row : rows) {
    if (row.algorithm == algorithm && row.k == k) {
      values.push_back(row.forward_kl);
    }
  }
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  return m == 0 ? NAN : m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}

std::string shared_data_dir() {
  const char* override_dir = std::getenv("CORESET_SHARED_DATA");
  return override_dir ? override_dir : CORESET_SHARED_DATA_DIR;
}

TEST_F(Cli, ExperimentGaussianWritesATidyTableThatImprovesWithK) {
  const CommandResult r = run(
      "experiment gaussian --trials 2 --k 1,5,20 --algorithms a-iht-2,iht --out " + path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("median forward KL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k=20"), std::string::npos) << r.out;
  const std::vector<Row> rows = read_results(path("exp/results.csv"));
  ASSERT_EQ(rows.size(), 2u * 3u * 2u);  // algorithms x k x trials
  std::set<std::string> algorithms;
  std::set<long> trials;
  for (const Row& row : rows) {
    EXPECT_EQ(row.experiment, "gaussian");
    EXPECT_EQ(row.dataset, "synthetic_gaussian");
    algorithms.insert(row.algorithm);
    trials.insert(row.trial);
    expect_sane(row);
  }
  EXPECT_EQ(algorithms, (std::set<std::string>{"a-iht-2", "iht"}));
  EXPECT_EQ(trials, (std::set<long>{0, 1}));
  for (const char* algorithm : {"a-iht-2", "iht"}) {
    // Seen: about 600 at k = 1, 330-380 at k = 20; a pipeline that scored the wrong coreset,
    // or solved the wrong Phi, would not fall.
    EXPECT_LT(median_forward_kl(rows, algorithm, 20), 0.8 * median_forward_kl(rows, algorithm, 1))
        << algorithm;
  }
}

TEST_F(Cli, ExperimentIsReproducibleAndSkipsRunsTheLibraryRefuses) {
  const std::string common = "experiment gaussian --trials 1 --algorithms a-iht-2 --samples 100";
  const CommandResult first = run(common + " --k 5,700 --out " + path("a"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // k = 700 exceeds the 600 rows: reported and left out, not fatal.
  EXPECT_NE(first.err.find("skipped synthetic_gaussian a-iht-2 k=700 trial 0"), std::string::npos)
      << first.err;
  EXPECT_NE(first.out.find("1 run(s) failed"), std::string::npos) << first.out;
  const std::vector<Row> rows = read_results(path("a/results.csv"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].k, 5);

  const CommandResult second = run(common + " --k 5 --threads 1 --out " + path("b"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::vector<Row> again = read_results(path("b/results.csv"));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].forward_kl, rows[0].forward_kl);  // same seed, any thread count
  EXPECT_EQ(again[0].objective, rows[0].objective);
}

TEST_F(Cli, ExperimentLogisticOnThePapersDatasets) {
  const std::string data_dir = shared_data_dir();
  if (!fs::exists(fs::path(data_dir) / "phishing.csv")) {
    GTEST_SKIP() << data_dir << " is absent";
  }
  const CommandResult r = run("experiment logistic --trials 1 --k 5,30 --algorithms a-iht-2 " +
                              std::string("--data-dir ") + data_dir + " --out " + path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<Row> rows = read_results(path("exp/results.csv"));
  ASSERT_EQ(rows.size(), 3u * 2u);  // datasets x k
  std::set<std::string> datasets;
  for (const Row& row : rows) {
    EXPECT_EQ(row.experiment, "logistic");
    datasets.insert(row.dataset);
    expect_sane(row);
  }
  EXPECT_EQ(datasets, (std::set<std::string>{"ds1", "phishing", "synth_lr"}));
}

TEST_F(Cli, ExperimentUnknownNameIsAUsageErrorAndCreatesNothing) {
  const CommandResult unknown = run("experiment nonsense --out " + path("exp"));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown experiment 'nonsense' (expected one of: gaussian, logistic, "
                             "poisson, rbf, large)"),
            std::string::npos)
      << unknown.err;
  EXPECT_FALSE(fs::exists(path("exp")));
  const CommandResult bad_k = run("experiment gaussian --k 0,5 --out " + path("exp"));
  EXPECT_EQ(bad_k.exit_code, 2) << bad_k.err;
  const CommandResult bad_algorithm =
      run("experiment gaussian --algorithms a-iht-2,nope --out " + path("exp"));
  EXPECT_EQ(bad_algorithm.exit_code, 2) << bad_algorithm.err;
  EXPECT_FALSE(fs::exists(path("exp")));
}

// The RBF regression of spec 3.5 on the synthetic stand-in for the UK house prices: a finite KL
// that falls from the smallest to the largest budget, and the output says the data are a
// stand-in.
TEST_F(Cli, ExperimentRbfOnTheStandInDataHasFiniteKlThatFallsWithK) {
  const CommandResult r =
      run("experiment rbf --trials 2 --k 5,300 --algorithms a-iht-2,uniform --samples 200 --out " +
          path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SYNTHETIC STAND-IN for the UK house-price data (not available)"),
            std::string::npos)
      << r.out;
  const std::vector<Row> rows = read_results(path("exp/results.csv"));
  ASSERT_EQ(rows.size(), 2u * 2u * 2u);  // algorithms x k x trials
  for (const Row& row : rows) {
    EXPECT_EQ(row.experiment, "rbf");
    EXPECT_EQ(row.dataset, "uk_houses_standin");
    expect_sane(row);
  }
  for (const char* algorithm : {"a-iht-2", "uniform"}) {
    EXPECT_LT(median_forward_kl(rows, algorithm, 300), median_forward_kl(rows, algorithm, 5))
        << algorithm;
  }
}

// The large-scale experiment on the papers' large files (skipped without them): every dataset
// and budget, a finite symmetrised KL and a time per run, and the summary of spec 5.1.
TEST_F(Cli, ExperimentLargeOnThePapersLargeFiles) {
  const std::string data_dir = shared_data_dir();
  if (!fs::exists(fs::path(data_dir) / "biketrips_large.csv")) {
    GTEST_SKIP() << data_dir << " is absent";
  }
  const CommandResult r = run(
      "experiment large --trials 1 --k 5,20 --algorithms a-iht-2,giga --samples 50 --data-dir " +
      data_dir + " --out " + path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("median symmetrised KL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median construction time"), std::string::npos) << r.out;
  const std::vector<Row> rows = read_results(path("exp/results.csv"));
  ASSERT_EQ(rows.size(), 4u * 2u * 2u);  // datasets x algorithms x k
  std::set<std::string> datasets;
  for (const Row& row : rows) {
    EXPECT_EQ(row.experiment, "large");
    datasets.insert(row.dataset);
    expect_sane(row);
  }
  EXPECT_EQ(datasets, (std::set<std::string>{"airportdelays_large", "biketrips_large",
                                             "synth_lr_large", "synth_poiss_large"}));
}

TEST_F(Cli, ExperimentLargeWithoutTheDataFolderIsAnInputError) {
  const CommandResult r =
      run("experiment large --trials 1 --data-dir " + path("nowhere") + " --out " + path("exp"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(path("nowhere")), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("exp/results.csv")));
}

TEST_F(Cli, ExperimentWithMissingDataIsAnInputErrorAndWritesNoResults) {
  const CommandResult no_dir =
      run("experiment poisson --data-dir " + path("nowhere") + " --out " + path("exp"));
  EXPECT_EQ(no_dir.exit_code, 3);
  EXPECT_NE(no_dir.err.find(path("nowhere")), std::string::npos) << no_dir.err;
  EXPECT_FALSE(fs::exists(path("exp/results.csv")));

  // A folder holding only the first dataset: the second is named in the error.
  fs::create_directories(path("partial"));
  std::ofstream csv(path("partial/synth_poiss.csv"));
  csv << "x1,y\n";
  for (int i = 0; i < 50; ++i) {
    csv << (i % 7) / 7.0 << "," << i % 4 << "\n";
  }
  csv.close();
  const CommandResult partial =
      run("experiment poisson --data-dir " + path("partial") + " --out " + path("exp"));
  EXPECT_EQ(partial.exit_code, 3);
  EXPECT_NE(partial.err.find("biketrips.csv"), std::string::npos) << partial.err;
  EXPECT_FALSE(fs::exists(path("exp/results.csv")));
}

}  // namespace
// A run the library refuses is skipped; when every run of the experiment is, there is nothing
// to write: an error, no folder. (It once drew an empty picture on a log axis from 0, which
// never ended: "out of memory".)
TEST_F(Cli, AnExperimentWhoseRunsAreAllSkippedIsAnErrorAndWritesNothing) {
  const CommandResult r =
      run("experiment gaussian --trials 1 --k 700 --algorithms a-iht-2 "
          "--samples 20 --out " +
          path("exp"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("skipped synthetic_gaussian a-iht-2 k=700"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("all 1 runs were skipped"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("exp")));
}

// A dataset whose runs are all skipped (8 rows, k = 10) still gets its picture, empty, beside
// the others' results.
TEST_F(Cli, ADatasetWhoseRunsAreAllSkippedGetsAnEmptyPicture) {
  const Dataset data = synthetic_logistic_dataset(100, 0);
  fs::create_directories(path("data"));
  for (const auto& [name, rows] :
       {std::pair<const char*, index_t>{"synth_lr", 100}, {"phishing", 100}, {"ds1", 8}}) {
    std::ofstream out(path(std::string("data/") + name + ".csv"));
    out << "x1,x2,y\n";
    for (index_t i = 0; i < rows; ++i) {
      out << data.covariates(i, 0) << "," << data.covariates(i, 1) << ","
          << data.response[static_cast<std::size_t>(i)] << "\n";
    }
  }
  const CommandResult r =
      run("experiment logistic --trials 1 --k 10 --algorithms a-iht-2 "
          "--samples 50 --data-dir " +
          path("data") + " --out " + path("exp"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped ds1 a-iht-2 k=10"), std::string::npos) << r.err;
  std::set<std::string> datasets;
  for (const Row& row : read_results(path("exp/results.csv"))) {
    datasets.insert(row.dataset);
  }
  EXPECT_EQ(datasets, (std::set<std::string>{"phishing", "synth_lr"}));
  const std::string empty = slurp(path("exp/ds1.svg"));
  EXPECT_NE(empty.find("</svg>"), std::string::npos);
  EXPECT_EQ(empty.find("<path d="), std::string::npos);  // no line drawn
  EXPECT_NE(slurp(path("exp/synth_lr.svg")).find("<path d="), std::string::npos);
}

}  // namespace coreset
