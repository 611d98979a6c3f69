// splitmix64's output function: a bijective 64-bit mix whose outputs for neighbouring inputs look
// unrelated. The one copy of it for host and device code: seeds derived per stream or trial, the
// GPU's column hash, the benchmarks' device-side fills.
#pragma once

#include <cstdint>

#include "support/host_device.hpp"

namespace coreset::support {

CORESET_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace coreset::support
