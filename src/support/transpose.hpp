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

/// A row-major band of `band_rows` rows of `cols` values (a dataset's rows as read) into the
/// column-major covariates (ld `rows`, from row `first_row`) with column `skip` taken out as the
/// response: the columns before it, then those after it shifted left by one; skip >= cols means
/// no response. Writes only the band's rows, so disjoint bands may be stored concurrently.
template <class T>
void store_dataset_band(const T* band, index_t cols, index_t band_rows, index_t skip,
                        index_t first_row, index_t rows, T* covariates, T* response) {
  const index_t dims = skip < cols ? cols - 1 : cols;
  transpose_into(band, cols, band_rows, std::min(skip, dims), covariates + first_row, rows);
  if (skip < cols) {
    transpose_into(band + skip + 1, cols, band_rows, cols - skip - 1,
                   covariates + skip * rows + first_row, rows);
    for (index_t i = 0; i < band_rows; ++i) {
      response[first_row + i] = band[i * cols + skip];
    }
  }
}

}  // namespace coreset::support
