// --device and --precision of `build` and `solve`: where the solve runs, decided once, before
// any file is read or written, so that a missing GPU costs nothing and leaves no output.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "coreset/solver.hpp"

namespace coreset::cli {

struct DeviceArguments {
  std::string device = "auto";     ///< cpu, gpu or auto
  std::string precision = "auto";  ///< double, float or auto (float on the GPU, else double)
};

/// Registers --device and --precision on `command`.
void add_device_options(CLI::App* command, DeviceArguments& args);

struct DeviceChoice {
  Device device = Device::cpu;               ///< never automatic
  Precision precision = Precision::float64;  ///< --precision with auto resolved
};

/// gpu without a usable GPU throws DeviceError (exit code 7) saying why; auto without one
/// prints a one-line notice on stderr and picks the CPU; a precision of auto becomes float on
/// the GPU (half the memory and bandwidth of a pass over Phi) and double on the CPU.
DeviceChoice choose_device(const DeviceArguments& args);

/// For a GPU job of one process, its GPU made ready (coreset::GpuWarmUp) while the caller goes on
/// to read the job's data; nothing for the CPU or a distributed job (each rank's GPU is picked
/// by its communicator, and made ready by the job).
std::optional<GpuWarmUp> gpu_warm_up(const DeviceChoice& choice, const Communicator* comm);

}  // namespace coreset::cli
