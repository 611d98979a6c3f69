// Arrays in GPU memory from Python: DLPack capsules (CuPy, PyTorch, JAX) taken over here, and the
// solve of any GPU array, whose layout coreset/_arrays.py has described (from the DLPack tensor
// or a __cuda_array_interface__ dict), read in place by the CUDA backend through
// coreset::solve(DeviceArrayView...).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

struct DLManagedTensor;

namespace coreset::python {

/// A DLPack capsule's tensor, owned: the capsule is marked used ("used_dltensor", as the protocol
/// asks of a consumer) and the tensor's deleter runs when this object goes, so the producer's
/// memory stays valid for as long as Python holds it.
class DlpackTensor {
 public:
  /// InvalidArgumentError naming `name` unless `capsule` is an unused DLPack capsule.
  DlpackTensor(const pybind11::object& capsule, const std::string& name);
  ~DlpackTensor();
  DlpackTensor(const DlpackTensor&) = delete;
  DlpackTensor& operator=(const DlpackTensor&) = delete;

  std::uintptr_t pointer() const;  ///< data + byte_offset
  std::vector<std::int64_t> shape() const;
  /// In elements; a tensor without strides is compact row-major (the protocol's rule).
  std::vector<std::int64_t> strides() const;
  std::string dtype() const;  ///< "float32", "float64", or what it is ("int32", "bfloat16", ...)
  int device_type() const;    ///< DLDeviceType: 1 CPU, 2 CUDA, 13 CUDA managed, ...
  int device_id() const;

 private:
  DLManagedTensor* tensor_ = nullptr;
};

/// Registers DLPackTensor and solve_device on the module.
void register_device_arrays(pybind11::module_& module);

}  // namespace coreset::python
