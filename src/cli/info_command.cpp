// `coreset info`: what this binary is and what it can run on.
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "coreset/distributed.hpp"
#include "coreset/version.hpp"

namespace coreset::cli {

std::function<int()> add_info_command(CLI::App& app) {
  app.add_subcommand("info", "Print the version, build options and the GPUs found");
  return [] {
    const BuildInfo build = build_info();
    std::printf("coreset %s\n", build.version.c_str());
    std::printf("  compiler:      %s\n", build.compiler.c_str());
    std::printf("  build type:    %s\n", build.build_type.c_str());
    std::printf("  OpenMP:        %s (%d threads by default)\n", build.openmp ? "yes" : "no",
                build.threads);
    if (build.cpu_limit > 0.0) {
      std::printf(
          "  CPU limit:     %.2f CPUs (the control group's quota; the default threads are\n"
          "                 this, rounded, unless OMP_NUM_THREADS is set)\n",
          build.cpu_limit);
    }
    if (build.memory_limit_bytes > 0) {
      std::printf("  memory limit:  %lld MiB (the control group's; the samples and Phi must fit)\n",
                  static_cast<long long>(build.memory_limit_bytes >> 20));
    }
    if (build.local_ranks > 1) {
      std::printf("  MPI ranks:     %d on this node, sharing its CPU limit and memory equally\n",
                  build.local_ranks);
    }
    std::printf("  CUDA support:  %s\n",
                build.cuda ? ("compiled in (runtime " + build.cuda_runtime_version + ")").c_str()
                           : "not compiled in");
    std::string why_none;
    const auto devices = list_devices(&why_none);
    if (devices.empty()) {
      std::printf("  GPUs:          none (%s)\n", why_none.c_str());
    }
    for (const DeviceInfo& device : devices) {
      std::printf("  GPU %d:         %s, %.1f GiB, compute capability %d.%d\n", device.ordinal,
                  device.name.c_str(),
                  static_cast<double>(device.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0),
                  device.compute_major, device.compute_minor);
    }
    std::printf("  MPI support:   %s\n",
                mpi_compiled() ? "compiled in (mpirun -np R coreset solve|build ...: one job over "
                                 "R processes, on CPUs or a GPU per rank)"
                               : "not compiled in (configure with -DCORESET_ENABLE_MPI=ON)");
    std::printf("  solvers:       CPU (iht, a-iht, a-iht-2, giga, fw, is, uniform)%s\n",
                build.cuda ? "; GPU (the same, --device gpu|auto)" : "");
    std::printf("  CPU kernels:   %s (set CORESET_ISA=baseline|avx2|avx512 to choose)\n",
                build.cpu_kernels.c_str());
    return static_cast<int>(kSuccess);
  };
}

}  // namespace coreset::cli
