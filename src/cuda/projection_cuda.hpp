// The projection Phi of spec 1.3 on the GPU: the same formula as cpu::projection (see
// cpu/projection.cpp), one cuBLAS GEMM of the samples with a block of the design matrix, then
// one fused kernel per block applying the model's link (models/link.hpp, the same host-device
// code the CPU runs), subtracting the shared quadratic, centring over the S samples and scaling
// by 1/sqrt(S), writing Phi column-major. Free of CUDA headers; in a build without CUDA it
// throws DeviceError. The pipeline keeps Phi on the device instead (cuda/device_phi.hpp); this
// host copy is for comparing the two projections.
#pragma once

#include <Eigen/Core>

#include "coreset/matrix.hpp"
#include "cuda/gpu_session.hpp"
#include "models/model.hpp"

namespace coreset::cuda {

/// Phi (S x n) for `samples` (S x d), computed on the session's GPU and returned on the host.
/// Throws as cpu::projection does (InvalidArgument, checked before any device call;
/// NumericalError naming the first non-finite log-likelihood), and DeviceError without a usable
/// GPU or when the matrices do not fit.
/// Agrees with cpu::projection to rounding (the link's transcendental functions and the
/// centring sums round differently on the device).
template <class T>
Matrix<T> projection_on_gpu(GpuSession& session, const models::Model& model,
                            const Eigen::MatrixXd& samples);

}  // namespace coreset::cuda
