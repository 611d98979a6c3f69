"""A coreset of the built-in logistic data, sampled with Stan through CmdStanPy.

Needs cmdstanpy and a CmdStan installation (not on the project's build machines). Writes the
weighted Stan program and its JSON data to ./coreset_logistic.stan and .json either way.
"""

import json

import coreset
from coreset import ppl

X, y = coreset.synthetic_logistic()
c = coreset.build(X, y, model="logistic", k=100)
with open("coreset_logistic.stan", "w") as program:
    program.write(ppl.stan_program("logistic"))
with open("coreset_logistic.json", "w") as data:
    json.dump(ppl.stan_data(c, X, y, model="logistic"), data)
print("wrote coreset_logistic.stan and coreset_logistic.json for", c)

try:
    import cmdstanpy
except ImportError:
    raise SystemExit("cmdstanpy is not installed: run the files above with CmdStan yourself")
fit = cmdstanpy.CmdStanModel(stan_file="coreset_logistic.stan").sample(data="coreset_logistic.json")
print(fit.summary().loc[["beta[1]", "beta[2]", "alpha"]])
print("full-data posterior mean (Laplace):", c.report["full_posterior_mean"])
