// libFuzzer target: the .npy reader, as a matrix and as a vector, in both element types.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/input_file.hpp"
#include "io/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  const std::string_view bytes = fuzz::as_text(data, size);
  fuzz::outcome([&] {
    io::detail::MemorySource source("fuzz.npy", bytes);
    io::detail::read_npy_matrix<double>(source);
  });
  fuzz::outcome([&] {
    io::detail::MemorySource source("fuzz.npy", bytes);
    io::detail::read_npy_matrix<float>(source);
  });
  fuzz::outcome([&] {
    io::detail::MemorySource source("fuzz.npy", bytes);
    io::detail::read_npy_vector<double>(source);
  });
  return 0;
}
