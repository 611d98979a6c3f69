// Umbrella header of libcoreset. Needs neither CUDA nor Eigen to compile against.
#pragma once

#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/matrix.hpp"
#include "coreset/solver.hpp"
#include "coreset/types.hpp"
#include "coreset/version.hpp"
