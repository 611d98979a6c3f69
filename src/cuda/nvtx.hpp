// Named ranges for a profiler (Nsight Systems): each phase of an iteration shows up by name.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace coreset::cuda {

/// Pushes an NVTX range for the lifetime of the object. Costs nothing without a profiler.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  ~NvtxRange() { nvtxRangePop(); }
};

}  // namespace coreset::cuda
