"""A coreset of the built-in logistic data, sampled with PyMC.

Needs pymc (not on the project's build machines).
"""

import pymc as pm

import coreset
from coreset import ppl

X, y = coreset.synthetic_logistic()
c = coreset.build(X, y, model="logistic", k=100)
with ppl.pymc_model(c, X, y, model="logistic"):
    trace = pm.sample(1000, tune=500, chains=2)
print("coreset posterior mean:", trace.posterior["theta"].mean(dim=("chain", "draw")).values)
print("full-data posterior mean (Laplace):", c.report["full_posterior_mean"])
