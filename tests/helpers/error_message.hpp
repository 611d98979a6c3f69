// The message of the exception a call throws, for tests that check what it says.
#pragma once

#include <string>

#include "coreset/error.hpp"

namespace coreset::test {

/// what() of the `Exception` `call` throws, or "(none thrown)" (which no check will find).
template <class Exception, class F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const Exception& error) {
    return error.what();
  }
  return "(none thrown)";
}

/// what() of the InvalidArgument `call` throws, or "(none thrown)".
template <class F>
std::string invalid_argument_message(F&& call) {
  return message_of<InvalidArgument>(call);
}

}  // namespace coreset::test
