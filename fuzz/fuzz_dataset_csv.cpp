// libFuzzer target: the dataset CSV reader, from memory, and differentially through the chunked
// file reader (16-byte chunks, so every line boundary case is met): both must agree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  const std::string_view text = fuzz::as_text(data, size);
  std::string summary_memory;
  const std::string from_memory = fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.csv", text);
    const Dataset dataset = io::detail::read_dataset_csv(lines, "", true, 0);
    summary_memory = std::to_string(dataset.rows()) + "x" + std::to_string(dataset.dims());
  });
  // Also without a response, and with each delimiter forced.
  for (const char delimiter : {'\0', ',', ';', '\t'}) {
    fuzz::outcome([&] {
      io::detail::LineReader lines("fuzz.csv", text);
      io::detail::read_dataset_csv(lines, "", delimiter != '\0', delimiter);
    });
  }
  fuzz::MemoryFile file(data, size);
  std::string summary_file;
  const std::string from_file = fuzz::outcome([&] {
    io::detail::LineReader lines(file.path(), 16);
    const Dataset dataset = io::detail::read_dataset_csv(lines, "", true, 0);
    summary_file = std::to_string(dataset.rows()) + "x" + std::to_string(dataset.dims());
  });
  if (fuzz::without_name(from_memory, "fuzz.csv") != fuzz::without_name(from_file, file.path()) ||
      summary_memory != summary_file) {
    std::abort();  // the chunked reader and the in-memory reader disagree
  }
  return 0;
}
