// libFuzzer target: the LIBSVM/svmlight dataset reader, with a 64 MiB cap on the dense matrix
// (the real reader's cap is the machine's memory, beyond libFuzzer's malloc limit). The same
// bytes are also read through the chunked file reader (16-byte chunks, two passes with a rewind
// between them); both must agree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "io/csv_parse.hpp"
#include "io/readers.hpp"

namespace {

std::string summary(const coreset::Dataset& data) {
  double sum = 0;
  for (coreset::index_t i = 0; i < data.rows() * data.dims(); ++i) {
    sum += data.covariates.data()[i];
  }
  for (const double label : data.response) {
    sum += label;
  }
  return std::to_string(data.rows()) + "x" + std::to_string(data.dims()) + " from line " +
         std::to_string(data.first_data_line) + " sum " + std::to_string(sum);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coreset;
  constexpr std::int64_t kMemoryLimit = std::int64_t{64} << 20;
  const std::string_view text = fuzz::as_text(data, size);
  std::string from_memory;
  const std::string memory_outcome = fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.svm", text);
    from_memory = summary(io::detail::read_dataset_libsvm(lines, true, 0, kMemoryLimit));
  });
  fuzz::outcome([&] {
    io::detail::LineReader lines("fuzz.svm", text);
    io::detail::read_dataset_libsvm(lines, false, 7, kMemoryLimit);
  });
  fuzz::MemoryFile file(data, size);
  std::string from_file;
  const std::string file_outcome = fuzz::outcome([&] {
    io::detail::LineReader lines(file.path(), 16);
    from_file = summary(io::detail::read_dataset_libsvm(lines, true, 0, kMemoryLimit));
  });
  if (fuzz::without_name(memory_outcome, "fuzz.svm") !=
          fuzz::without_name(file_outcome, file.path()) ||
      from_memory != from_file) {
    std::abort();  // the chunked reader and the in-memory reader disagree
  }
  return 0;
}
