// Comparing datasets bit for bit, and a reader's outcome (a dataset or an error) as text, for the
// tests that hold two readers to the same result.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

#include "coreset/dataset.hpp"
#include "coreset/error.hpp"

namespace coreset::test {

/// Every field of `data`, the numbers as their bytes: equal texts mean bit-identical datasets.
inline std::string fingerprint(const Dataset& data) {
  std::string text = std::to_string(data.rows()) + "x" + std::to_string(data.dims()) + " " +
                     data.source + " " + std::to_string(data.first_data_line) + " " +
                     std::to_string(data.response_column) + " " + data.response_name + ":";
  for (const std::string& name : data.covariate_names) {
    text += name + ",";
  }
  const auto bytes = [&](const double* values, std::size_t count) {
    text.append(reinterpret_cast<const char*>(values), count * sizeof(double));
  };
  bytes(data.covariates.data(), static_cast<std::size_t>(data.rows() * data.dims()));
  text += "|";
  bytes(data.response.data(), data.response.size());
  return text;
}

/// The dataset `read` returns, fingerprinted, or "TYPE: message" for what it throws.
template <class Read>
std::string outcome(Read&& read) {
  try {
    return fingerprint(read());
  } catch (const InputError& error) {
    return std::string("InputError: ") + error.what() + " @" + std::to_string(error.line()) + ":" +
           std::to_string(error.column());
  } catch (const InvalidArgument& error) {
    return std::string("InvalidArgument: ") + error.what();
  } catch (const std::exception& error) {
    return std::string("other ") + typeid(error).name() + ": " + error.what();
  }
}

}  // namespace coreset::test
