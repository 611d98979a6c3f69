#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "coreset/io.hpp"
#include "io/csv_parse.hpp"
#include "io/npy_format.hpp"

namespace coreset::io {
namespace {

bool has_npy_extension(const std::string& path) {
  constexpr std::size_t kLength = 4;
  if (path.size() < kLength) {
    return false;
  }
  std::string extension = path.substr(path.size() - kLength);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".npy";
}

}  // namespace

template <class T>
Matrix<T> read_matrix(const std::string& path) {
  return has_npy_extension(path) ? detail::read_npy_matrix<T>(path)
                                 : detail::read_csv_matrix<T>(path);
}

template <class T>
std::vector<T> read_vector(const std::string& path) {
  return has_npy_extension(path) ? detail::read_npy_vector<T>(path)
                                 : detail::read_csv_vector<T>(path);
}

template Matrix<float> read_matrix<float>(const std::string&);
template Matrix<double> read_matrix<double>(const std::string&);
template std::vector<float> read_vector<float>(const std::string&);
template std::vector<double> read_vector<double>(const std::string&);

}  // namespace coreset::io
