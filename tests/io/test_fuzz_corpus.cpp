// The fuzz targets' seed corpora and every input the fuzzers found (fuzz/regressions), run
// through the same in-memory entry points in the ordinary build: each must be read or rejected
// with a coreset::Error, never crash or throw anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "coreset/error.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"
#include "io/readers.hpp"
#include "io_test_util.hpp"

namespace coreset::io {
namespace {

namespace fs = std::filesystem;

// Every file under fuzz/corpus/TARGET and fuzz/regressions/TARGET.
std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(CORESET_FUZZ_DIR) / kind / target;
    if (fs::is_directory(dir)) {
      for (const auto& entry : fs::directory_iterator(dir)) {
        files.push_back(entry.path());
      }
    }
  }
  return files;
}

template <class Read>
void expect_clean(const fs::path& file, Read&& read) {
  try {
    read();
  } catch (const coreset::Error&) {
    // a clean rejection
  } catch (const std::exception& other) {
    ADD_FAILURE() << file << ": " << other.what();
  }
}

TEST(FuzzCorpus, DatasetCsv) {
  const auto files = inputs("dataset_csv");
  EXPECT_GE(files.size(), 5u);
  for (const fs::path& file : files) {
    const std::string text = test::read_bytes(file.string());
    expect_clean(file, [&] {
      detail::LineReader lines("fuzz.csv", text);
      detail::read_dataset_csv(lines, "", true, 0);
    });
    expect_clean(file, [&] {
      detail::LineReader lines(file.string(), 16);
      detail::read_dataset_csv(lines, "", true, 0);
    });
  }
}

TEST(FuzzCorpus, MatrixCsv) {
  for (const fs::path& file : inputs("matrix_csv")) {
    const std::string text = test::read_bytes(file.string());
    expect_clean(file, [&] {
      detail::LineReader lines("fuzz.csv", text);
      detail::read_csv_matrix<double>(lines);
    });
    expect_clean(file, [&] {
      detail::LineReader lines("fuzz.csv", text);
      detail::read_csv_vector<float>(lines);
    });
  }
}

TEST(FuzzCorpus, Libsvm) {
  for (const fs::path& file : inputs("libsvm")) {
    const std::string text = test::read_bytes(file.string());
    for (const index_t features : {0, 7}) {
      expect_clean(file, [&] {
        detail::LineReader lines("fuzz.svm", text);
        detail::read_dataset_libsvm(lines, true, features, std::int64_t{64} << 20);
      });
    }
  }
}

TEST(FuzzCorpus, Npy) {
  for (const fs::path& file : inputs("npy")) {
    const std::string bytes = test::read_bytes(file.string());
    expect_clean(file, [&] {
      detail::MemorySource source("fuzz.npy", bytes);
      detail::read_npy_matrix<double>(source);
    });
    expect_clean(file, [&] {
      detail::MemorySource source("fuzz.npy", bytes);
      detail::read_npy_vector<float>(source);
    });
    // As a dataset (what fuzz_npy also does): the response last or first, or none.
    for (const index_t response : {index_t{-1}, index_t{0}}) {
      expect_clean(file, [&] {
        detail::MemorySource source("fuzz.npy", bytes);
        detail::read_dataset_npy(source, bytes, response, true, 2);
      });
    }
    expect_clean(file, [&] {
      detail::MemorySource source("fuzz.npy", bytes);
      detail::read_dataset_npy(source, bytes, -1, false, 2);
    });
  }
}

TEST(FuzzCorpus, CoresetCsv) {
  for (const fs::path& file : inputs("coreset_csv")) {
    const std::string text = test::read_bytes(file.string());
    expect_clean(file, [&] {
      detail::LineReader lines("fuzz.csv", text);
      detail::read_coreset_csv(lines);
    });
  }
}

}  // namespace
}  // namespace coreset::io
