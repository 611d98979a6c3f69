// Basic vocabulary shared by every public header.
#pragma once

#include <cstdint>

namespace coreset {

/// Signed 64-bit index: n * S routinely exceeds 2^31, so every count, row, column, offset and
/// size (in elements, never bytes) in the API is an index_t. Counts are never negative where an
/// entry point accepts them; the entry points that take one say what they throw for a negative.
using index_t = std::int64_t;

}  // namespace coreset
