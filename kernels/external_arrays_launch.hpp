// Launchers of the kernels that read arrays the caller already holds in device memory (a CuPy,
// PyTorch, JAX or Numba array, or the caller's own cudaMalloc), in plain C++: the entry points of
// src/cuda/device_arrays.cpp. Strides are in elements, >= 0; first_bad must start at ULLONG_MAX
// and receives (atomic min) the flat index of the first non-finite value, as named below.
#pragma once

#include <cuda_runtime_api.h>

#include "coreset/types.hpp"

namespace coreset::kernels {

/// out (rows x cols, column-major, ld = rows) = in(i, j) = in[i * row_stride + j * col_stride];
/// out null: only the scan. first_bad: i + j * rows, the flat index in out's layout (null: no
/// scan).
template <class T>
void gather_strided(cudaStream_t s, const T* in, index_t rows, index_t cols, index_t row_stride,
                    index_t col_stride, T* out, unsigned long long* first_bad);

/// Phi (draws x datapoints, column-major) from log-likelihoods: datapoint i's value at draw s is
/// loglik[i * datapoint_stride + s * draw_stride]; column i of phi is those values less their
/// mean, times 1 / sqrt(draws) (cpu::projection_from_loglik's formula, summed in double).
/// first_bad: i * draws + s of a non-finite value (or of a column's last draw when its finite
/// values' sum overflows).
template <class T>
void center_loglik(cudaStream_t s, const T* loglik, index_t datapoints, index_t draws,
                   index_t datapoint_stride, index_t draw_stride, T* phi,
                   unsigned long long* first_bad);

}  // namespace coreset::kernels
