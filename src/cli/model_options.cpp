#include "cli/model_options.hpp"

#include <string>
#include <utility>
#include <vector>

#include "cli/option_checks.hpp"
#include "cli/option_lists.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"

namespace coreset::cli {
namespace {

// --pihat's method and file: `samples FILE` as two words, or as one quoted argument
// ('samples FILE', as the help once showed it).
std::pair<std::string, std::string> pihat_method_and_file(const std::vector<std::string>& pihat) {
  if (pihat.size() >= 2) {
    return {pihat[0], pihat[1]};
  }
  const std::string& only = pihat.empty() ? std::string() : pihat.front();
  const std::size_t space = only.find_first_of(" \t");
  if (space != std::string::npos && only.compare(0, space, "samples") == 0) {
    const std::size_t file = only.find_first_not_of(" \t", space);
    return {"samples", file == std::string::npos ? std::string() : only.substr(file)};
  }
  return {only, std::string()};
}

constexpr index_t kBuiltInRows = 10000;

Matrix<double> read_square(const std::string& path, const char* what) {
  Matrix<double> matrix = io::read_matrix<double>(path);
  if (matrix.rows() != matrix.cols()) {
    throw InputError(path, std::string(what) + " must be square (got " +
                               std::to_string(matrix.rows()) + " x " +
                               std::to_string(matrix.cols()) + ")");
  }
  return matrix;
}

// --delimiter's value as a character (0: detect).
char parse_delimiter(const std::string& text) {
  if (text.empty()) {
    return 0;
  }
  if (text == "," || text == "comma") {
    return ',';
  }
  if (text == ";" || text == "semicolon") {
    return ';';
  }
  if (text == "\t" || text == "tab" || text == "\\t") {
    return '\t';
  }
  throw InvalidArgument(
      "--delimiter must be ',', ';' or tab (also: comma, semicolon, '\\t'), "
      "got '" +
      text + "'");
}

}  // namespace

void add_model_options(CLI::App* command, ModelArguments& args) {
  command
      ->add_option("--data", args.data_path,
                   "dataset: CSV with a header row (delimiter ',', ';' or tab, detected), "
                   "LIBSVM/svmlight sparse text when FILE ends in .svm, .libsvm or .svmlight, "
                   "or a 2-D NumPy array (N, D + 1) of float64/float32 when it ends in .npy "
                   "(or as --format says); default: the built-in synthetic logistic data "
                   "(N = 10,000, spec 3.6)")
      ->check(non_empty_path());
  command
      ->add_option("--format", args.format,
                   "format of --data: auto (LIBSVM for .svm/.libsvm/.svmlight, .npy for .npy, "
                   "else CSV), csv, libsvm or npy")
      ->check(CLI::IsMember({"auto", "csv", "libsvm", "npy"}))
      ->capture_default_str();
  command->add_option("--response", args.response,
                      "CSV: response column name; .npy: its 0-based column index (default: the "
                      "last column); LIBSVM: the label");
  command->add_option("--delimiter", args.delimiter,
                      "CSV: ',', ';' or tab (also 'comma', 'semicolon'); default: detected from "
                      "the header line");
  command->add_option("--features", args.features,
                      "LIBSVM: number of covariates D (default: the largest index in the file)");
  command->add_option("--model", args.model, "logistic, poisson, gaussian or linear")->required();
  command->add_flag("--no-intercept", args.no_intercept,
                    "do not append the intercept covariate (logistic, poisson, linear)");
  command->add_option("--prior-sd", args.prior_sd, "prior N(0, sd^2 I)")->capture_default_str();
  command
      ->add_option("--prior-covariance", args.prior_covariance_path,
                   "prior covariance matrix, d x d (.npy or CSV); overrides --prior-sd")
      ->check(non_empty_path());
  command->add_option("--noise-sd", args.noise_sd, "observation noise sd (gaussian, linear)")
      ->capture_default_str();
  command
      ->add_option("--noise-covariance", args.noise_covariance_path,
                   "noise covariance, D x D (gaussian); overrides --noise-sd")
      ->check(non_empty_path());
  command->add_flag("--rbf", args.rbf, "linear: radial-basis features (spec 3.5)");
  command->add_option("--rbf-centers", args.rbf_centers, "linear --rbf: centres per scale")
      ->capture_default_str();
  add_list_option(command, "--rbf-scales", args.rbf_scales, "FLOAT",
                  "linear --rbf: comma-separated basis scales")
      ->capture_default_str();
  command
      ->add_option("--rbf-constant-scale", args.rbf_constant_scale,
                   "linear --rbf: scale of the near-constant basis at the covariate means")
      ->capture_default_str();
  command
      ->add_option("--pihat", args.pihat,
                   "weighting distribution: auto (exact for gaussian/linear, else laplace), "
                   "laplace, exact, or samples FILE (S x d posterior draws, .npy or CSV; two "
                   "words, or one quoted)")
      ->expected(1, 2);
  command->add_option("--samples", args.samples, "S, the number of samples from pi-hat")
      ->capture_default_str();
  command
      ->add_option("--seed", args.seed,
                   "seed of the sampling, the RBF centres and the draws of --algorithm is/uniform")
      ->capture_default_str()
      ->check(seed_value());
  command->add_option("--threads", args.threads, "CPU threads, 0 = every core (within a CPU quota)")
      ->capture_default_str()
      ->check(non_negative());
}

Dataset load_dataset(const ModelArguments& args, BuildInputs& inputs,
                     std::shared_ptr<const Communicator> share_of) {
  const ModelKind kind = parse_model(args.model);
  Dataset data;
  if (args.data_path.empty()) {
    if (kind != ModelKind::logistic) {
      throw InvalidArgument("--data is required for the " + to_string(kind) +
                            " model (the built-in dataset is for --model logistic)");
    }
    data = synthetic_logistic_dataset(kBuiltInRows, 0);  // fixed: the example never changes
    inputs.data_description = "built-in synthetic logistic data";
  } else {
    io::DatasetReadOptions read;
    read.format = args.format == "csv"      ? io::DataFormat::csv
                  : args.format == "libsvm" ? io::DataFormat::libsvm
                  : args.format == "npy"    ? io::DataFormat::npy
                                            : io::DataFormat::automatic;
    read.response = args.response;
    read.has_response = kind != ModelKind::gaussian;
    read.delimiter = parse_delimiter(args.delimiter);
    read.features = args.features;
    read.threads = args.threads;
    read.communicator = std::move(share_of);
    data = io::read_dataset(args.data_path, read);
    inputs.data_description = args.data_path;
  }
  inputs.rows = data.all_rows();
  inputs.covariates = data.dims();
  inputs.response_name = data.response_name;
  inputs.prior_covariance_path = args.prior_covariance_path;
  inputs.noise_covariance_path = args.noise_covariance_path;
  return data;
}

BuildOptions to_build_options(const ModelArguments& args) {
  BuildOptions options;
  ModelOptions& model = options.model;
  model.kind = parse_model(args.model);
  model.intercept = !args.no_intercept;
  model.prior_sd = args.prior_sd;
  model.noise_sd = args.noise_sd;
  if (!args.prior_covariance_path.empty()) {
    model.prior_covariance = read_square(args.prior_covariance_path, "the prior covariance");
    model.prior_covariance_source = args.prior_covariance_path;
  }
  if (!args.noise_covariance_path.empty()) {
    model.noise_covariance = read_square(args.noise_covariance_path, "the noise covariance");
    model.noise_covariance_source = args.noise_covariance_path;
  }
  model.rbf.enabled = args.rbf;
  model.rbf.centers_per_scale = args.rbf_centers;
  model.rbf.scales = number_list(args.rbf_scales, "--rbf-scales");
  model.rbf.near_constant_scale = args.rbf_constant_scale;

  const auto [method, file] = pihat_method_and_file(args.pihat);
  options.pihat = parse_pihat(method);
  if (options.pihat == Pihat::samples) {
    if (file.empty()) {
      throw InvalidArgument("--pihat samples needs a file: --pihat samples FILE");
    }
    options.user_samples = io::read_matrix<double>(file);
    options.user_samples_source = file;
  } else if (!file.empty()) {
    throw InvalidArgument("--pihat " + method + " takes no file");
  }
  options.samples = args.samples;
  options.seed = args.seed;  // the job's one seed: sampling, RBF centres, the solver's draws
  options.precision = parse_precision(args.precision);
  options.solver.threads = args.threads;
  return options;
}

std::vector<FileArgument> input_files(const ModelArguments& args) {
  std::vector<FileArgument> files = {{"--data", args.data_path},
                                     {"--prior-covariance", args.prior_covariance_path},
                                     {"--noise-covariance", args.noise_covariance_path}};
  files.push_back({"--pihat samples", pihat_method_and_file(args.pihat).second});
  return files;
}

}  // namespace coreset::cli
