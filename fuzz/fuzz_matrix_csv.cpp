// libFuzzer target: the header-less CSV matrix and vector readers (--loglik, --phi, --y,
// --pihat samples, covariance files).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.csv", text);
    io::detail::read_csv_matrix<double>(lines);
  });
  fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.csv", text);
    io::detail::read_csv_vector<float>(lines);
  });
  return 0;
}
