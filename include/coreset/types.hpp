// Basic vocabulary shared by every public header.
#pragma once

#include <cstdint>

namespace coreset {

/// Signed 64-bit index: n * S routinely exceeds 2^31, so every count and offset is 64-bit.
using index_t = std::int64_t;

}  // namespace coreset
