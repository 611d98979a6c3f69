// libFuzzer target: the LIBSVM/svmlight dataset reader, with a 64 MiB cap on the dense matrix
// (the real reader's cap is the machine's memory, beyond libFuzzer's malloc limit).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  constexpr std::int64_t kMemoryLimit = std::int64_t{64} << 20;
  const std::string_view text = fuzz::as_text(data, size);
  for (const bool has_response : {true, false}) {
    fuzz::outcome([&] {
      io::detail::LineReader lines("fuzz.svm", text);
      io::detail::read_dataset_libsvm(lines, has_response, 0, kMemoryLimit);
    });
  }
  fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.svm", text);
    io::detail::read_dataset_libsvm(lines, true, 7, kMemoryLimit);
  });
  return 0;
}
