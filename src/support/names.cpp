// The one table of user-facing names for the solver's enums.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"

namespace coreset {
namespace {

template <class Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

// The build path's names are solve()'s plus sparsevi, so an Algorithm and its BuildAlgorithm
// always print alike (the static_assert below keeps the two tables in step).
constexpr NameTable<BuildAlgorithm, 8> kBuildAlgorithms{{
    {BuildAlgorithm::iht, "iht"},
    {BuildAlgorithm::aiht, "a-iht"},
    {BuildAlgorithm::aiht2, "a-iht-2"},
    {BuildAlgorithm::giga, "giga"},
    {BuildAlgorithm::frank_wolfe, "fw"},
    {BuildAlgorithm::importance_sampling, "is"},
    {BuildAlgorithm::uniform, "uniform"},
    {BuildAlgorithm::sparsevi, "sparsevi"},
}};
constexpr std::size_t kPhiAlgorithmCount = kBuildAlgorithms.size() - 1;  // all but sparsevi
static_assert(kBuildAlgorithms.back().first == BuildAlgorithm::sparsevi);
static_assert(static_cast<std::size_t>(BuildAlgorithm::sparsevi) == kPhiAlgorithmCount,
              "the Algorithm values are the BuildAlgorithm values before sparsevi");
constexpr NameTable<StepRule, 3> kStepRules{{
    {StepRule::exact, "exact"},
    {StepRule::reference, "reference"},
    {StepRule::paper, "paper"},
}};
constexpr NameTable<StopReason, 4> kStopReasons{{
    {StopReason::tolerance, "tolerance"},
    {StopReason::stationary, "stationary"},
    {StopReason::max_iterations, "max_iterations"},
    {StopReason::budget, "budget"},
}};

constexpr NameTable<SparseViOptimizer, 2> kSparseViOptimizers{{
    {SparseViOptimizer::adam, "adam"},
    {SparseViOptimizer::sgd, "sgd"},
}};

constexpr NameTable<Device, 3> kDevices{{
    {Device::cpu, "cpu"},
    {Device::gpu, "gpu"},
    {Device::automatic, "auto"},
}};

constexpr NameTable<Precision, 2> kPrecisions{{
    {Precision::float64, "double"},
    {Precision::float32, "float"},
}};

constexpr NameTable<Pihat, 4> kPihats{{
    {Pihat::automatic, "auto"},
    {Pihat::laplace, "laplace"},
    {Pihat::exact, "exact"},
    {Pihat::samples, "samples"},
}};

template <class Enum, std::size_t N>
std::string name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [key, name] : table) {
    if (key == value) {
      return name;
    }
  }
  return "unknown";
}

template <class Enum, std::size_t N>
Enum parse(const NameTable<Enum, N>& table, const std::string& text, const char* what) {
  std::string accepted;
  for (const auto& [key, name] : table) {
    if (text == name) {
      return key;
    }
    accepted += accepted.empty() ? "" : ", ";
    accepted += name;
  }
  throw InvalidArgument("unknown " + std::string(what) + " '" + text +
                        "' (expected one of: " + accepted + ")");
}

}  // namespace

std::string to_string(BuildAlgorithm algorithm) {
  return name_of(kBuildAlgorithms, algorithm);
}
std::string to_string(Algorithm algorithm) {
  return to_string(to_build_algorithm(algorithm));
}
BuildAlgorithm parse_build_algorithm(const std::string& name) {
  return parse(kBuildAlgorithms, name, "algorithm");
}
Algorithm parse_algorithm(const std::string& name) {
  if (name == to_string(BuildAlgorithm::sparsevi)) {
    return phi_algorithm(BuildAlgorithm::sparsevi);  // throws, saying where it runs
  }
  return phi_algorithm(parse_build_algorithm(name));  // unknown names list solve()'s and sparsevi
}
Algorithm phi_algorithm(BuildAlgorithm algorithm) {
  if (!runs_on_phi(algorithm)) {
    throw InvalidArgument(
        "sparsevi needs the model and the data, not just Phi: it runs on the build path only "
        "(build_coreset or PreparedProblem; `coreset build --algorithm sparsevi`)");
  }
  return static_cast<Algorithm>(static_cast<int>(algorithm));
}
std::string to_string(StepRule rule) {
  return name_of(kStepRules, rule);
}
std::string to_string(StopReason reason) {
  return name_of(kStopReasons, reason);
}
std::string to_string(SparseViOptimizer optimizer) {
  return name_of(kSparseViOptimizers, optimizer);
}
SparseViOptimizer parse_sparsevi_optimizer(const std::string& name) {
  return parse(kSparseViOptimizers, name, "sparsevi optimizer");
}
StepRule parse_step_rule(const std::string& name) {
  return parse(kStepRules, name, "step rule");
}
std::vector<BuildAlgorithm> all_build_algorithms() {
  std::vector<BuildAlgorithm> algorithms;
  for (const auto& entry : kBuildAlgorithms) {
    algorithms.push_back(entry.first);
  }
  return algorithms;
}
std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> algorithms;
  for (std::size_t p = 0; p < kPhiAlgorithmCount; ++p) {
    algorithms.push_back(phi_algorithm(kBuildAlgorithms[p].first));
  }
  return algorithms;
}
std::string to_string(Device device) {
  return name_of(kDevices, device);
}
Device parse_device(const std::string& name) {
  return parse(kDevices, name, "device");
}
std::string to_string(Pihat pihat) {
  return name_of(kPihats, pihat);
}
Pihat parse_pihat(const std::string& name) {
  return parse(kPihats, name, "pi-hat");
}
std::string to_string(Precision precision) {
  return name_of(kPrecisions, precision);
}
Precision parse_precision(const std::string& name) {
  return parse(kPrecisions, name, "precision");
}

}  // namespace coreset

namespace coreset {

const char* to_string(Stage stage) noexcept {
  switch (stage) {
    case Stage::laplace:
      return "laplace";
    case Stage::sampling:
      return "sampling";
    case Stage::projection:
      return "projection";
    case Stage::solve:
      return "solve";
    case Stage::evaluation:
      return "evaluation";
  }
  return "?";
}

}  // namespace coreset
