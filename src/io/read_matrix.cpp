// The public readers' choice of format: by extension.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "coreset/distributed.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/input_file.hpp"
#include "io/npy_format.hpp"
#include "io/readers.hpp"

namespace coreset::io {
namespace {

bool has_extension(const std::string& path, const std::string& wanted) {
  if (path.size() < wanted.size()) {
    return false;
  }
  std::string extension = path.substr(path.size() - wanted.size());
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == wanted;
}

bool has_npy_extension(const std::string& path) {
  return has_extension(path, ".npy");
}

// The .npy response column from its text: a 0-based index, or empty for the last (-1).
index_t npy_response_column(const std::string& path, const std::string& response) {
  const std::string_view text = detail::trim(response);
  if (text.empty()) {
    return -1;
  }
  index_t column = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), column);
  if (error != std::errc() || end != text.data() + text.size() || column < 0) {
    throw InvalidArgument("the response of a .npy dataset is a 0-based column index, got '" +
                          std::string(text) + "': " + path);
  }
  return column;
}

}  // namespace

template <class T>
Matrix<T> read_matrix(const std::string& path) {
  if (has_npy_extension(path)) {
    return detail::read_npy_matrix<T>(path);
  }
  detail::LineReader lines(path);
  return detail::read_csv_matrix<T>(lines);
}

template <class T>
MatrixShare<T> read_matrix_share(const std::string& path, DatapointAxis axis, int rank, int ranks) {
  datapoint_range(0, rank, ranks);  // InvalidArgument for a rank outside the job, before reading
  if (has_npy_extension(path)) {
    detail::InputFile file(path);
    return detail::read_npy_matrix_share<T>(file, axis, rank, ranks);
  }
  if (axis == DatapointAxis::columns) {
    // Every line holds some of the block: each is scanned, only the block's fields parsed.
    detail::LineReader lines(path);
    return detail::read_csv_matrix_columns_share<T>(lines, rank, ranks);
  }
  // Rows: read whole, then cut (with the job's ranks, read_csv_matrix_rows_share splits it).
  MatrixShare<T> share;
  const Matrix<T> whole = read_matrix<T>(path);
  share.rows = whole.rows();
  share.cols = whole.cols();
  const DatapointRange range = datapoint_range(share.rows, rank, ranks);
  share.first = range.first;
  share.values = Matrix<T>(range.count, share.cols);
  for (index_t c = 0; c < share.cols; ++c) {
    std::copy_n(whole.column(c) + range.first, range.count, share.values.column(c));
  }
  return share;
}

template <class T>
MatrixShare<T> read_matrix_share(const std::string& path, DatapointAxis axis,
                                 const Communicator& comm) {
  if (comm.size() > 1 && axis == DatapointAxis::rows && !has_npy_extension(path)) {
    return detail::read_csv_matrix_rows_share<T>(path, comm);
  }
  return read_matrix_share<T>(path, axis, comm.rank(), comm.size());
}

template <class T>
std::vector<T> read_vector(const std::string& path) {
  if (has_npy_extension(path)) {
    return detail::read_npy_vector<T>(path);
  }
  detail::LineReader lines(path);
  return detail::read_csv_vector<T>(lines);
}

template Matrix<float> read_matrix<float>(const std::string&);
template Matrix<double> read_matrix<double>(const std::string&);
template MatrixShare<float> read_matrix_share<float>(const std::string&, DatapointAxis, int, int);
template MatrixShare<double> read_matrix_share<double>(const std::string&, DatapointAxis, int, int);
template MatrixShare<float> read_matrix_share<float>(const std::string&, DatapointAxis,
                                                     const Communicator&);
template MatrixShare<double> read_matrix_share<double>(const std::string&, DatapointAxis,
                                                       const Communicator&);
template std::vector<float> read_vector<float>(const std::string&);
template std::vector<double> read_vector<double>(const std::string&);

DataFormat dataset_format(const std::string& path, DataFormat format) {
  if (format != DataFormat::automatic) {
    return format;
  }
  for (const char* extension : {".svm", ".libsvm", ".svmlight"}) {
    if (has_extension(path, extension)) {
      return DataFormat::libsvm;
    }
  }
  return has_npy_extension(path) ? DataFormat::npy : DataFormat::csv;
}

void detail::keep_share(Dataset& data, int rank, int ranks) {
  const index_t n = data.rows();
  const DatapointRange share = datapoint_range(n, rank, ranks);
  Matrix<double> covariates = Matrix<double>::uninitialized(share.count, data.dims());
  for (index_t c = 0; c < data.dims(); ++c) {
    std::copy_n(data.covariates.column(c) + share.first, share.count, covariates.column(c));
  }
  data.covariates = std::move(covariates);
  if (!data.response.empty()) {
    data.response = std::vector<double>(data.response.begin() + share.first,
                                        data.response.begin() + share.first + share.count);
  }
  if (data.first_data_line > 0) {
    data.first_data_line += share.first;  // row i is on line first_data_line + i
  }
  data.first_row = share.first;
  data.total_rows = n;
}

namespace {

Dataset read_whole_dataset(const std::string& path, const DatasetReadOptions& options);

}  // namespace

Dataset read_dataset(const std::string& path, const DatasetReadOptions& given) {
  if (given.ranks < 1 || given.rank < 0 || given.rank >= given.ranks) {
    throw InvalidArgument("read_dataset: rank " + std::to_string(given.rank) + " of " +
                          std::to_string(given.ranks) + " is not a rank of the job");
  }
  DatasetReadOptions options = given;
  if (const Communicator* comm = given.communicator.get()) {
    if (given.ranks != 1) {
      throw InvalidArgument("read_dataset: give either a communicator or rank and ranks, not both");
    }
    options.rank = comm->rank();
    options.ranks = comm->size();
    if (options.ranks > 1 && dataset_format(path, options.format) == DataFormat::csv &&
        options.features == 0) {
      return detail::read_dataset_csv_by_byte_range(path, options.response, options.has_response,
                                                    options.delimiter, options.threads, *comm);
    }
    if (options.ranks > 1 && dataset_format(path, options.format) == DataFormat::libsvm &&
        detail::trim(options.response).empty() && options.delimiter == 0) {
      return detail::read_dataset_libsvm_by_byte_range(path, options.has_response, options.features,
                                                       *comm);
    }
  }
  if (options.ranks > 1 && dataset_format(path, options.format) == DataFormat::npy &&
      options.delimiter == 0 && options.features == 0) {
    return detail::read_dataset_npy_share(path, npy_response_column(path, options.response),
                                          options.has_response, options.threads, options.rank,
                                          options.ranks);
  }
  Dataset data = read_whole_dataset(path, options);  // a CSV file's share only, already
  if (options.ranks > 1 && data.total_rows == 0) {
    detail::keep_share(data, options.rank, options.ranks);
  }
  return data;
}

namespace {

Dataset read_whole_dataset(const std::string& path, const DatasetReadOptions& options) {
  check_delimiter(options.delimiter);
  const DataFormat format = dataset_format(path, options.format);
  if (format == DataFormat::npy) {
    if (options.delimiter != 0) {
      throw InvalidArgument("a delimiter applies to CSV only, not to the .npy file " + path);
    }
    if (options.features != 0) {
      throw InvalidArgument("the number of features applies to LIBSVM only, not to the .npy file " +
                            path);
    }
    return read_dataset_npy(path, npy_response_column(path, options.response), options.has_response,
                            options.threads);
  }
  if (format == DataFormat::libsvm) {
    if (!detail::trim(options.response).empty()) {
      throw InvalidArgument(
          "a response column name applies to CSV only (a LIBSVM file's "
          "response is its label): " +
          path);
    }
    if (options.delimiter != 0) {
      throw InvalidArgument("a delimiter applies to CSV only, not to the LIBSVM file " + path);
    }
    return read_dataset_libsvm(path, options.has_response, options.features);
  }
  if (options.features != 0) {
    throw InvalidArgument("the number of features applies to LIBSVM only, not to the CSV file " +
                          path);
  }
  return detail::read_dataset_csv_share(path, options.response, options.has_response,
                                        options.delimiter, options.threads, options.rank,
                                        options.ranks);
}

}  // namespace

}  // namespace coreset::io
