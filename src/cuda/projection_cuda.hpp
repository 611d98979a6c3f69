// The projection Phi of spec 1.3 on the GPU: the same formula as cpu::projection (see
// cpu/projection.cpp), one cuBLAS GEMM of the samples with a block of the design matrix, then
// one fused kernel per block applying the model's link (models/link.hpp, the same host-device
// code the CPU runs), subtracting the shared quadratic, centring over the S samples and scaling
// by 1/sqrt(S), writing Phi column-major. Free of CUDA headers; in a build without CUDA it
// throws DeviceError.
#pragma once

#include <Eigen/Core>

#include "coreset/matrix.hpp"
#include "models/model.hpp"

namespace coreset::cuda {

/// Phi (S x n) for `samples` (S x d), computed on GPU 0 and returned on the host. Throws as
/// cpu::projection does (InvalidArgument, NumericalError naming the first non-finite
/// log-likelihood), and DeviceError without a usable GPU or when the matrices do not fit.
/// Agrees with cpu::projection to rounding (the link's transcendental functions and the
/// centring sums round differently on the device).
template <class T>
Matrix<T> projection_on_gpu(const models::Model& model, const Eigen::MatrixXd& samples);

}  // namespace coreset::cuda
