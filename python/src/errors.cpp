#include "errors.hpp"

#include <pybind11/pybind11.h>

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <utility>

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

// The library's messages name SolverOptions' fields; two of the keywords that set them are
// shorter (max_iter=0 should not be told about "max_iterations").
std::string with_keyword_names(const std::string& message) {
  static const std::pair<const char*, const char*> kRenamed[] = {{"max_iterations ", "max_iter "},
                                                                 {"tolerance ", "tol "}};
  for (const auto& [field, keyword] : kRenamed) {
    if (message.rfind(field, 0) == 0) {
      return keyword + message.substr(std::strlen(field));
    }
  }
  return message;
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
      raise_as("InvalidArgumentError", with_keyword_names(e.what()).c_str());
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
