// The message of the InvalidArgument a call throws, for tests that check what it says.
#pragma once

#include <string>

#include "coreset/error.hpp"

namespace coreset::test {

/// what() of the InvalidArgument `call` throws, or "(no InvalidArgument thrown)".
template <class F>
std::string invalid_argument_message(F&& call) {
  try {
    call();
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "(no InvalidArgument thrown)";
}

}  // namespace coreset::test
