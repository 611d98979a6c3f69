"""coreset: Bayesian coresets on the CPU and the GPU, from NumPy.

    import coreset
    c = coreset.build(X, y, model="logistic", k=100)
    c.indices, c.weights, c.report["quality"]["symmetric_kl"]

build() runs the whole job on a dataset, solve() the sparse regression on your own Phi or
log-likelihood draws, evaluate() scores any coreset; coreset.ppl hands a coreset to Stan, NumPyro
or PyMC. The engine is libcoreset (C++ and CUDA); see README's "Python" section.
"""

from . import ppl
from ._api import (Coreset, Sweep, build, evaluate, info, log_likelihood, solve, sweep,
                   synthetic_logistic)
from ._core import __version__
from . import errors
from .errors import *  # noqa: F401,F403 (the exception classes, listed in errors.__all__)

__all__ = [
    "Coreset",
    "Sweep",
    "build",
    "sweep",
    "solve",
    "evaluate",
    "info",
    "log_likelihood",
    "synthetic_logistic",
    "ppl",
    "__version__",
] + errors.__all__
