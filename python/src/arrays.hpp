// NumPy arrays in, the engine's types out: read in place where the engine's layout allows (Phi
// in column-major order, log-likelihoods in any strided layout), copied once into the engine's
// own storage where it owns its data (a Dataset's covariates, the options' matrices). The
// Python layer (coreset/_arrays.py) has already settled the dtype and says in the report which
// arguments were copied; these functions check what they are given, never convert it.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "coreset/dataset.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"

namespace coreset::python {

/// A 2-D array's shape and strides in elements of T; InvalidArgumentError naming `name` for
/// another dtype, dimension, or a stride that is negative or not a whole number of elements.
template <class T>
struct StridedArray {
  const T* data = nullptr;
  index_t rows = 0;
  index_t cols = 0;
  index_t row_stride = 0;  ///< elements between (i, j) and (i + 1, j)
  index_t col_stride = 0;  ///< elements between (i, j) and (i, j + 1)
};
template <class T>
StridedArray<T> strided(const pybind11::array& array, const char* name);

/// A view of a 2-D array in column-major order with a leading dimension >= rows (a
/// Fortran-ordered array, or a slice of columns of one): what solve() reads in place.
template <class T>
MatrixView<T> column_major_view(const pybind11::array& array, const char* name);

/// A copy of a 2-D float64 array of any layout, column-major.
Matrix<double> copy_matrix(const pybind11::array& array, const char* name);

/// The dataset of covariates X (n x D, float64 or float32, any layout: copied once, column by
/// column) and response y (None, or n values of the same dtype).
Dataset dataset_from(const pybind11::array& covariates, const pybind11::object& response);

/// A solve's y: null for None, else the data of a host array of `draws` contiguous T values
/// (InvalidArgument otherwise; coreset/_arrays.py has already made it so).
template <class T>
const T* target_values(const pybind11::object& y, index_t draws);

/// (indices as int64, weights as float64, report): what every engine call returns to Python.
pybind11::tuple coreset_tuple(const Coreset& coreset, std::string report);

/// Whether `array` is float32 (else float64, the only other dtype the functions above take).
bool is_float32(const pybind11::array& array);

}  // namespace coreset::python
