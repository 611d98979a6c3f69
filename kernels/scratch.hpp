// Device scratch for CUB's two-phase temporary storage: one buffer that grows to the largest
// request and is reused, so that no call inside the iteration loop allocates once it is large
// enough. Every user is on one stream, whose order makes the reuse safe.
#pragma once

#include <cstddef>

#include "coreset/types.hpp"
#include "kernels/device_buffer.hpp"

namespace coreset::kernels {

class Scratch {
 public:
  /// At least `bytes` of device memory, valid until the next call.
  void* get(std::size_t bytes) {
    buffer_.reserve_discard(static_cast<index_t>(bytes > 0 ? bytes : 1));
    return buffer_.data();
  }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

}  // namespace coreset::kernels
