// Comparing datasets bit for bit, and a reader's outcome (a dataset or an error) as text, for the
// tests that hold two readers to the same result.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <exception>
#include <functional>
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

/// An outcome as short text, for readable failures: a dataset's by its hash, an error whole.
inline std::string digest(const std::string& outcome_text) {
  if (outcome_text.rfind("InputError", 0) == 0 || outcome_text.rfind("InvalidArgument", 0) == 0 ||
      outcome_text.rfind("other", 0) == 0) {
    return outcome_text;
  }
  return "dataset " + std::to_string(std::hash<std::string>{}(outcome_text));
}

/// What `read` gives, as short text: the dataset (digest) and a share's place in the file
/// (Dataset::first_row, total_rows), or the error.
template <class Read>
std::string share_outcome(Read&& read) {
  std::string place;
  // Two statements: the place is known only once the read has run.
  const std::string text = digest(outcome([&] {
    const Dataset data = read();
    place = " rows " + std::to_string(data.first_row) + " of " + std::to_string(data.total_rows);
    return data;
  }));
  return text + place;
}

}  // namespace coreset::test
