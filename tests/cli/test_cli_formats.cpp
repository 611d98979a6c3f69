// `coreset build --data` in every input format: CSV dialects, LIBSVM by extension or --format,
// and their errors at FILE:LINE:COLUMN with no output left behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset {
namespace {

using test::Cli;
using test::CommandResult;
namespace fs = std::filesystem;

// 200 rows of a logistic problem in two covariates: x1 = sin(i), x2 = cos(3i), y alternating.
std::string rows_as(char delimiter, bool quoted, const std::string& newline) {
  const std::string q = quoted ? "\"" : "";
  std::string text =
      "\xEF\xBB\xBF" + q + "x1" + q + delimiter + q + "x2" + q + delimiter + q + "y" + q + newline;
  for (int i = 0; i < 200; ++i) {
    text += q + std::to_string(std::sin(i)) + q + delimiter + std::to_string(std::cos(3 * i)) +
            delimiter + (i % 3 == 0 ? "-1" : "1") + newline;
  }
  return text + newline;
}

TEST_F(Cli, BuildGivesTheSameCoresetForEveryCsvDialect) {
  const std::string common = " --model logistic -k 10 --samples 60 --seed 1 --out ";
  { std::ofstream(path("plain.csv")) << rows_as(',', false, "\n"); }
  ASSERT_EQ(run("build --data " + path("plain.csv") + common + path("plain_out.csv")).exit_code, 0);
  const Coreset expected = io::read_coreset_csv(path("plain_out.csv"));
  struct Dialect {
    char delimiter;
    bool quoted;
    const char* newline;
    const char* option;
  };
  for (const Dialect& d : {Dialect{';', true, "\r\n", ""}, Dialect{'\t', false, "\r\n", ""},
                           Dialect{',', true, "\n", " --delimiter ,"},
                           Dialect{';', false, "\n", " --delimiter semicolon"},
                           Dialect{'\t', true, "\n", " --delimiter tab"}}) {
    { std::ofstream(path("d.csv"), std::ios::binary) << rows_as(d.delimiter, d.quoted, d.newline); }
    const CommandResult r =
        run("build --data " + path("d.csv") + d.option + common + path("d_out.csv"));
    ASSERT_EQ(r.exit_code, 0) << int(d.delimiter) << d.option << ": " << r.err;
    const Coreset got = io::read_coreset_csv(path("d_out.csv"));
    EXPECT_EQ(got.indices, expected.indices) << int(d.delimiter);
    EXPECT_EQ(got.weights, expected.weights) << int(d.delimiter);
  }
}

TEST_F(Cli, BuildReadsLibsvmByExtensionOrFormat) {
  std::string text = "# a LIBSVM file\n";
  for (int i = 0; i < 200; ++i) {
    text += std::string(i % 3 == 0 ? "0" : "1") + " 1:" + std::to_string(std::sin(i)) +
            (i % 4 == 0 ? "" : " 3:" + std::to_string(std::cos(3 * i))) + "\n";
  }
  { std::ofstream(path("data.svm")) << text; }
  { std::ofstream(path("data.txt")) << text; }
  const std::string common = " --model logistic -k 10 --samples 60 --seed 1 --out ";
  const CommandResult by_extension = run("build --data " + path("data.svm") + common +
                                         path("a.csv") + " --report " + path("a.json"));
  ASSERT_EQ(by_extension.exit_code, 0) << by_extension.err;
  const auto report = nlohmann::json::parse(test::slurp(path("a.json")));
  EXPECT_EQ(report["input"]["rows"], 200);
  EXPECT_EQ(report["parameters"], 4);  // x1, x2 (all zero), x3 and the intercept

  const CommandResult by_format =
      run("build --data " + path("data.txt") + " --format libsvm" + common + path("b.csv"));
  ASSERT_EQ(by_format.exit_code, 0) << by_format.err;
  EXPECT_EQ(io::read_coreset_csv(path("a.csv")).indices,
            io::read_coreset_csv(path("b.csv")).indices);

  const CommandResult wider = run("build --data " + path("data.svm") + " --features 5" + common +
                                  path("c.csv") + " --report " + path("c.json"));
  ASSERT_EQ(wider.exit_code, 0) << wider.err;
  EXPECT_EQ(nlohmann::json::parse(test::slurp(path("c.json")))["parameters"], 6);

  const CommandResult help = run("build --help");
  for (const char* text : {"--format", "--delimiter", "--features", ".svmlight"}) {
    EXPECT_NE(help.out.find(text), std::string::npos) << text;
  }
}

TEST_F(Cli, BadFilesInEveryFormatFailAtFileLineColumn) {
  struct Case {
    const char* name;
    const char* file;
    std::string contents;
    std::string arguments;
    int exit_code;
    std::string message;
  };
  const Case cases[] = {
      {"ambiguous delimiter", "bad.csv", "x1,x2;y\n1,2;1\n", "", 3,
       "bad.csv:1: cannot tell the delimiter: the line holds ',' (1 times) and ';' (1 times)"},
      {"semicolon non-numeric", "bad.csv", "x1;y\n0.5;1\n0.25;\"no\"\n", "", 3,
       "bad.csv:3:2: non-numeric cell 'no'"},
      {"unterminated quote", "bad.csv", "x1,y\r\n\"0.5,1\r\n", "", 3,
       "bad.csv:2:1: unterminated quoted field"},
      {"forced tab on a comma file", "bad.csv", "x1,y\n0.5,1\n", " --delimiter tab", 3,
       "bad.csv:1: the header names 1 column"},
      {"bad delimiter option", "bad.csv", "x1,y\n0.5,1\n", " --delimiter '|'", 2,
       "--delimiter must be"},
      {"libsvm index order", "bad.svm", "1 1:0.5 3:1\n0 3:1 2:1\n", "", 3,
       "bad.svm:2:3: index 2 does not follow the previous index 3"},
      {"libsvm zero index", "bad.svm", "1 0:0.5\n", "", 3, "bad.svm:1:2: index 0"},
      {"libsvm bad number", "bad.libsvm", "1 1:0.5\n0 1:x\n", "", 3,
       "bad.libsvm:2:2: non-numeric cell 'x'"},
      {"libsvm label outside domain", "bad.svm", "1 1:0.5\n2 1:0.25\n", "", 3, "bad.svm:2:1"},
      {"libsvm with a response name", "bad.svm", "1 1:0.5\n0 1:0.25\n", " --response y", 2,
       "CSV only"},
  };
  for (const Case& c : cases) {
    { std::ofstream(path(c.file), std::ios::binary) << c.contents; }
    const CommandResult r =
        run("build --data " + path(c.file) + " --model logistic -k 1" + c.arguments + " --out " +
            path("out.csv") + " --report " + path("out.json"));
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("out.csv"))) << c.name;
    EXPECT_FALSE(fs::exists(path("out.json"))) << c.name;
    fs::remove(path(c.file));
  }
}

TEST_F(Cli, NpyDatasetGivesTheCoresetOfTheSameNumbersAsCsv) {
  // Random covariates written as CSV with 17 digits and as .npy: byte-identical coresets.
  const int rows = 300;
  std::mt19937_64 random(11);
  std::normal_distribution<double> normal;
  std::vector<double> table(rows * 3);  // row-major: x1, x2, y
  std::string csv = "a,b,label\n";
  char cell[40];
  for (int i = 0; i < rows; ++i) {
    table[i * 3] = normal(random);
    table[i * 3 + 1] = normal(random) * 1e-3;
    table[i * 3 + 2] = table[i * 3] + normal(random) > 0 ? 1.0 : 0.0;
    for (int j = 0; j < 3; ++j) {
      std::snprintf(cell, sizeof cell, "%.17g", table[i * 3 + j]);
      csv += std::string(cell) + (j == 2 ? "\n" : ",");
    }
  }
  { std::ofstream(path("d.csv")) << csv; }
  io::write_npy(path("d.npy"), table.data(), {rows, 3}, false);
  // The label first, in Fortran order: --response 0.
  std::vector<double> fortran(rows * 3);
  for (int i = 0; i < rows; ++i) {
    fortran[i] = table[i * 3 + 2];
    fortran[rows + i] = table[i * 3];
    fortran[2 * rows + i] = table[i * 3 + 1];
  }
  io::write_npy(path("first.NPY"), fortran.data(), {rows, 3}, true);
  const std::string common = " --model logistic -k 15 --samples 80 --seed 3 --out ";
  const CommandResult from_csv = run("build --data " + path("d.csv") + common + path("a.csv"));
  const CommandResult from_npy = run("build --data " + path("d.npy") + common + path("b.csv"));
  const CommandResult first = run("build --data " + path("first.NPY") + " --response 0" + common +
                                  path("c.csv") + " --threads 2");
  ASSERT_EQ(from_csv.exit_code, 0) << from_csv.err;
  ASSERT_EQ(from_npy.exit_code, 0) << from_npy.err;
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_FALSE(test::slurp(path("a.csv")).empty());
  EXPECT_EQ(test::slurp(path("a.csv")), test::slurp(path("b.csv")));
  EXPECT_EQ(test::slurp(path("a.csv")), test::slurp(path("c.csv")));

  // --format npy forces it; a label outside the domain names the row and column.
  table[7 * 3 + 2] = 2.0;
  io::write_npy(path("bad.dat"), table.data(), {rows, 3}, false);
  const CommandResult bad = run("build --data " + path("bad.dat") + " --format npy" + common +
                                path("bad.csv") + " --report " + path("bad.json"));
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("bad.dat: label 2 is outside the logistic model's domain {-1, 1} or "
                         "{0, 1} at row 7, column 2 (0-based)"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(path("bad.csv")));
  EXPECT_FALSE(fs::exists(path("bad.json")));
  const CommandResult named =
      run("build --data " + path("d.npy") + " --response label" + common + path("n.csv"));
  EXPECT_EQ(named.exit_code, 2) << named.err;
  EXPECT_NE(named.err.find("0-based column index"), std::string::npos) << named.err;

  const CommandResult help = run("build --help");
  for (const char* text : {".npy", "0-based column index", "npy"}) {
    EXPECT_NE(help.out.find(text), std::string::npos) << text;
  }
}

TEST_F(Cli, NpyAndSemicolonCsvAreAcceptedWhereMatricesAreRead) {
  // The same 30 x 8 log-likelihoods as .npy and as semicolon CSV give the same coreset.
  std::vector<double> values(30 * 8);
  std::string csv;
  for (int i = 0; i < 30; ++i) {
    for (int j = 0; j < 8; ++j) {
      const double value = -0.5 * ((i % 7) - j) * ((i % 7) - j) / 8.0;
      values[static_cast<std::size_t>(i * 8 + j)] = value;
      csv += (j ? ";" : "") + std::to_string(value);
    }
    csv += "\r\n";
  }
  { std::ofstream(path("loglik.csv")) << csv; }
  io::write_npy(path("loglik.npy"), values.data(), {30, 8}, false);
  const CommandResult a =
      run("solve --loglik " + path("loglik.csv") + " -k 5 --out " + path("a.csv"));
  const CommandResult b =
      run("solve --loglik " + path("loglik.npy") + " -k 5 --out " + path("b.csv"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(io::read_coreset_csv(path("a.csv")).indices,
            io::read_coreset_csv(path("b.csv")).indices);
}

}  // namespace
}  // namespace coreset
