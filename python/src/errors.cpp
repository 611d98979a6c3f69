#include "errors.hpp"

#include <pybind11/pybind11.h>

#include <exception>
#include <new>

#include "coreset/error.hpp"

namespace py = pybind11;

namespace coreset::python {
namespace {

// Sets the Python error to coreset.errors.<name>(message). The classes are looked up at raise
// time, so the pure-Python module that defines them stays their one definition.
void raise_as(const char* name, const char* message) {
  try {
    const py::object type = py::module_::import("coreset.errors").attr(name);
    PyErr_SetString(type.ptr(), message);
  } catch (const py::error_already_set&) {
    // coreset.errors cannot be imported (a broken installation): say so rather than hide it.
    PyErr_SetString(PyExc_RuntimeError, message);
  }
}

}  // namespace

void raise_error(const char* name, const std::string& message) {
  raise_as(name, message.c_str());
  throw py::error_already_set();
}

void register_error_translation() {
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) {
        std::rethrow_exception(error);
      }
    } catch (const InvalidArgument& e) {
      raise_as("InvalidArgumentError", e.what());
    } catch (const InputError& e) {
      raise_as("InputError", e.what());
    } catch (const NumericalError& e) {
      raise_as("NumericalError", e.what());
    } catch (const OutputError& e) {
      raise_as("OutputError", e.what());
    } catch (const DeviceError& e) {
      raise_as("DeviceError", e.what());
    } catch (const Cancelled& e) {
      // Stopped without a pending Python exception (progress.cpp restores that one when there
      // is): the interpreter's own way of saying a computation was interrupted.
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const Error& e) {
      raise_as("CoresetError", e.what());
    }
  });
}

}  // namespace coreset::python
