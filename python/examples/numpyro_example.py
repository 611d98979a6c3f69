"""A coreset of the built-in logistic data, sampled with NumPyro's NUTS.

Needs numpyro and jax (not on the project's build machines).
"""

import jax
from numpyro.infer import MCMC, NUTS

import coreset
from coreset import ppl

X, y = coreset.synthetic_logistic()
c = coreset.build(X, y, model="logistic", k=100)
mcmc = MCMC(NUTS(ppl.numpyro_model(c, X, y, model="logistic")), num_warmup=500, num_samples=1000)
mcmc.run(jax.random.PRNGKey(0))
print("coreset posterior mean:", mcmc.get_samples()["theta"].mean(axis=0))
print("full-data posterior mean (Laplace):", c.report["full_posterior_mean"])
