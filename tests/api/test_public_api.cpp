// The public API as a program linked to libcoreset.so sees it: what the types let a caller say
// (solve() cannot be asked for SparseVI), the names of the enums, and exceptions that cross the
// library boundary (their typeinfo must be exported, include/coreset/export.hpp).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreset/coreset.hpp"

namespace coreset {
namespace {

// Whether T has a member `sparsevi` (the detection idiom).
template <class T, class = void>
struct HasSparseVi : std::false_type {};
template <class T>
struct HasSparseVi<T, std::void_t<decltype(std::declval<T&>().sparsevi)>> : std::true_type {};

// What solve() takes cannot name SparseVI: its algorithm type has no such value (a
// BuildAlgorithm does not convert to it), and its options carry no SparseVI settings.
static_assert(std::is_same_v<decltype(SolverOptions::algorithm), Algorithm>);
static_assert(!std::is_convertible_v<BuildAlgorithm, Algorithm>);
static_assert(!HasSparseVi<SolverOptions>::value);
static_assert(HasSparseVi<BuildSolverOptions>::value);
static_assert(std::is_same_v<decltype(BuildOptions::solver), BuildSolverOptions>);
// Every Algorithm is a BuildAlgorithm of the same value, and the build path has no seed but the
// job's.
static_assert(to_build_algorithm(Algorithm::uniform) == BuildAlgorithm::uniform);
static_assert(runs_on_phi(to_build_algorithm(Algorithm::iht)));
static_assert(!runs_on_phi(BuildAlgorithm::sparsevi));
static_assert(std::is_same_v<decltype(BuildOptions::seed), std::uint64_t>);
static_assert(std::is_same_v<decltype(BuildOptions::precision), Precision>);

TEST(PublicApi, SolveAlgorithmsAreTheBuildAlgorithmsWithoutSparseVi) {
  const std::vector<Algorithm> phi = all_algorithms();
  const std::vector<BuildAlgorithm> build = all_build_algorithms();
  ASSERT_EQ(build.size(), phi.size() + 1);
  EXPECT_EQ(build.back(), BuildAlgorithm::sparsevi);
  for (std::size_t p = 0; p < phi.size(); ++p) {
    EXPECT_EQ(to_build_algorithm(phi[p]), build[p]);
    EXPECT_EQ(phi_algorithm(build[p]), phi[p]);
    // The same names on both paths, and each parses back to its own value.
    EXPECT_EQ(to_string(phi[p]), to_string(build[p]));
    EXPECT_EQ(parse_algorithm(to_string(phi[p])), phi[p]);
    EXPECT_EQ(parse_build_algorithm(to_string(build[p])), build[p]);
    EXPECT_NE(to_string(phi[p]), "sparsevi");
  }
  EXPECT_EQ(to_string(BuildAlgorithm::sparsevi), "sparsevi");
  EXPECT_THROW(parse_algorithm("sparsevi"), InvalidArgument);
  EXPECT_THROW(phi_algorithm(BuildAlgorithm::sparsevi), InvalidArgument);
}

TEST(PublicApi, PrecisionRoundTripsItsNames) {
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    EXPECT_EQ(parse_precision(to_string(precision)), precision);
  }
  EXPECT_EQ(to_string(Precision::float64), "double");  // the command's --precision values
  EXPECT_EQ(to_string(Precision::float32), "float");
  EXPECT_EQ(BuildOptions().precision, Precision::float64);
  // "auto" is the command's, resolved before the library sees it.
  try {
    parse_precision("auto");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("double"), std::string::npos) << message;
    EXPECT_NE(message.find("float"), std::string::npos) << message;
  }
}

// Thrown inside libcoreset.so, caught here by base class: needs the exported typeinfo.
TEST(PublicApi, ExceptionsAreCaughtAcrossTheLibraryBoundary) {
  try {
    io::read_dataset_csv("/nonexistent/coreset-public-api.csv");
    FAIL() << "expected InputError";
  } catch (const Error& error) {
    EXPECT_NE(dynamic_cast<const InputError*>(&error), nullptr) << error.what();
  }
  try {
    parse_model("no-such-model");
    FAIL() << "expected InvalidArgument";
  } catch (const Error& error) {
    EXPECT_NE(dynamic_cast<const InvalidArgument*>(&error), nullptr) << error.what();
  }
}

// A float build holds Phi in float: one coreset scored on both problems' Phi differs by the
// rounding of float entries only (the same samples, seed and model), and not at all when both
// are double. Through the shared library, so the exported PreparedProblem suffices for this.
TEST(PublicApi, AFloatBuildHoldsPhiInFloat) {
  const Dataset data = synthetic_logistic_dataset(300, 3);
  BuildOptions options;
  options.samples = 50;
  options.solver.k = 10;
  const PreparedProblem in_double(data, options);
  EXPECT_EQ(in_double.precision(), Precision::float64);
  const PreparedProblem again(data, options);
  options.precision = Precision::float32;
  const PreparedProblem in_float(data, options);
  EXPECT_EQ(in_float.precision(), Precision::float32);

  const Coreset coreset = in_double.solve(options.solver).coreset;
  const double exact = in_double.evaluate(coreset).relative_projection_error;
  EXPECT_EQ(again.evaluate(coreset).relative_projection_error, exact);
  const double rounded = in_float.evaluate(coreset).relative_projection_error;
  EXPECT_NE(rounded, exact);
  EXPECT_NEAR(rounded, exact, 1e-5 * (1.0 + exact));
}

// A small Phi (4 x 20) for solves whose answer does not matter, only that they run or throw.
Matrix<double> small_phi() {
  Matrix<double> phi = Matrix<double>::uninitialized(4, 20);
  for (index_t e = 0; e < 4 * 20; ++e) {
    phi.data()[e] = static_cast<double>((e * 7) % 11) - 5.0;
  }
  return phi;
}

// coreset::GpuWarmUp starts its thread where CUDA is compiled in unless CORESET_GPU_WARM_UP=0 says
// no, and never throws: without a usable GPU (this test's machine in CI) it leaves gpu_usable()'s
// answer, its reason and a solve as they were; with one, the solve after it runs on the GPU.
TEST(PublicApi, AGpuWarmUpStartsWhereCudaIsBuiltAndLeavesTheJobAsItWas) {
  // The switch as the caller's environment had it, restored at the end; unset meanwhile.
  const char* const given = std::getenv("CORESET_GPU_WARM_UP");
  const std::optional<std::string> saved =
      given != nullptr ? std::optional<std::string>(given) : std::nullopt;
  ASSERT_EQ(unsetenv("CORESET_GPU_WARM_UP"), 0);
  std::string why_before;
  const bool usable = gpu_usable(&why_before);
  {
    GpuWarmUp warm_up;
    EXPECT_EQ(warm_up.started(), build_info().cuda);
    const GpuWarmUp moved = std::move(warm_up);  // the thread goes with it
    EXPECT_EQ(moved.started(), build_info().cuda);
    EXPECT_FALSE(warm_up.started());  // NOLINT(bugprone-use-after-move): what it documents
  }
  std::string why_after;
  EXPECT_EQ(gpu_usable(&why_after), usable);
  EXPECT_EQ(why_after, why_before);
  SolverOptions options;
  options.k = 3;
  options.device = Device::automatic;
  const Matrix<double> phi = small_phi();
  EXPECT_EQ(solve(phi.view(), nullptr, options).device, usable ? Device::gpu : Device::cpu);

  ASSERT_EQ(setenv("CORESET_GPU_WARM_UP", "0", 1), 0);
  {
    const GpuWarmUp switched_off;
    EXPECT_FALSE(switched_off.started());
  }
  ASSERT_EQ(
      saved ? setenv("CORESET_GPU_WARM_UP", saved->c_str(), 1) : unsetenv("CORESET_GPU_WARM_UP"),
      0);
}

// A Latin-1 column name or path is not UTF-8, which JSON text must be: the reports write U+FFFD
// for it instead of throwing (a foreign exception that lost the coreset with the report).
TEST(PublicApi, ReportsTakeNamesThatAreNotUtf8) {
  SolveReportInputs inputs;
  // Latin-1 bytes (split literals: a hex escape would swallow the letters after it).
  inputs.phi_path =
      "pr\xe9"
      "vu.npy";
  std::string report;
  ASSERT_NO_THROW(report = solve_report_json(inputs, SolveResult{}));
  EXPECT_NE(report.find("pr\xef\xbf\xbd"
                        "vu.npy"),
            std::string::npos)
      << report;
  BuildReportInputs build_inputs;
  build_inputs.data_description =
      "donn\xe9"
      "es.csv";
  build_inputs.response_name =
      "r\xe9"
      "ponse";
  BuildResult result;
  result.parameter_names = {
      "\xe2"
      "ge"};  // "age" with a Latin-1 a circumflex
  ASSERT_NO_THROW(report = build_report_json(build_inputs, result));
  EXPECT_NE(report.find("donn\xef\xbf\xbd"
                        "es.csv"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\xef\xbf\xbd"
                        "ge"),
            std::string::npos)
      << report;
}

// rows * cols that wraps around the address space is bad_alloc, not a tiny buffer behind a
// matrix that claims 2^64 elements.
TEST(PublicApi, AMatrixTooLargeToAddressIsBadAlloc) {
  const index_t huge = index_t{1} << 32;
  EXPECT_THROW(Matrix<double>(huge, huge), std::bad_alloc);
  EXPECT_THROW(Matrix<float>::uninitialized(index_t{1} << 33, index_t{1} << 31), std::bad_alloc);
  EXPECT_THROW(Matrix<double>(index_t{1} << 62, 2), std::bad_alloc);
  EXPECT_EQ(Matrix<double>(0, huge).rows(), 0);  // no elements: nothing to allocate
}

// OpenMP cannot make a hundred thousand threads (it crashed or aborted): InvalidArgument first.
TEST(PublicApi, MoreThreadsThanTheMachineCanRunIsInvalidArgument) {
  const Matrix<double> phi = small_phi();
  SolverOptions options;
  options.k = 3;
  options.device = Device::cpu;
  options.threads = 100000;
  EXPECT_THROW(solve(phi.view(), nullptr, options), InvalidArgument);
  options.threads = 2;
  EXPECT_NO_THROW(solve(phi.view(), nullptr, options));
}

// An enum option holding no value of its enum (Algorithm(99) from a cast) ran as some other
// value, or as none: InvalidArgument naming the option.
TEST(PublicApi, EnumOptionsOutsideTheirValuesAreInvalidArguments) {
  const Matrix<double> phi = small_phi();
  SolverOptions options;
  options.k = 3;
  options.device = Device::cpu;
  EXPECT_NO_THROW(solve(phi.view(), nullptr, options));
  const auto refused = [&](SolverOptions bad, const char* name) {
    try {
      solve(phi.view(), nullptr, bad);
      ADD_FAILURE() << name << ": no error";
    } catch (const InvalidArgument& error) {
      EXPECT_EQ(std::string(error.what()).rfind(std::string(name) + ": 99 is not", 0), 0u)
          << error.what();
    }
  };
  SolverOptions bad = options;
  bad.algorithm = static_cast<Algorithm>(99);
  refused(bad, "algorithm");
  bad = options;
  bad.step_rule = static_cast<StepRule>(99);
  refused(bad, "step_rule");
  bad = options;
  bad.device = static_cast<Device>(99);
  refused(bad, "device");

  const Dataset data = synthetic_logistic_dataset(200, 0);
  BuildOptions build;
  build.samples = 20;
  build.solver.k = 5;
  build.model.kind = static_cast<ModelKind>(99);
  EXPECT_THROW(build_coreset(data, build), InvalidArgument);
  build.model.kind = ModelKind::logistic;
  build.pihat = static_cast<Pihat>(9);
  EXPECT_THROW(build_coreset(data, build), InvalidArgument);
  build.pihat = Pihat::automatic;
  build.precision = static_cast<Precision>(9);
  EXPECT_THROW(build_coreset(data, build), InvalidArgument);
  build.precision = Precision::float64;
  build.solver.sparsevi.optimizer = static_cast<SparseViOptimizer>(7);
  EXPECT_THROW(build_coreset(data, build), InvalidArgument);
  build.solver.sparsevi.optimizer = SparseViOptimizer::adam;
  EXPECT_NO_THROW(build_coreset(data, build));
  const PreparedProblem problem(data, build);
  EXPECT_THROW(choose_k(problem, build.solver, KTarget{static_cast<TargetMetric>(7), 0.1}),
               InvalidArgument);
}

}  // namespace
}  // namespace coreset
