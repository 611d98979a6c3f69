// libFuzzer target: the .npy reader, as a matrix and as a vector, in both element types, and as
// a dataset (the response last or first, or none) on one thread and on three.
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
  for (const index_t response : {index_t{-1}, index_t{0}}) {
    for (const int threads : {1, 3}) {
      fuzz::outcome([&] {
        io::detail::MemorySource source("fuzz.npy", bytes);
        io::detail::read_dataset_npy(source, bytes, response, true, threads);
      });
    }
  }
  fuzz::outcome([&] {
    io::detail::MemorySource source("fuzz.npy", bytes);
    io::detail::read_dataset_npy(source, bytes, -1, false, 2);
  });
  return 0;
}
