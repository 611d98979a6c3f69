// libFuzzer target: the dataset CSV reader, from memory, and differentially through the chunked
// file reader (16-byte chunks, so every line boundary case is met) and the parallel reader
// (3 threads, blocks of a few lines, from memory and from the file): all must agree, errors
// word for word.
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
  // The parallel reader must give the serial one's dataset (bit for bit) or its error.
  const std::string serial = fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.csv", text);
    summary_memory = fuzz::fingerprint(io::detail::read_dataset_csv(lines, "", true, 0));
  });
  for (const std::size_t block : {std::size_t{24}, std::size_t{0}}) {
    std::string summary_parallel;
    const std::string parallel = fuzz::outcome([&] {
      io::detail::LineReader lines("fuzz.csv", text);
      summary_parallel =
          fuzz::fingerprint(io::detail::read_dataset_csv(lines, "", true, 0, 3, block));
    });
    std::string summary_parallel_file;
    const std::string parallel_file = fuzz::outcome([&] {
      io::detail::LineReader lines(file.path(), 16);
      summary_parallel_file =
          fuzz::fingerprint(io::detail::read_dataset_csv(lines, "", true, 0, 3, block));
    });
    if (parallel != serial || summary_parallel != summary_memory ||
        fuzz::without_name(parallel_file, file.path()) != fuzz::without_name(serial, "fuzz.csv") ||
        summary_parallel_file != summary_memory) {
      std::abort();  // the parallel reader and the serial reader disagree
    }
  }
  return 0;
}
