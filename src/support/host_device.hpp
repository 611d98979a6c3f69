// Lets one formula serve both the CPU backend and, when compiled by nvcc, device code.
#pragma once

#if defined(__CUDACC__)
#define CORESET_HOST_DEVICE __host__ __device__
#else
#define CORESET_HOST_DEVICE
#endif
