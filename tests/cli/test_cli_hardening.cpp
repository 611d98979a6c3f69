// Hardening of the `coreset` command (issue 6, parts 4 and 5): every malformed input is refused
// with its documented exit code, a message naming the file (and line and column where the format
// has them) and no output file; Ctrl-C and SIGTERM stop a long run with no output and no
// temporary file; the progress line appears on a terminal only; outputs are all or nothing.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coreset/io.hpp"
#include "helpers/cli_fixture.hpp"

namespace coreset {
namespace {

using test::CommandResult;
using test::slurp;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kCorpus = std::string(CORESET_TEST_DATA_DIR) + "/malformed";

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

std::string join(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    text += " " + name;
  }
  return text;
}

// A test's own folder, named without the '/' of parameterised test names.
// In a forked child: becomes `coreset ARGUMENTS...` (exit code 127 if that fails).
[[noreturn]] void exec_coreset(const std::vector<std::string>& arguments) {
  std::string binary = CORESET_BINARY;
  std::vector<std::string> copies = arguments;
  std::vector<char*> argv{binary.data()};
  for (std::string& argument : copies) {
    argv.push_back(argument.data());
  }
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  ::_exit(127);
}

class Hardening : public test::Cli {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) {
      c = c == '/' ? '_' : c;
    }
    dir_ = fs::temp_directory_path() /
           ("coreset_hardening_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  // A logistic dataset big enough for the build to run for many seconds at S = 1000 without a
  // tolerance (the exact values do not matter).
  std::string write_big_dataset() const {
    const std::string file = path("big.csv");
    std::ofstream out(file);
    out << "x1,x2,x3,x4,x5,x6,x7,x8,y\n";
    unsigned state = 12345;
    for (int i = 0; i < 20000; ++i) {
      double sum = 0.0;
      for (int c = 0; c < 8; ++c) {
        state = state * 1103515245u + 12345u;
        const double x = static_cast<double>((state >> 8) % 2000) / 1000.0 - 1.0;
        sum += x;
        out << x << ',';
      }
      out << (sum > 0 ? 1 : 0) << '\n';
    }
    return file;
  }

  // Starts the command with stdout and stderr in files, sends `signal` after `delay`, and waits
  // (at most two minutes) for it to end.
  CommandResult run_and_signal(const std::vector<std::string>& arguments, int signal,
                               std::chrono::milliseconds delay) const {
    const std::string out = path("stdout.txt");
    const std::string err = path("stderr.txt");
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(err_fd, STDERR_FILENO);
      exec_coreset(arguments);
    }
    std::this_thread::sleep_for(delay);
    const auto sent = Clock::now();
    ::kill(pid, signal);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (Clock::now() - sent > std::chrono::minutes(2)) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ADD_FAILURE() << "the command did not stop within two minutes of the signal";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return test::collect_result(status, out, err);
  }

  // Runs the command on a pseudo-terminal (stdout and stderr both), returning all it printed.
  std::string run_on_terminal(const std::vector<std::string>& arguments, int& exit_code) const {
    int master = -1;
    winsize size{};
    size.ws_col = 120;
    size.ws_row = 40;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
    if (pid < 0) {
      ADD_FAILURE() << "forkpty failed: " << std::strerror(errno);
      return {};
    }
    if (pid == 0) {
      exec_coreset(arguments);
    }
    std::string text;
    char buffer[4096];
    for (;;) {
      const ssize_t got = ::read(master, buffer, sizeof buffer);
      if (got > 0) {
        text.append(buffer, static_cast<std::size_t>(got));
      } else if (got < 0 && errno == EINTR) {
        continue;
      } else {
        break;  // EIO once the child has closed the terminal
      }
    }
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return text;
  }
};

// ---------------------------------------------------------------------------------------------
// The malformed-input corpus (tests/data/malformed, plus the large cases generated here).

struct MalformedCase {
  const char* name;
  const char* command;   // {M}: the corpus folder, {D}: the test's folder (holds the outputs)
  const char* file;      // the file the message must name (relative to {M} or {D})
  const char* location;  // ":LINE:COLUMN: " or ":LINE: " the message must show, or ": "
  int exit_code;
  std::function<void(const fs::path&)> generate;  // writes the large inputs into {D}
};

std::string expand(std::string text, const std::string& corpus, const std::string& dir) {
  for (std::size_t at; (at = text.find("{M}")) != std::string::npos;) {
    text.replace(at, 3, corpus);
  }
  for (std::size_t at; (at = text.find("{D}")) != std::string::npos;) {
    text.replace(at, 3, dir);
  }
  return text;
}

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

const char* const kBuild = "build --model logistic -k 2 --out {D}/out.csv --report {D}/report.json";
const char* const kSolve = "solve -k 1 --out {D}/out.csv --report {D}/report.json";
const char* const kEvaluate =
    "evaluate --model logistic --data {M}/good.csv --report {D}/report.json --coreset";

std::vector<MalformedCase> malformed_cases() {
  const auto build = [](const char* data) { return std::string(kBuild) + " --data " + data; };
  const auto solve = [](const char* option, const char* file) {
    return std::string(kSolve) + " " + option + " " + file;
  };
  const auto evaluate = [](const char* file) { return std::string(kEvaluate) + " " + file; };
  // std::string keeps the command texts alive for the table below.
  static std::vector<std::string> texts;
  const auto keep = [](std::string text) {
    texts.push_back(std::move(text));
    return texts.back().c_str();
  };
  texts.reserve(64);
  return {
      // Datasets (build --data): CSV with a header row.
      {"empty_csv", keep(build("{M}/empty.csv")), "empty.csv", ": ", 3, {}},
      {"header_only_csv", keep(build("{M}/header_only.csv")), "header_only.csv", ": ", 3, {}},
      {"ragged_csv", keep(build("{M}/ragged.csv")), "ragged.csv", ":3:3: ", 3, {}},
      {"non_numeric_cell", keep(build("{M}/non_numeric.csv")), "non_numeric.csv", ":3:2: ", 3, {}},
      {"empty_cell", keep(build("{M}/empty_cell.csv")), "empty_cell.csv", ":2:2: ", 3, {}},
      {"nan_cell", keep(build("{M}/nan_cell.csv")), "nan_cell.csv", ":3:2: ", 3, {}},
      {"inf_cell", keep(build("{M}/inf_cell.csv")), "inf_cell.csv", ":4:1: ", 3, {}},
      {"duplicate_header",
       keep(build("{M}/duplicate_header.csv")),
       "duplicate_header.csv",
       ":1:2: ",
       3,
       {}},
      {"label_out_of_domain",
       keep(build("{M}/label_out_of_domain.csv")),
       "label_out_of_domain.csv",
       ":3:3: ",
       3,
       {}},
      {"negative_count",
       keep("build --model poisson -k 2 --out {D}/out.csv --report {D}/report.json --data "
            "{M}/negative_count.csv"),
       "negative_count.csv",
       ":3:3: ",
       3,
       {}},
      {"binary_garbage_dataset",
       keep(build("{M}/binary_garbage.csv")),
       "binary_garbage.csv",
       ":1: ",
       3,
       {}},
      {"nul_bytes", keep(build("{M}/nul_bytes.csv")), "nul_bytes.csv", ":2:2: ", 3, {}},
      {"directory_as_dataset", keep(build("{M}")), "malformed", ": ", 3, {}},
      {"missing_dataset", keep(build("{M}/no_such_file.csv")), "no_such_file.csv", ": ", 3, {}},
      {"overlong_cell", keep(build("{D}/overlong_cell.csv")), "overlong_cell.csv", ":2:1: ", 3,
       [](const fs::path& dir) {  // a 10 MB number
         write_text(dir / "overlong_cell.csv",
                    "x1,x2,y\n" + std::string(10'000'000, '7') + ",1,0\n");
       }},
      {"overlong_ragged_line", keep(build("{D}/overlong_line.csv")), "overlong_line.csv", ":3:", 3,
       [](const fs::path& dir) {  // a 10 MB line of 5 million fields under a 3-column header
         std::string line;
         line.reserve(10'000'000);
         for (int i = 0; i < 5'000'000; ++i) {
           line += i == 0 ? "1" : ",1";
         }
         write_text(dir / "overlong_line.csv", "x1,x2,y\n0,0,1\n" + line + "\n");
       }},
      {"prior_covariance_not_square",
       keep(std::string(kBuild) + " --data {M}/good.csv --prior-covariance {M}/not_square.csv"),
       "not_square.csv",
       ": ",
       3,
       {}},
      // Covariances read well but wrong for the model: input errors naming the file (they were
      // usage errors naming the option).
      {"prior_covariance_wrong_size",
       keep(std::string(kBuild) + " --data {M}/good.csv --prior-covariance {D}/prior2.csv"),
       "prior2.csv", ": ", 3,
       [](const fs::path& dir) { write_text(dir / "prior2.csv", "1,0\n0,1\n"); }},
      {"prior_covariance_not_symmetric",
       keep(std::string(kBuild) + " --data {M}/good.csv --prior-covariance {D}/lopsided.csv"),
       "lopsided.csv", ": ", 3,
       [](const fs::path& dir) { write_text(dir / "lopsided.csv", "1,0.5,0\n0,1,0\n0,0,1\n"); }},
      // Matrices (solve --phi / --loglik / --y): .npy and header-less CSV.
      {"phi_ragged_csv",
       keep(solve("--phi", "{M}/phi_ragged.csv")),
       "phi_ragged.csv",
       ":2:3: ",
       3,
       {}},
      {"phi_non_numeric_csv",
       keep(solve("--phi", "{M}/phi_non_numeric.csv")),
       "phi_non_numeric.csv",
       ":2:2: ",
       3,
       {}},
      {"phi_nan_csv", keep(solve("--phi", "{M}/phi_nan.csv")), "phi_nan.csv", ":2:2: ", 3, {}},
      {"phi_empty_csv", keep(solve("--phi", "{M}/phi_empty.csv")), "phi_empty.csv", ": ", 3, {}},
      {"phi_binary_garbage",
       keep(solve("--phi", "{M}/binary_garbage.csv")),
       "binary_garbage.csv",
       ":1: ",  // the delimiter cannot be told: an error about the whole line
       3,
       {}},
      {"npy_truncated", keep(solve("--phi", "{M}/truncated.npy")), "truncated.npy", ": ", 3, {}},
      {"npy_lying_shape",
       keep(solve("--phi", "{M}/lying_shape.npy")),
       "lying_shape.npy",
       ": ",
       3,
       {}},
      {"npy_huge_shape", keep(solve("--phi", "{M}/huge_shape.npy")), "huge_shape.npy", ": ", 3, {}},
      {"npy_huge_declared_size",
       keep(solve("--phi", "{M}/huge_but_fits_index.npy")),
       "huge_but_fits_index.npy",
       ": ",
       3,
       {}},
      {"npy_negative_shape",
       keep(solve("--phi", "{M}/negative_shape.npy")),
       "negative_shape.npy",
       ": ",
       3,
       {}},
      {"npy_bad_dtype", keep(solve("--phi", "{M}/bad_dtype.npy")), "bad_dtype.npy", ": ", 3, {}},
      {"npy_three_d", keep(solve("--phi", "{M}/three_d.npy")), "three_d.npy", ": ", 3, {}},
      {"npy_nan", keep(solve("--phi", "{M}/nan.npy")), "nan.npy", ": ", 3, {}},
      {"npy_inf_loglik", keep(solve("--loglik", "{M}/inf.npy")), "inf.npy", ": ", 3, {}},
      {"npy_zero_rows", keep(solve("--phi", "{M}/zero_rows.npy")), "zero_rows.npy", ": ", 3, {}},
      {"npy_bad_magic", keep(solve("--phi", "{M}/bad_magic.npy")), "bad_magic.npy", ": ", 3, {}},
      {"npy_magic_only", keep(solve("--phi", "{M}/magic_only.npy")), "magic_only.npy", ": ", 3, {}},
      {"npy_header_garbage",
       keep(solve("--phi", "{M}/header_garbage.npy")),
       "header_garbage.npy",
       ": ",
       3,
       {}},
      {"npy_missing_key",
       keep(solve("--phi", "{M}/missing_key.npy")),
       "missing_key.npy",
       ": ",
       3,
       {}},
      {"npy_header_length_lies",
       keep(solve("--phi", "{M}/header_length_lies.npy")),
       "header_length_lies.npy",
       ": ",
       3,
       {}},
      {"npy_directory", keep(solve("--phi", "{M}")), "malformed", ": ", 3, {}},
      {"npy_missing",
       keep(solve("--phi", "{M}/no_such_file.npy")),
       "no_such_file.npy",
       ": ",
       3,
       {}},
      {"y_wrong_shape",
       keep(solve("--phi", "{M}/not_square.csv --y {M}/nan.npy")),
       "nan.npy",
       ": ",
       3,
       {}},
      {"npy_huge_generated", keep(solve("--phi", "{D}/huge.npy")), "huge.npy", ": ", 3,
       [](const fs::path& dir) {  // a valid header declaring 2^31 x 2^31 float64, 1 MB of data
         std::string header =
             "{'descr': '<f8', 'fortran_order': True, 'shape': (2147483648, 2147483648), }";
         header.append(64 - (10 + header.size() + 1) % 64, ' ');
         header += '\n';
         std::string file = "\x93NUMPY";
         file += '\x01';
         file += '\x00';
         file += static_cast<char>(header.size() & 0xff);
         file += static_cast<char>(header.size() >> 8);
         file += header;
         file.append(1 << 20, '\0');
         write_text(dir / "huge.npy", file);
       }},
      // Coresets (evaluate --coreset).
      {"coreset_bad_header",
       keep(evaluate("{M}/coreset_bad_header.csv")),
       "coreset_bad_header.csv",
       ":1:1: ",
       3,
       {}},
      {"coreset_descending",
       keep(evaluate("{M}/coreset_descending.csv")),
       "coreset_descending.csv",
       ":3:1: ",
       3,
       {}},
      {"coreset_negative_weight",
       keep(evaluate("{M}/coreset_negative_weight.csv")),
       "coreset_negative_weight.csv",
       ":2:2: ",
       3,
       {}},
      {"coreset_nan_weight",
       keep(evaluate("{M}/coreset_nan_weight.csv")),
       "coreset_nan_weight.csv",
       ":2:2: ",
       3,
       {}},
      {"coreset_index_beyond_data",
       keep(evaluate("{M}/coreset_index_beyond_data.csv")),
       "coreset_index_beyond_data.csv",
       ":3:1: index 999 is outside the dataset's",
       3,
       {}},
      {"coreset_empty", keep(evaluate("{M}/empty.csv")), "empty.csv", ": ", 3, {}},
  };
}

class MalformedInput : public Hardening, public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(MalformedInput, IsRefusedWithItsExitCodeAMessageNamingTheFileAndNoOutput) {
  const MalformedCase& c = GetParam();
  if (c.generate) {
    c.generate(dir_);
  }
  const std::set<std::string> before = listing(dir_);
  const CommandResult r = run(expand(c.command, kCorpus, dir_.string()));
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // "coreset: input error: FILE:LINE:COLUMN: what", on one line.
  const std::string where = std::string(c.file) + c.location;
  EXPECT_NE(r.err.find(where), std::string::npos) << "expected '" << where << "' in: " << r.err;
  EXPECT_EQ(r.err.rfind("coreset: ", 0), 0u) << r.err;
  EXPECT_LT(r.err.size(), 600u) << "the message should be one readable line: " << r.err;
  const std::set<std::string> after = listing(dir_);
  EXPECT_EQ(after, before) << "left behind:" << join(after);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedInput, ::testing::ValuesIn(malformed_cases()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) {
                           return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------------------------
// Ctrl-C and SIGTERM.

std::vector<std::string> long_build(const std::string& data) {
  // --device cpu: the stderr asserted below holds no "no usable GPU" notice on any machine.
  return {"build", "--model", "logistic", "--data",     data,        "--samples", "1000", "-k",
          "200",   "--tol",   "0",        "--max-iter", "100000000", "--device",  "cpu"};
}

TEST_F(Hardening, CtrlCStopsALongBuildWithCode130AndWritesNothing) {
  const std::string data = write_big_dataset();
  std::vector<std::string> arguments = long_build(data);
  arguments.insert(arguments.end(), {"--out", path("out.csv"), "--report", path("report.json")});
  const auto start = Clock::now();
  const CommandResult r = run_and_signal(arguments, SIGINT, std::chrono::milliseconds(1500));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("coreset: interrupted by SIGINT: stopped, no output written"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(100));
  EXPECT_EQ(listing(dir_), std::set<std::string>{"big.csv"}) << join(listing(dir_));
}

TEST_F(Hardening, SigtermStopsALongBuildWithCode143AndWritesNothing) {
  const std::string data = write_big_dataset();
  std::vector<std::string> arguments = long_build(data);
  arguments.insert(arguments.end(), {"--out", path("out.csv"), "--report", path("report.json")});
  const CommandResult r = run_and_signal(arguments, SIGTERM, std::chrono::milliseconds(1500));
  EXPECT_EQ(r.exit_code, 143) << r.err;
  EXPECT_NE(r.err.find("coreset: interrupted by SIGTERM"), std::string::npos) << r.err;
  EXPECT_EQ(listing(dir_), std::set<std::string>{"big.csv"}) << join(listing(dir_));
}

TEST_F(Hardening, CtrlCStopsTheSolverIterations) {
  // y = Phi 1 is far from 50-sparse, and random batches keep w moving: it never stops by itself.
  write_planted(400, 4000, 5);
  const CommandResult r = run_and_signal(
      {"solve", "--phi", path("phi.npy"), "-k", "50", "--tol", "0", "--max-iter", "1000000000",
       "--batch-fraction", "0.3", "--out", path("out.csv"), "--report", path("report.json")},
      SIGINT, std::chrono::milliseconds(1500));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT"), std::string::npos) << r.err;
  EXPECT_EQ(listing(dir_), (std::set<std::string>{"phi.npy", "y.npy"})) << join(listing(dir_));
}

TEST_F(Hardening, CtrlCStopsAnExperimentBeforeItsFolderAppears) {
  const CommandResult r =
      run_and_signal({"experiment", "gaussian", "--trials", "100000", "--k", "5,10", "--algorithms",
                      "a-iht,giga", "--out", path("experiment")},
                     SIGINT, std::chrono::milliseconds(1500));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("experiment")));
  EXPECT_TRUE(listing(dir_).empty()) << join(listing(dir_));
}

// ---------------------------------------------------------------------------------------------
// Outputs: all or nothing.

TEST_F(Hardening, AReportThatCannotBeWrittenLeavesNoCoresetEither) {
  write_planted();
  // /proc exists, so the early check passes, but no file can be created there.
  const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --out " + path("out.csv") +
                              " --report /proc/coreset-report.json");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("coreset: output error: cannot write /proc/coreset-report.json"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(listing(dir_), (std::set<std::string>{"phi.npy", "y.npy"})) << join(listing(dir_));
}

// A file that was there before a failed run is there after it, with its old contents: the
// coreset is renamed into place, then the report fails (/dev/full takes the open and refuses
// the write), and the coreset's rename is undone by putting the old file back.
TEST_F(Hardening, AFailedOutputPutsBackTheFileAnEarlierOutputReplaced) {
  if (!fs::exists("/dev/full") || !io::output_destination("/dev/full").write_into) {
    GTEST_SKIP() << "no /dev/full to fail the write (or not seen as a device: not risked)";
  }
  write_planted();
  std::ofstream(path("out.csv")) << "old contents\n";
  const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --out " + path("out.csv") +
                              " --report /dev/full");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("cannot write /dev/full"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(path("out.csv")), "old contents\n");
  EXPECT_EQ(listing(dir_), (std::set<std::string>{"out.csv", "phi.npy", "y.npy"}))
      << join(listing(dir_));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// An output through a symbolic link replaces the file the link names; the link stays.
TEST_F(Hardening, AnOutputThroughALinkKeepsTheLink) {
  write_planted();
  std::ofstream(path("real.csv")) << "old\n";
  fs::create_symlink("real.csv", path("link.csv"));
  const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --out " + path("link.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("link.csv")));
  EXPECT_EQ(io::read_coreset_csv(path("real.csv")).indices.size(), 5u);
  EXPECT_EQ(listing(dir_), (std::set<std::string>{"link.csv", "phi.npy", "real.csv", "y.npy"}))
      << join(listing(dir_));
}

// A FIFO (as /dev/null, which a test must not risk) is written into and stays a FIFO.
TEST_F(Hardening, AnOutputIntoAFifoReachesItsReader) {
  write_planted();
  const std::string fifo = path("coreset.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --out " + fifo);
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(received.rfind("index,weight\n", 0), 0u) << received;
  EXPECT_EQ(std::count(received.begin(), received.end(), '\n'), 6) << received;
}

TEST_F(Hardening, TwoOutputsNamingOneFileAreAUsageError) {
  write_planted();
  fs::create_directories(path("sub"));
  for (const std::string& report : {path("x.csv"), path("sub") + "/../x.csv"}) {
    const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --out " + path("x.csv") +
                                " --report " + report);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(listing(dir_), (std::set<std::string>{"phi.npy", "sub", "y.npy"}))
      << join(listing(dir_));
  // Relative spellings of a file not yet there, from the folder itself: "x.csv" once kept only
  // the report, as "./x.csv" and "x.csv" compared unequal.
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  const CommandResult relative = run("solve --phi phi.npy -k 5 --out ./x.csv --report x.csv");
  const CommandResult through_sub =
      run("solve --phi phi.npy -k 5 --out x.csv --report sub/../x.csv");
  fs::current_path(before);
  for (const CommandResult& r : {relative, through_sub}) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

TEST_F(Hardening, AnOutputOverAnInputIsAUsageError) {
  write_planted();
  const std::string before = slurp(path("phi.npy"));
  fs::create_symlink("phi.npy", path("alias.npy"));
  for (const std::string& target : {path("phi.npy"), path("alias.npy")}) {
    const CommandResult r = run("solve --phi " + path("phi.npy") + " -k 5 --report " + target);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("would overwrite the input --phi"), std::string::npos) << r.err;
  }
  const CommandResult build = run("build --model logistic --samples 50 -k 5 --data " +
                                  path("data.csv") + " --out " + path("data.csv"));
  EXPECT_EQ(build.exit_code, 2) << build.err;  // checked before the missing file is read
  EXPECT_EQ(slurp(path("phi.npy")), before);
}

TEST_F(Hardening, AnEmptyPathIsAUsageErrorNamingTheOption) {
  for (const std::string& arguments :
       {std::string("build --model logistic -k 5 --data \"\""),
        std::string("build --model logistic -k 5 --out \"\""), std::string("solve --phi \"\" -k 5"),
        std::string("sweep --model logistic -k 5 --out \"\"")}) {
    const CommandResult r = run(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.err;
    EXPECT_NE(r.err.find("expected a path, got an empty value"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(listing(dir_).empty()) << join(listing(dir_));
}

// CLI11's own list splitting dropped empty items: `-k 5,,10` ran as `-k 5,10` and a mistyped
// list passed unseen. Every list option refuses them, naming itself, before any work.
TEST_F(Hardening, AListWithAnEmptyItemIsAUsageErrorNamingTheOption) {
  struct ListCase {
    std::string arguments;
    std::string option;
  };
  const std::string linear =
      "build --model linear --rbf -k 5 --device cpu --out " + path("c.csv") + " ";
  for (const ListCase& c : std::vector<ListCase>{
           {"sweep --model logistic --device cpu --out " + path("sw") + " -k 5,,10", "-k"},
           {"sweep --model logistic --device cpu --out " + path("sw") + " -k 5,", "-k"},
           {"sweep --model logistic --device cpu --out " + path("sw") + " -k ,5", "-k"},
           {"experiment gaussian --out " + path("ex") + " --k 2,,5", "--k"},
           {"experiment gaussian --out " + path("ex") + " --k 2 --algorithms a-iht-2,,giga",
            "--algorithms"},
           {linear + "--rbf-scales 0.5,,1", "--rbf-scales"},
           {linear + "--rbf-scales 0.5,1,", "--rbf-scales"}}) {
    const CommandResult r = run(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.err;
    EXPECT_NE(r.err.find(c.option + ": '"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("has an empty item"), std::string::npos) << r.err;
  }
  const CommandResult not_a_number = run(linear + "--rbf-scales 0.5,1x");
  EXPECT_EQ(not_a_number.exit_code, 2) << not_a_number.err;
  EXPECT_NE(not_a_number.err.find("--rbf-scales: '1x' is not a finite number"), std::string::npos)
      << not_a_number.err;
  EXPECT_TRUE(listing(dir_).empty()) << join(listing(dir_));
}

// A list given in several occurrences is their items in order: the same sweep as one list.
TEST_F(Hardening, AListOptionMayBeRepeated) {
  const std::string base = "sweep --model logistic --samples 50 --device cpu --out ";
  const CommandResult once = run(base + path("once") + " -k 5,10");
  const CommandResult twice = run(base + path("twice") + " -k 5 -k 10");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  for (const char* file : {"coreset_k5.csv", "coreset_k10.csv"}) {
    EXPECT_EQ(slurp(path(std::string("once/") + file)), slurp(path(std::string("twice/") + file)))
        << file;
  }
}

// The report gives the RBF centres the basis has: on 40 rows, 40 a scale, not the 1000 asked.
TEST_F(Hardening, TheReportGivesTheRbfCentresTheBasisHas) {
  std::ofstream data(path("lin.csv"));
  data << "x1,x2,y\n";
  for (int i = 0; i < 40; ++i) {
    data << i * 0.05 << "," << (i % 7) * 0.3 << "," << 1.0 + 0.5 * i * 0.05 << "\n";
  }
  data.close();
  const CommandResult r =
      run("build --data " + path("lin.csv") + " --model linear --rbf --rbf-centers 1000 " +
          "--rbf-scales 0.5 --rbf-scales 1,2 -k 5 --samples 50 --device cpu --out " +
          path("c.csv") + " --report " + path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json input = nlohmann::json::parse(slurp(path("r.json")))["input"];
  EXPECT_EQ(input["rbf_centers_per_scale"], 40);
  EXPECT_EQ(input["rbf_centers_per_scale_requested"], 1000);
  EXPECT_EQ(input["rbf_scales"], nlohmann::json({0.5, 1.0, 2.0}));
}

// Options the run does not use are each named in a notice, and the run is the one without them.
TEST_F(Hardening, AnOptionTheRunDoesNotUseGetsANoticeAndChangesNothing) {
  const std::string base =
      "build --model logistic -k 5 --samples 50 --device cpu --algorithm giga ";
  const CommandResult plain = run(base + "--out " + path("plain.csv"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("notice"), std::string::npos) << plain.err;
  const CommandResult extra =
      run(base + "--noise-sd 3 --rbf-scales 1,2 --format csv --max-iter 7 --tol 0.5 " +
          "--sparsevi-steps 3 --sync-every 2 --step-rule paper --out " + path("extra.csv"));
  ASSERT_EQ(extra.exit_code, 0) << extra.err;
  EXPECT_EQ(slurp(path("extra.csv")), slurp(path("plain.csv")));
  for (const char* line :
       {"notice: --format has no effect: no --data",
        "notice: --noise-sd has no effect: the "
        "logistic model has no observation noise",
        "notice: --rbf-scales has no effect: no --rbf",
        "notice: --sparsevi-steps has no effect: --algorithm giga does not use it",
        "notice: --step-rule has no effect", "notice: --max-iter has no effect",
        "notice: --tol has no effect", "notice: --sync-every has no effect"}) {
    EXPECT_NE(extra.err.find(line), std::string::npos) << line << "\n" << extra.err;
  }
  // --quiet: errors only.
  const CommandResult quiet = run(base + "--noise-sd 3 --quiet --out " + path("quiet.csv"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;
}

// Options the run uses get no notice: the IHT family's options with a-iht-2, noise with linear.
TEST_F(Hardening, AnOptionTheRunUsesGetsNoNotice) {
  const CommandResult aiht =
      run("build --model logistic -k 5 --samples 50 --device cpu --algorithm a-iht-2 --max-iter 7 "
          "--tol 0.5 --sync-every 2 --step-rule paper --out " +
          path("a.csv"));
  ASSERT_EQ(aiht.exit_code, 0) << aiht.err;
  EXPECT_EQ(aiht.err.find("notice"), std::string::npos) << aiht.err;
  std::ofstream(path("lin.csv")) << "x1,y\n0.1,1\n0.4,2\n0.9,2.5\n1.3,3.1\n";
  const CommandResult linear =
      run("build --model linear --data " + path("lin.csv") +
          " --noise-sd 0.5 -k 2 --samples 50 --device cpu --out " + path("l.csv"));
  ASSERT_EQ(linear.exit_code, 0) << linear.err;
  EXPECT_EQ(linear.err.find("notice"), std::string::npos) << linear.err;
  const CommandResult solve_giga =
      run("solve --phi " + path("missing.npy") + " -k 2 --algorithm giga --max-iter 3");
  EXPECT_NE(solve_giga.err.find("notice: --max-iter has no effect"), std::string::npos)
      << solve_giga.err;  // solve's own options too, before its input is read
  // solve's --seed seeds the solver's draws only: giga draws nothing, iht its power iteration.
  const std::string solve = "solve --phi " + path("missing.npy") + " -k 2 --seed 3 --device cpu ";
  EXPECT_NE(run(solve + "--algorithm giga").err.find("notice: --seed has no effect"),
            std::string::npos);
  EXPECT_EQ(run(solve + "--algorithm iht").err.find("notice"), std::string::npos);
  EXPECT_EQ(run(solve + "--algorithm a-iht --batch-fraction 0.3").err.find("notice"),
            std::string::npos);
  // Batch solves look at every iteration: --sync-every does nothing there.
  EXPECT_NE(run(solve + "--algorithm a-iht --batch-fraction 0.3 --sync-every 4")
                .err.find("notice: --sync-every has no effect: batch solves look at every"),
            std::string::npos);
  // The gaussian experiment generates its data.
  EXPECT_NE(run("experiment gaussian --trials 1 --k 2 --samples 20 --data-dir /nonexistent "
                "--out " +
                path("ex"))
                .err.find("notice: --data-dir has no effect: the gaussian experiment reads no"),
            std::string::npos);
}

// The ranks of an MPI job on one node share its memory (Open MPI's mpirun says how many there
// are): a job that fits the node is refused when each of a million ranks gets its share.
TEST_F(Hardening, TheMemoryCheckCountsTheMpiRanksOnTheNode) {
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1000000", 1);
  const CommandResult shared =
      run("build --model logistic -k 5 --device cpu --out " + path("c.csv"));
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  EXPECT_EQ(shared.exit_code, 2) << shared.err;
  EXPECT_NE(shared.err.find("for each of the 1000000 MPI ranks on this node, which share it"),
            std::string::npos)
      << shared.err;
  EXPECT_TRUE(listing(dir_).empty()) << join(listing(dir_));
  const CommandResult alone =
      run("build --model logistic -k 5 --device cpu --out " + path("c.csv"));
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
}

// A folder where a sweep or an experiment will write one of its files is found before any work.
TEST_F(Hardening, AFolderInPlaceOfAnOutputFileIsFoundBeforeAnyWork) {
  fs::create_directories(path("sw/report.json"));
  const CommandResult sweep =
      run("sweep --model logistic --device cpu -k 5,10 --out " + path("sw"));
  EXPECT_EQ(sweep.exit_code, 4) << sweep.err;
  EXPECT_NE(sweep.err.find("report.json' is a folder, where the run writes a file"),
            std::string::npos)
      << sweep.err;
  fs::create_directories(path("ex/synthetic_gaussian.svg"));
  const CommandResult experiment = run("experiment gaussian --trials 1 --k 2 --out " + path("ex"));
  EXPECT_EQ(experiment.exit_code, 4) << experiment.err;
  EXPECT_NE(experiment.err.find("synthetic_gaussian.svg' is a folder"), std::string::npos)
      << experiment.err;
  EXPECT_EQ(experiment.err.find("skipped"), std::string::npos);  // no run was made
  EXPECT_FALSE(fs::exists(path("ex/results.csv")));
}

// CLI11 turned a seed above 2^64 - 1 into 2^64 - 1 without a word; solve's options named the
// library's fields (max_iterations, tolerance) when out of range; a one-draw --loglik was
// solved as y = 0. Each is now a usage or input error naming what the user gave.
TEST_F(Hardening, OutOfRangeNumbersAndOneDrawAreRefusedByName) {
  write_planted();
  const std::string solve = "solve --phi " + path("phi.npy") + " -k 5 --device cpu ";
  for (const auto& [arguments, message] : std::vector<std::pair<std::string, std::string>>{
           {solve + "--seed 18446744073709551616", "--seed: expected a seed from 0 to 2^64 - 1"},
           {"build --model logistic -k 5 --seed 99999999999999999999999",
            "--seed: expected a seed from 0 to 2^64 - 1"},
           {solve + "--max-iter 0", "--max-iter"},
           {solve + "--tol -1", "--tol"},
           {solve + "--sync-every -1", "--sync-every"},
           {solve + "--batch-fraction 2", "--batch-fraction"},
           {solve + "--threads -2", "--threads"}}) {
    const CommandResult r = run(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("max_iterations"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("tolerance"), std::string::npos) << r.err;
  }
  // A parse error reads like every other error.
  const CommandResult parse = run(solve + "--tol abc");
  EXPECT_EQ(parse.err.rfind("coreset: error: --tol", 0), 0u) << parse.err;
  // One posterior draw given by file: an input error naming the file.
  std::ofstream(path("draws.csv")) << "0.1,0.2,0.3\n";
  const CommandResult draws =
      run("build --model logistic -k 3 --device cpu --pihat samples " + path("draws.csv"));
  EXPECT_EQ(draws.exit_code, 3) << draws.err;
  EXPECT_NE(draws.err.find("draws.csv: the posterior samples have 1 draw(s); at least 2"),
            std::string::npos)
      << draws.err;
  std::ofstream(path("one_draw.csv")) << "1.5\n-2\n0.25\n";
  const CommandResult one = run("solve --loglik " + path("one_draw.csv") + " -k 2 --device cpu");
  EXPECT_EQ(one.exit_code, 3) << one.err;
  EXPECT_NE(one.err.find("one_draw.csv: has 1 column (draw); the log-likelihoods need at least 2"),
            std::string::npos)
      << one.err;
}

// Spaces around a list's items are not part of them.
TEST_F(Hardening, SpacesAroundListItemsAreIgnored) {
  const CommandResult r =
      run("experiment gaussian --trials 1 --k ' 2, 3 ' --algorithms 'uniform, giga' --samples 20 "
          "--out " +
          path("ex"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string results = slurp(path("ex/results.csv"));
  EXPECT_NE(results.find(",giga,3,"), std::string::npos) << results;
  EXPECT_NE(results.find(",uniform,2,"), std::string::npos) << results;
}

// OpenMP fails to make a hundred thousand threads (a crash or an abort): a usage error instead.
TEST_F(Hardening, MoreThreadsThanTheMachineCanRunIsAUsageError) {
  const CommandResult r =
      run("build --model logistic --samples 50 -k 5 --threads 100000 --out " + path("c.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("threads must be at most"), std::string::npos) << r.err;
  EXPECT_TRUE(listing(dir_).empty()) << join(listing(dir_));
}

// ---------------------------------------------------------------------------------------------
// Progress and --quiet.

// --device cpu: the stderr asserted below holds no "no usable GPU" notice on any machine.
const std::vector<std::string> kShortBuild = {
    "build", "--model", "logistic",   "--samples", "200",      "-k", "20",
    "--tol", "0",       "--max-iter", "300",       "--device", "cpu"};

TEST_F(Hardening, NoProgressTextWhenStderrIsAPipe) {
  std::string command;
  for (const std::string& argument : kShortBuild) {
    command += argument + " ";
  }
  const CommandResult r = run(command + "--out " + path("out.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("coreset build: logistic model"), std::string::npos) << r.out;
}

TEST_F(Hardening, ProgressIsDrawnOnATerminalAndClearedAtTheEnd) {
  std::vector<std::string> arguments = kShortBuild;
  arguments.insert(arguments.end(), {"--out", path("out.csv"), "--report", path("report.json")});
  int exit_code = -1;
  const std::string text = run_on_terminal(arguments, exit_code);
  ASSERT_EQ(exit_code, 0) << text;
  EXPECT_NE(text.find("\rcoreset: "), std::string::npos) << text;
  const bool stage_shown = text.find("coreset: solve ") != std::string::npos ||
                           text.find("coreset: projection ") != std::string::npos ||
                           text.find("coreset: laplace") != std::string::npos;
  EXPECT_TRUE(stage_shown) << text;
  // The line is cleared before the summary, which starts on a clean line.
  const std::size_t summary = text.find("coreset build: logistic model");
  ASSERT_NE(summary, std::string::npos) << text;
  EXPECT_EQ(text.rfind("\r\033[K", summary), summary - 4) << text;
  // The JSON report is untouched by the terminal.
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_EQ(report["k"], 20);
}

TEST_F(Hardening, QuietSilencesProgressAndSummaryOnATerminal) {
  std::vector<std::string> arguments = kShortBuild;
  arguments.insert(arguments.end(), {"--quiet", "--out", path("out.csv")});
  int exit_code = -1;
  const std::string text = run_on_terminal(arguments, exit_code);
  ASSERT_EQ(exit_code, 0) << text;
  EXPECT_TRUE(text.empty()) << text;
  EXPECT_TRUE(fs::exists(path("out.csv")));
}

TEST_F(Hardening, QuietStillListsTheCoresetWithoutOutAndStillPrintsErrors) {
  write_planted();
  CommandResult r =
      run("--quiet solve --phi " + path("phi.npy") + " --y " + path("y.npy") + " -k 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("index,weight\n", 0), 0u) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  r = run("solve --quiet --phi " + path("missing.npy") + " -k 5");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("missing.npy"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace coreset
