// Runs the `coreset` binary in a fresh temporary folder per test, capturing exit code, stdout
// and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "coreset/io.hpp"
#include "helpers/random_problem.hpp"

namespace coreset::test {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// The result of a finished command from its wait status and the files that caught its stdout and
/// stderr, which are then removed.
inline CommandResult collect_result(int status, const fs::path& out, const fs::path& err) {
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out);
  result.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return result;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("coreset_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CommandResult run(const std::string& arguments) const {
    const fs::path out = dir_ / "stdout.txt";
    const fs::path err = dir_ / "stderr.txt";
    const std::string command =
        std::string(CORESET_BINARY) + " " + arguments + " >" + out.string() + " 2>" + err.string();
    return collect_result(std::system(command.c_str()), out, err);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A planted problem written as phi.npy (Fortran order) and y.npy.
  PlantedProblem write_planted(index_t rows = 200, index_t cols = 500, index_t k = 5) {
    auto problem = planted_problem(rows, cols, k, 42);
    io::write_npy(path("phi.npy"), problem.phi.data(), {rows, cols}, true);
    io::write_npy(path("y.npy"), problem.y.data(), {rows}, false);
    return problem;
  }

  fs::path dir_;  // NOLINT: tests read it directly
};

}  // namespace coreset::test
