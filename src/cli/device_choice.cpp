#include "cli/device_choice.hpp"

#include <cstdio>

#include "cli/terminal.hpp"
#include "coreset/error.hpp"

namespace coreset::cli {

void add_device_options(CLI::App* command, DeviceArguments& args) {
  command
      ->add_option("--device", args.device,
                   "where the solve runs: cpu, gpu (an error without a usable GPU) or auto (the "
                   "GPU when one is usable, else the CPU with a notice)")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
      ->capture_default_str();
  command
      ->add_option("--precision", args.precision,
                   "double, float or auto (float on the GPU, double on the CPU): Phi and the "
                   "solve")
      ->check(CLI::IsMember({"double", "float", "auto"}))
      ->capture_default_str();
}

DeviceChoice choose_device(const DeviceArguments& args) {
  DeviceChoice choice;
  const Device requested = parse_device(args.device);
  std::string why;
  if (requested == Device::cpu) {
    choice.device = Device::cpu;
  } else if (gpu_usable(&why)) {
    choice.device = Device::gpu;
  } else if (requested == Device::gpu) {
    throw DeviceError("--device gpu: no usable GPU (" + why + "); use --device cpu or auto");
  } else {
    if (!quiet()) {  // --quiet: errors only
      std::fprintf(stderr, "coreset: notice: no usable GPU (%s); running on the CPU\n",
                   why.c_str());
    }
    choice.device = Device::cpu;
  }
  choice.precision = args.precision != "auto"       ? parse_precision(args.precision)
                     : choice.device == Device::gpu ? Precision::float32
                                                    : Precision::float64;
  return choice;
}

std::optional<GpuWarmUp> gpu_warm_up(const DeviceChoice& choice, const Communicator* comm) {
  std::optional<GpuWarmUp> warm_up;
  if (choice.device == Device::gpu && comm == nullptr) {
    warm_up.emplace();
  }
  return warm_up;
}

}  // namespace coreset::cli
