// The keyword arguments of coreset.build/solve/evaluate (collected by coreset/_api.py into a
// dict whose keys are the keyword names) as the library's option structs. Names and values are
// the command's (`--max-iter` is max_iter, `--algorithm a-iht-2` is algorithm="a-iht-2"); the
// library checks the values and its messages are translated back to keyword names.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "coreset/build.hpp"
#include "coreset/report.hpp"
#include "coreset/solver.hpp"

namespace coreset::python {

/// Model, pi-hat, samples, seed, precision and solver options of build and evaluate.
BuildOptions build_options(const pybind11::dict& keywords);
/// The options of solve on Phi.
SolverOptions solver_options(const pybind11::dict& keywords);
/// keywords[key] as a string; empty when absent or None.
std::string keyword_text(const pybind11::dict& keywords, const char* key);
/// The report's descriptions of a solve's inputs (phi, loglik and y, as _api.py wrote them).
SolveReportInputs solve_inputs(const pybind11::dict& keywords);

}  // namespace coreset::python
