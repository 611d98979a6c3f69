#include "device_arrays.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <utility>

#include "arrays.hpp"
#include "coreset/error.hpp"
#include "coreset/report.hpp"
#include "coreset/solver.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace py = pybind11;

namespace coreset::python {

DlpackTensor::DlpackTensor(const py::object& capsule, const std::string& name) {
  PyObject* object = capsule.ptr();
  if (!PyCapsule_IsValid(object, "dltensor")) {
    raise_error("InvalidArgumentError",
                name + ": __dlpack__() did not return an unused DLPack capsule (\"dltensor\")");
  }
  tensor_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(object, "dltensor"));
  if (tensor_ == nullptr || PyCapsule_SetName(object, "used_dltensor") != 0) {
    tensor_ = nullptr;
    throw py::error_already_set();
  }
}

DlpackTensor::~DlpackTensor() {
  if (tensor_ != nullptr && tensor_->deleter != nullptr) {
    tensor_->deleter(tensor_);
  }
}

std::uintptr_t DlpackTensor::pointer() const {
  return reinterpret_cast<std::uintptr_t>(tensor_->dl_tensor.data) +
         static_cast<std::uintptr_t>(tensor_->dl_tensor.byte_offset);
}

std::vector<std::int64_t> DlpackTensor::shape() const {
  const DLTensor& t = tensor_->dl_tensor;
  return std::vector<std::int64_t>(t.shape, t.shape + t.ndim);
}

std::vector<std::int64_t> DlpackTensor::strides() const {
  const DLTensor& t = tensor_->dl_tensor;
  if (t.strides != nullptr) {
    return std::vector<std::int64_t>(t.strides, t.strides + t.ndim);
  }
  std::vector<std::int64_t> compact(static_cast<std::size_t>(t.ndim));
  std::int64_t step = 1;
  for (int axis = t.ndim - 1; axis >= 0; --axis) {
    compact[static_cast<std::size_t>(axis)] = step;
    step *= t.shape[axis];
  }
  return compact;
}

std::string DlpackTensor::dtype() const {
  const DLDataType type = tensor_->dl_tensor.dtype;
  const std::string bits =
      std::to_string(type.bits) + (type.lanes == 1 ? "" : "x" + std::to_string(type.lanes));
  switch (type.code) {
    case kDLFloat:
      return "float" + bits;
    case kDLInt:
      return "int" + bits;
    case kDLUInt:
      return "uint" + bits;
    case kDLBfloat:
      return "bfloat" + bits;
    default:
      return "DLPack type code " + std::to_string(type.code) + ", " + bits + " bits";
  }
}

int DlpackTensor::device_type() const {
  return static_cast<int>(tensor_->dl_tensor.device.device_type);
}

int DlpackTensor::device_id() const {
  return tensor_->dl_tensor.device.device_id;
}

namespace {

// A GPU array as _arrays.py describes it: (pointer, rows, cols, row_stride, col_stride, dtype,
// stream), strides in elements.
template <class T>
DeviceArrayView<T> view_of(const py::tuple& spec) {
  DeviceArrayView<T> view;
  view.data = reinterpret_cast<const T*>(spec[0].cast<std::uintptr_t>());
  view.rows = spec[1].cast<index_t>();
  view.cols = spec[2].cast<index_t>();
  view.row_stride = spec[3].cast<index_t>();
  view.col_stride = spec[4].cast<index_t>();
  view.stream = reinterpret_cast<void*>(spec[6].cast<std::uintptr_t>());
  return view;
}

// y: None, a host array of S values (target_values), or a GPU vector given by its pointer (an
// int, which coreset::solve reads wherever it lives).
template <class T>
const T* target_of(const py::object& y, index_t draws) {
  if (py::isinstance<py::int_>(y)) {
    return reinterpret_cast<const T*>(y.cast<std::uintptr_t>());
  }
  return target_values<T>(y, draws);
}

// `run(T{})` with T the element type _arrays.py named in the spec (float32 or float64).
template <class Run>
auto with_element_type(const py::tuple& spec, Run&& run) {
  return spec[5].cast<std::string>() == "float32" ? run(float{}) : run(double{});
}

template <class T>
py::tuple solve_device_typed(const py::tuple& spec, bool loglik, const py::object& y,
                             const py::dict& keywords, const py::object& callback) {
  const DeviceArrayView<T> view = view_of<T>(spec);
  const index_t draws = loglik ? view.cols : view.rows;
  const T* target = target_of<T>(y, draws);
  SolverOptions options = solver_options(keywords);
  PythonProgress progress(callback);
  options.progress = &progress;
  const SolveResult result = run_without_gil(progress, [&] {
    return loglik ? coreset::solve_loglik(view, target, options)
                  : coreset::solve(view, target, options);
  });
  SolveReportInputs inputs = solve_inputs(keywords);
  inputs.rows = draws;
  inputs.cols = loglik ? view.rows : view.cols;
  inputs.precision = std::is_same_v<T, float> ? Precision::float32 : Precision::float64;
  inputs.options = options;
  inputs.options.progress = nullptr;
  return coreset_tuple(result.coreset, solve_report_json(inputs, result));
}

// Phi (S x n) or, with `loglik`, log-likelihoods (n x S) in GPU memory, solved there.
py::tuple solve_device(const py::tuple& spec, bool loglik, const py::object& y,
                       const py::dict& keywords, const py::object& callback) {
  return with_element_type(spec, [&](auto element) {
    return solve_device_typed<decltype(element)>(spec, loglik, y, keywords, callback);
  });
}

// A GPU array copied to the host (coreset::copy_to_host): a Fortran-ordered NumPy array over the
// copy's own storage, no second copy.
template <class T>
py::array host_copy_typed(const py::tuple& spec) {
  const DeviceArrayView<T> view = view_of<T>(spec);
  auto matrix = std::make_unique<Matrix<T>>();
  {
    py::gil_scoped_release release;
    *matrix = coreset::copy_to_host(view);
  }
  const auto rows = static_cast<py::ssize_t>(matrix->rows());
  const auto cols = static_cast<py::ssize_t>(matrix->cols());
  T* data = matrix->data();
  py::capsule owner(matrix.release(), [](void* p) { delete static_cast<Matrix<T>*>(p); });
  return py::array_t<T>(
      {rows, cols},
      {static_cast<py::ssize_t>(sizeof(T)), static_cast<py::ssize_t>(sizeof(T)) * rows}, data,
      owner);
}

py::array host_copy(const py::tuple& spec) {
  return with_element_type(spec,
                           [&](auto element) { return host_copy_typed<decltype(element)>(spec); });
}

}  // namespace

void register_device_arrays(py::module_& module) {
  py::class_<DlpackTensor>(module, "DLPackTensor",
                           "A DLPack capsule's tensor, owned until this object goes.")
      .def(py::init<const py::object&, const std::string&>(), py::arg("capsule"), py::arg("name"))
      .def_property_readonly("pointer", &DlpackTensor::pointer)
      .def_property_readonly("shape", &DlpackTensor::shape)
      .def_property_readonly("strides", &DlpackTensor::strides)
      .def_property_readonly("dtype", &DlpackTensor::dtype)
      .def_property_readonly("device_type", &DlpackTensor::device_type)
      .def_property_readonly("device_id", &DlpackTensor::device_id);
  module.def("copy_to_host", &host_copy, py::arg("spec"));
  module.def("solve_device", &solve_device, py::arg("spec"), py::arg("loglik"), py::arg("y"),
             py::arg("keywords"), py::arg("progress"));
}

}  // namespace coreset::python
