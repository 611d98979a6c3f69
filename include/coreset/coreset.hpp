// Umbrella header of libcoreset: the whole public API. Needs neither CUDA, Eigen nor OpenMP to
// compile against (C++17); link with the CMake target Coreset::coreset or `pkg-config --libs
// coreset`. Errors are the exceptions of error.hpp (and std::bad_alloc when memory runs out).
#pragma once

#include "coreset/build.hpp"
#include "coreset/dataset.hpp"
#include "coreset/error.hpp"
#include "coreset/io.hpp"
#include "coreset/matrix.hpp"
#include "coreset/model.hpp"
#include "coreset/progress.hpp"
#include "coreset/report.hpp"
#include "coreset/solver.hpp"
#include "coreset/sweep.hpp"
#include "coreset/types.hpp"
#include "coreset/version.hpp"
