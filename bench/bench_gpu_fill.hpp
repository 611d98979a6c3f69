#pragma once

#include <cstdint>

namespace coreset::bench {

/// count pseudo-random values in [-scale, scale) into device memory; synchronises.
template <class T>
void fill_uniform(T* device, std::int64_t count, std::uint64_t seed, double scale);

}  // namespace coreset::bench
