// Row-major to column-major copies for readers whose files store rows contiguously.
#pragma once

#include <algorithm>

#include "coreset/types.hpp"

namespace coreset::support {

/// dst[i + j * dst_ld] = src[i * src_ld + j] for a rows x cols block. Works tile by tile so that
/// both the strided reads and the strided writes stay within cache.
template <class T>
void transpose_into(const T* src, index_t src_ld, index_t rows, index_t cols, T* dst,
                    index_t dst_ld) {
  constexpr index_t kTile = 64;
  for (index_t i0 = 0; i0 < rows; i0 += kTile) {
    const index_t i1 = std::min(rows, i0 + kTile);
    for (index_t j0 = 0; j0 < cols; j0 += kTile) {
      const index_t j1 = std::min(cols, j0 + kTile);
      for (index_t j = j0; j < j1; ++j) {
        T* out = dst + j * dst_ld;
        const T* in = src + j;
        for (index_t i = i0; i < i1; ++i) {
          out[i] = in[i * src_ld];
        }
      }
    }
  }
}

}  // namespace coreset::support
