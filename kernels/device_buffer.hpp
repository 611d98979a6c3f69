// RAII ownership of device memory: one cudaMalloc, one cudaFree, no raw pointers to leak.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "coreset/types.hpp"
#include "kernels/check.hpp"

namespace coreset::kernels {

/// `size` elements of T in device global memory, uninitialised. Movable, not copyable (a copy of
/// device memory is an explicit, stream-ordered operation: see the backend's copy()).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(index_t size) { resize_discard(size); }
  /// A buffer over `size` elements the caller owns in device memory (an array handed in from
  /// Python, say): read through like any other, never freed by this object, which must not
  /// outlive the memory. Resizing it lets go of the borrowed memory and allocates its own.
  static DeviceBuffer borrowed(T* data, index_t size) {
    DeviceBuffer buffer;
    buffer.data_ = data;
    buffer.size_ = size;
    buffer.owned_ = false;
    return buffer;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        owned_(std::exchange(other.owned_, true)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      owned_ = std::exchange(other.owned_, true);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  /// Makes room for exactly `size` elements; the old contents are lost (never copied).
  void resize_discard(index_t size) {
    if (size == size_) {
      return;
    }
    release();
    if (size > 0) {
      void* pointer = nullptr;
      CORESET_CUDA_TRY(cudaMalloc(&pointer, static_cast<std::size_t>(size) * sizeof(T)));
      data_ = static_cast<T*>(pointer);
      size_ = size;
    }
  }
  /// Grows to at least `size` elements (contents lost when it grows); never shrinks.
  void reserve_discard(index_t size) {
    if (size > size_) {
      resize_discard(size);
    }
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  index_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size_) * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

 private:
  void release() noexcept {
    if (data_ != nullptr && owned_) {
      // cudaFree synchronises with pending work that may still use the memory; its error (only
      // possible after an earlier failure) cannot be thrown from a destructor.
      cudaFree(data_);
    }
    data_ = nullptr;
    size_ = 0;
    owned_ = true;
  }

  T* data_ = nullptr;
  index_t size_ = 0;
  bool owned_ = true;  ///< false for borrowed(): the caller frees the memory
};

}  // namespace coreset::kernels
