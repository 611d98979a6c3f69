// Internal entry points of the .npy reader (format: numpy.lib.format). The public readers in
// coreset/io.hpp choose between these and the CSV readers by file extension.
#pragma once

#include <string>
#include <vector>

#include "coreset/matrix.hpp"

namespace coreset::io::detail {

/// A 2-D .npy array of shape (S, n) as an S x n column-major matrix.
template <class T>
Matrix<T> read_npy_matrix(const std::string& path);

/// A .npy array of shape (m,), (m, 1) or (1, m).
template <class T>
std::vector<T> read_npy_vector(const std::string& path);

}  // namespace coreset::io::detail
