// Basic vocabulary shared by every public header.
#pragma once

#include <cstdint>
#include <string>

#include "coreset/export.hpp"

namespace coreset {

/// Signed 64-bit index: n * S routinely exceeds 2^31, so every count, row, column, offset and
/// size (in elements, never bytes) in the API is an index_t. Counts are never negative where an
/// entry point accepts them; the entry points that take one say what they throw for a negative.
using index_t = std::int64_t;

/// The floating-point type of Phi and the solve: the one name for it in the options
/// (BuildOptions::precision) and the reports. solve(), objective() and the readers take it as
/// their element type instead (float or double overloads and instantiations).
enum class Precision {
  float64,  ///< double, "double": the default
  float32,  ///< float, "float": half the memory and bandwidth of a pass over Phi
};

/// "double" or "float" (the command's --precision values; "unknown" outside the enum).
CORESET_API std::string to_string(Precision precision);
/// Inverse of to_string; throws InvalidArgument listing the accepted names. The command's
/// "auto" is not a precision: the command resolves it (float on the GPU, double on the CPU).
CORESET_API Precision parse_precision(const std::string& name);

}  // namespace coreset
