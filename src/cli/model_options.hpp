// The options `build` and `evaluate` share: dataset, model, pi-hat and sampling.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/output_paths.hpp"
#include "cli/report.hpp"
#include "coreset/build.hpp"
#include "coreset/dataset.hpp"

namespace coreset::cli {

struct ModelArguments {
  std::string data_path;        // empty: the built-in synthetic logistic dataset
  std::string response;         // CSV: a name; .npy: a 0-based index; empty: the last
  std::string format = "auto";  // auto (by extension), csv, libsvm or npy
  std::string delimiter;        // CSV: "," ";" "tab" (or a tab); empty: detected
  index_t features = 0;         // LIBSVM: D; 0: the largest index
  std::string model;
  bool no_intercept = false;
  double prior_sd = 1.0;
  double noise_sd = 1.0;
  std::string prior_covariance_path;
  std::string noise_covariance_path;
  bool rbf = false;
  index_t rbf_centers = 50;
  std::vector<std::string> rbf_scales = {"0.2,0.4,0.8,1.2,1.6,2.0"};  // unsplit: option_lists.hpp
  double rbf_constant_scale = 100.0;
  std::vector<std::string> pihat = {"auto"};  // method, and the file for "samples"
  index_t samples = 500;
  std::uint64_t seed = 0;
  std::string precision = "double";  // evaluate's --precision; build resolves its own (auto)
  int threads = 0;
};

/// Registers the shared options on `command` (not --precision: see add_device_options and
/// evaluate's own).
void add_model_options(CLI::App* command, ModelArguments& args);

/// The dataset the arguments name (or the built-in one), and the options for the library; fills
/// `inputs` for the report. Reads the covariance and sample files. With `share_of`, a file is
/// read as this rank's share of its rows (io::DatasetReadOptions::communicator: a collective);
/// the built-in data, 10,000 rows, is always whole.
Dataset load_dataset(const ModelArguments& args, BuildInputs& inputs,
                     std::shared_ptr<const Communicator> share_of = nullptr);
BuildOptions to_build_options(const ModelArguments& args);

/// The files the arguments read (the dataset, the covariances, pi-hat's samples), for
/// check_distinct_files; empty paths where not given.
std::vector<FileArgument> input_files(const ModelArguments& args);

}  // namespace coreset::cli
