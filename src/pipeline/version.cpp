#include "coreset/version.hpp"

#include "pipeline/execution_context.hpp"
#include "support/cgroup_limits.hpp"
#include "support/isa.hpp"

namespace coreset {

const char* version() noexcept {
  return CORESET_VERSION;
}

BuildInfo build_info() {
  BuildInfo info;
  info.version = CORESET_VERSION;
#if defined(__clang__)
  info.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  info.compiler = "gcc " __VERSION__;
#else
  info.compiler = "unknown";
#endif
  info.build_type = CORESET_BUILD_TYPE;
  info.cpu_kernels = support::isa_name(support::active_isa());
#if defined(_OPENMP)
  info.openmp = true;
  info.threads = pipeline::resolve_threads(0);
#endif
  info.cpu_limit = support::process_cpu_limit().value_or(0.0);
  info.memory_limit_bytes = support::process_memory_limit().value_or(0);
  info.local_ranks = support::process_local_ranks();
#if defined(CORESET_WITH_CUDA)
  info.cuda = true;
  info.cuda_runtime_version = CORESET_CUDA_VERSION;
#endif
  return info;
}

}  // namespace coreset
