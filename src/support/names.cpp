// The one table of user-facing names for the solver's enums.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "coreset/build.hpp"
#include "coreset/error.hpp"
#include "coreset/solver.hpp"

namespace coreset {
namespace {

template <class Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

constexpr NameTable<Algorithm, 8> kAlgorithms{{
    {Algorithm::iht, "iht"},
    {Algorithm::aiht, "a-iht"},
    {Algorithm::aiht2, "a-iht-2"},
    {Algorithm::giga, "giga"},
    {Algorithm::frank_wolfe, "fw"},
    {Algorithm::importance_sampling, "is"},
    {Algorithm::uniform, "uniform"},
    {Algorithm::sparsevi, "sparsevi"},
}};
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

std::string to_string(Algorithm algorithm) {
  return name_of(kAlgorithms, algorithm);
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
Algorithm parse_algorithm(const std::string& name) {
  return parse(kAlgorithms, name, "algorithm");
}
StepRule parse_step_rule(const std::string& name) {
  return parse(kStepRules, name, "step rule");
}
std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> algorithms;
  for (const auto& entry : kAlgorithms) {
    algorithms.push_back(entry.first);
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
