// libFuzzer target: the coreset CSV reader (index,weight), used by `coreset evaluate`.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.csv", fuzz::as_text(data, size));
    io::detail::read_coreset_csv(lines);
  });
  return 0;
}
