#include "arrays.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "coreset/error.hpp"

namespace py = pybind11;

namespace coreset::python {
namespace {

std::string describe(const py::array& array) {
  std::string shape;
  for (py::ssize_t axis = 0; axis < array.ndim(); ++axis) {
    shape += (axis > 0 ? ", " : "") + std::to_string(array.shape(axis));
  }
  return std::string(py::str(array.dtype())) + " array of shape (" + shape +
         (array.ndim() == 1 ? ",)" : ")");
}

index_t element_stride(const py::array& array, py::ssize_t axis, const char* name) {
  const py::ssize_t bytes = array.strides(axis);
  const py::ssize_t item = array.itemsize();
  if (bytes < 0 || bytes % item != 0) {
    throw InvalidArgument(std::string(name) + ": a stride of " + std::to_string(bytes) +
                          " bytes is not a non-negative whole number of elements");
  }
  return static_cast<index_t>(bytes / item);
}

template <class T>
void copy_column_major(const StridedArray<T>& in, double* out) {
  for (index_t j = 0; j < in.cols; ++j) {
    const T* column = in.data + j * in.col_stride;
    double* target = out + j * in.rows;
    for (index_t i = 0; i < in.rows; ++i) {
      target[i] = static_cast<double>(column[i * in.row_stride]);
    }
  }
}

template <class T>
Dataset typed_dataset_from(const py::array& covariates, const py::object& response) {
  const StridedArray<T> x = strided<T>(covariates, "X");
  Dataset data;
  data.covariates = Matrix<double>::uninitialized(x.rows, x.cols);
  copy_column_major(x, data.covariates.data());
  if (!response.is_none()) {
    const auto y = py::cast<py::array>(response);
    // float64 whatever X's dtype (the package converts it): the dataset holds double.
    if (y.ndim() != 1 || y.shape(0) != x.rows || !y.dtype().is(py::dtype::of<double>())) {
      throw InvalidArgument("y: expected " + std::to_string(x.rows) + " values (float64), got a " +
                            describe(y));
    }
    const auto* values = static_cast<const double*>(y.data());
    const index_t stride = element_stride(y, 0, "y");
    data.response.resize(static_cast<std::size_t>(x.rows));
    for (index_t i = 0; i < x.rows; ++i) {
      data.response[static_cast<std::size_t>(i)] = static_cast<double>(values[i * stride]);
    }
  }
  return data;
}

}  // namespace

bool is_float32(const py::array& array) {
  return array.dtype().is(py::dtype::of<float>());
}

template <class T>
StridedArray<T> strided(const py::array& array, const char* name) {
  if (array.ndim() != 2 || !array.dtype().is(py::dtype::of<T>())) {
    throw InvalidArgument(std::string(name) + ": expected a 2-D " +
                          std::string(py::str(py::dtype::of<T>())) + " array, got a " +
                          describe(array));
  }
  StridedArray<T> view;
  view.data = static_cast<const T*>(array.data());
  view.rows = static_cast<index_t>(array.shape(0));
  view.cols = static_cast<index_t>(array.shape(1));
  view.row_stride = element_stride(array, 0, name);
  view.col_stride = element_stride(array, 1, name);
  return view;
}

template <class T>
MatrixView<T> column_major_view(const py::array& array, const char* name) {
  const StridedArray<T> view = strided<T>(array, name);
  // An empty array's strides are whatever NumPy chose (often 0): its emptiness is the problem.
  if (view.rows < 1 || view.cols < 1) {
    throw InvalidArgument(std::string(name) +
                          ": expected at least one row and one column (S x n), got " +
                          std::to_string(view.rows) + " x " + std::to_string(view.cols));
  }
  // A single column's stride is meaningless (NumPy may report anything); any ld >= rows works.
  const index_t ld = view.cols == 1 ? view.rows : view.col_stride;
  if (view.row_stride != 1 && view.rows > 1) {
    throw InvalidArgument(std::string(name) +
                          ": expected a column-major (Fortran-ordered) array, got one whose "
                          "rows are " +
                          std::to_string(view.row_stride) + " elements apart");
  }
  if (ld < view.rows) {
    throw InvalidArgument(std::string(name) + ": columns overlap (leading dimension " +
                          std::to_string(ld) + " < " + std::to_string(view.rows) + " rows)");
  }
  return MatrixView<T>{view.data, view.rows, view.cols, ld};
}

Matrix<double> copy_matrix(const py::array& array, const char* name) {
  const StridedArray<double> view = strided<double>(array, name);
  Matrix<double> matrix = Matrix<double>::uninitialized(view.rows, view.cols);
  copy_column_major(view, matrix.data());
  return matrix;
}

Dataset dataset_from(const py::array& covariates, const py::object& response) {
  return is_float32(covariates) ? typed_dataset_from<float>(covariates, response)
                                : typed_dataset_from<double>(covariates, response);
}

template <class T>
const T* target_values(const py::object& y, index_t draws) {
  if (y.is_none()) {
    return nullptr;
  }
  const auto values = y.cast<py::array>();
  if (values.ndim() != 1 || values.shape(0) != draws || !values.dtype().is(py::dtype::of<T>()) ||
      values.strides(0) != static_cast<py::ssize_t>(sizeof(T))) {
    throw InvalidArgument("y: expected " + std::to_string(draws) + " contiguous " +
                          std::string(py::str(py::dtype::of<T>())) + " values (one per draw)");
  }
  return static_cast<const T*>(values.data());
}

template const float* target_values<float>(const py::object&, index_t);
template const double* target_values<double>(const py::object&, index_t);
template StridedArray<float> strided<float>(const py::array&, const char*);
template StridedArray<double> strided<double>(const py::array&, const char*);
template MatrixView<float> column_major_view<float>(const py::array&, const char*);
template MatrixView<double> column_major_view<double>(const py::array&, const char*);

py::tuple coreset_tuple(const Coreset& coreset, std::string report) {
  py::array_t<std::int64_t> indices(static_cast<py::ssize_t>(coreset.indices.size()));
  py::array_t<double> weights(static_cast<py::ssize_t>(coreset.weights.size()));
  std::copy(coreset.indices.begin(), coreset.indices.end(), indices.mutable_data());
  std::copy(coreset.weights.begin(), coreset.weights.end(), weights.mutable_data());
  return py::make_tuple(std::move(indices), std::move(weights), std::move(report));
}

}  // namespace coreset::python
