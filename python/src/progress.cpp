#include "progress.hpp"

namespace py = pybind11;

namespace coreset::python {

PythonProgress::PythonProgress(py::object callback)
    : callback_(std::move(callback)), owner_(std::this_thread::get_id()) {}

PythonProgress::~PythonProgress() {
  Py_XDECREF(pending_type_);
  Py_XDECREF(pending_value_);
  Py_XDECREF(pending_traceback_);
}

void PythonProgress::stage_started(Stage stage, std::int64_t total) {
  stage_.store(stage);
  total_.store(total);
  done_.store(0);
  if (std::this_thread::get_id() == owner_) {
    staged_ = true;
    poll(true);  // the callback sees every stage begin
  }
}

void PythonProgress::advanced(std::int64_t done) {
  done_.store(done, std::memory_order_relaxed);
}

bool PythonProgress::stop_requested() noexcept {
  if (!stop_.load() && std::this_thread::get_id() == owner_) {
    poll(false);
  }
  return stop_.load();
}

void PythonProgress::poll(bool force) noexcept {
  const auto now = std::chrono::steady_clock::now();
  if (stop_.load() || (!force && now - last_poll_ < std::chrono::milliseconds(50))) {
    return;
  }
  last_poll_ = now;
  py::gil_scoped_acquire gil;
  bool raised = PyErr_CheckSignals() != 0;  // runs Python's SIGINT handler: KeyboardInterrupt
  if (!raised && staged_ && !callback_.is_none()) {
    PyObject* outcome =
        PyObject_CallFunction(callback_.ptr(), "sLL", to_string(stage_.load()),
                              static_cast<long long>(done_.load(std::memory_order_relaxed)),
                              static_cast<long long>(total_.load()));
    raised = outcome == nullptr;
    Py_XDECREF(outcome);
  }
  if (raised) {
    PyErr_Fetch(&pending_type_, &pending_value_, &pending_traceback_);
    stop_.store(true);
  }
}

void PythonProgress::raise_pending() {
  if (pending_type_ != nullptr) {
    PyErr_Restore(pending_type_, pending_value_, pending_traceback_);
    pending_type_ = pending_value_ = pending_traceback_ = nullptr;
    throw py::error_already_set();
  }
}

}  // namespace coreset::python
