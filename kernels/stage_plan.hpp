// How a staged host -> device copy of several arrays goes through the pinned stage buffers of
// transfer.cpp (kernels::StageShape). The arrays' bytes are taken in order as one stream, cut into
// fills of a buffer (stage_bytes each, the last shorter), the buffers taken in turn. A fill is made
// of pieces, one per array it touches, each sent to its own device address. Filling across the
// arrays' boundaries keeps every fill but the last whole. Staging each array apart left the short
// ones to the driver's pageable path (a dataset's responses and offsets, 80 MB each at N = 1e7; the
// pageable rate was 6.0-7.7 GB/s on the H200 machine, the staged design 19.4 GB/s) and pinned a
// new set of buffers per array.
//
// Host arithmetic only, so the CPU tests check it (tests/kernels/test_stage_plan.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace coreset::kernels::staging {

/// A run of one array's bytes within one fill of a buffer.
struct Piece {
  std::size_t array = 0;          ///< which array
  std::size_t offset = 0;         ///< its first byte within the array
  std::size_t bytes = 0;          ///< > 0
  std::size_t buffer_offset = 0;  ///< where it lies in the buffer
};

/// One fill of a buffer: its pieces, in the arrays' order, back to back from buffer offset 0.
struct Fill {
  int buffer = 0;  ///< in [0, buffers): the fills take the buffers in turn, starting with 0
  std::vector<Piece> pieces;
  std::size_t bytes() const {
    return pieces.empty() ? 0 : pieces.back().buffer_offset + pieces.back().bytes;
  }
};

/// The fills that carry arrays of `array_bytes` bytes through `buffers` (>= 1) buffers of
/// `stage_bytes` (> 0). Arrays of 0 bytes get no piece; no bytes at all give no fill.
inline std::vector<Fill> plan(const std::vector<std::size_t>& array_bytes, std::size_t stage_bytes,
                              int buffers = 2) {
  std::vector<Fill> fills;
  Fill fill;
  for (std::size_t array = 0; array < array_bytes.size(); ++array) {
    for (std::size_t offset = 0; offset < array_bytes[array];) {
      const std::size_t room = stage_bytes - fill.bytes();
      const std::size_t bytes = std::min(room, array_bytes[array] - offset);
      fill.pieces.push_back({array, offset, bytes, fill.bytes()});
      offset += bytes;
      if (fill.bytes() == stage_bytes) {
        fills.push_back(std::move(fill));
        fill = Fill{};
        fill.buffer = static_cast<int>(fills.size() % static_cast<std::size_t>(buffers));
      }
    }
  }
  if (!fill.pieces.empty()) {
    fills.push_back(std::move(fill));
  }
  return fills;
}

}  // namespace coreset::kernels::staging
