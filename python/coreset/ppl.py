"""Handing a coreset to a probabilistic programming language.

A coreset (indices, weights) stands for the full data when each of its rows' log-likelihood is
multiplied by its weight: the coreset posterior is prior(theta) * prod_i p(y_i | theta)^{w_i}.
These helpers write that for the built-in models (logistic, poisson, linear, gaussian; without
RBF features or full noise covariances), with the engine's parameterisation: theta holds the
covariates' coefficients, then the intercept, with a N(0, prior_sd^2) prior on each.

- Stan:    stan_program(model) and stan_data(coreset, X, y, ...) (JSON-ready dict)
- NumPyro: numpyro_model(coreset, X, y, ...) returns a model function
- PyMC:    pymc_model(coreset, X, y, ...) returns a pm.Model with a weighted pm.Potential

All three compute log_likelihood_terms below (the Stan program in Stan's own functions); the
tests check that sum(w * log_likelihood_terms(...)) equals the engine's coreset.log_likelihood
at given parameters, and run the PPLs themselves where they are installed.
"""

import math

import numpy as np

from .errors import InvalidArgumentError

__all__ = [
    "coreset_rows",
    "log_likelihood_terms",
    "weighted_log_likelihood",
    "stan_program",
    "stan_data",
    "numpyro_model",
    "pymc_model",
]

_MODELS = ("logistic", "poisson", "linear", "gaussian")


def _check_model(model):
    if model not in _MODELS:
        raise InvalidArgumentError(
            "model: the PPL helpers cover %s, got %r" % (", ".join(_MODELS), model))


def coreset_rows(coreset, X, y=None):
    """The coreset's rows of X and y (as NumPy arrays) and its weights."""
    X = np.asarray(X, dtype=np.float64)
    rows = X[coreset.indices]
    labels = None if y is None else np.asarray(y, dtype=np.float64)[coreset.indices]
    return rows, labels, coreset.weights


def _softplus(z, xp):
    # log(1 + e^z) without overflow, with operations NumPy, jax.numpy and pytensor.tensor share.
    return xp.log1p(xp.exp(-xp.abs(z))) + xp.maximum(z, 0.0)


def _log_factorial(counts):
    return np.array([math.lgamma(c + 1.0) for c in np.asarray(counts, dtype=np.float64)])


def log_likelihood_terms(model, theta, X, y=None, *, intercept=True, noise_sd=1.0, xp=np):
    """L_i(theta) for each row of X (and y), written with the array module `xp` (numpy,
    jax.numpy or pytensor.tensor) so that the NumPyro and PyMC helpers use these very formulas.
    Logistic labels may be {-1, 1} or {0, 1}; theta is the engine's (coefficients, intercept)."""
    _check_model(model)
    X = np.asarray(X, dtype=np.float64)
    dims = X.shape[1]
    if model == "gaussian":  # x_i ~ N(theta, noise_sd^2 I)
        squares = xp.sum((X - theta[None, :dims]) ** 2, axis=1)
        return -0.5 * dims * math.log(2.0 * math.pi * noise_sd ** 2) - squares / (
            2.0 * noise_sd ** 2)
    eta = X @ theta[:dims] + (theta[dims] if intercept else 0.0)
    y = np.asarray(y, dtype=np.float64)
    if model == "logistic":
        signs = np.where(y > 0, 1.0, -1.0)
        return -_softplus(-signs * eta, xp)
    if model == "poisson":  # y ~ Poisson(softplus(eta)), the engine's link (spec 3.7)
        rate = _softplus(eta, xp)
        return y * xp.log(rate) - rate - _log_factorial(y)
    return -0.5 * math.log(2.0 * math.pi * noise_sd ** 2) - (y - eta) ** 2 / (
        2.0 * noise_sd ** 2)


def weighted_log_likelihood(coreset, X, y, theta, *, model, intercept=True, noise_sd=1.0):
    """sum_i w_i L_i(theta) over the coreset's rows: the coreset's log-likelihood at theta."""
    rows, labels, weights = coreset_rows(coreset, X, y)
    theta = np.asarray(theta, dtype=np.float64)
    terms = log_likelihood_terms(model, theta, rows, labels, intercept=intercept,
                                 noise_sd=noise_sd)
    return float(np.dot(weights, terms))


def parameter_count(model, dims, intercept=True):
    """d, the engine's parameter count: the covariates and, but for gaussian, the intercept."""
    return dims + (1 if intercept and model != "gaussian" else 0)


def _prepared(coreset, X, y, model, intercept):
    """What the PPL model builders share: the coreset's rows and weights, and d."""
    _check_model(model)
    rows, labels, weights = coreset_rows(coreset, X, y)
    return rows, labels, weights, parameter_count(model, rows.shape[1], intercept)


# Every program's data block starts with the coreset's rows.
_STAN_DESIGN = """  int<lower=0> N;
  int<lower=1> D;
  matrix[N, D] X;
"""

_STAN_LIKELIHOOD = {
    "logistic": ("array[N] int<lower=0, upper=1> y;",
                 "target += w[i] * bernoulli_logit_lpmf(y[i] | eta[i]);"),
    "poisson": ("array[N] int<lower=0> y;",
                "target += w[i] * poisson_lpmf(y[i] | log1p_exp(eta[i]));"),
    "linear": ("vector[N] y;", "target += w[i] * normal_lpdf(y[i] | eta[i], noise_sd);"),
}


def stan_program(model, intercept=True):
    """The weighted Stan program of a built-in model; its data are stan_data()'s. The prior and
    likelihood are written with target += *_lpdf, so its log density keeps every constant and
    equals log prior(theta) + sum_i w_i L_i(theta) (theta = beta, then alpha)."""
    _check_model(model)
    if model == "gaussian":
        return """// coreset: weighted Gaussian mean model, x_i ~ N(theta, noise_sd^2 I)
data {
%s  vector<lower=0>[N] w;
  real<lower=0> prior_sd;
  real<lower=0> noise_sd;
}
parameters {
  vector[D] theta;
}
model {
  target += normal_lpdf(theta | 0, prior_sd);
  for (i in 1:N) {
    target += w[i] * normal_lpdf(X[i]' | theta, noise_sd);
  }
}
""" % _STAN_DESIGN
    response, statement = _STAN_LIKELIHOOD[model]
    alpha_parameter = "  real alpha;\n" if intercept else ""
    alpha_prior = "  target += normal_lpdf(alpha | 0, prior_sd);\n" if intercept else ""
    eta = "X * beta + alpha" if intercept else "X * beta"
    noise = "  real<lower=0> noise_sd;\n" if model == "linear" else ""
    return """// coreset: weighted %s regression (beta: the coefficients, alpha: the intercept)
data {
%s  %s
  vector<lower=0>[N] w;
  real<lower=0> prior_sd;
%s}
parameters {
  vector[D] beta;
%s}
model {
  vector[N] eta = %s;
  target += normal_lpdf(beta | 0, prior_sd);
%s  for (i in 1:N) {
    %s
  }
}
""" % (model, _STAN_DESIGN, response, noise, alpha_parameter, eta, alpha_prior, statement)


def stan_data(coreset, X, y=None, *, model, prior_sd=1.0, noise_sd=1.0):
    """The data block of stan_program(model) for the coreset's rows, as a dict of plain Python
    values (json.dump it for CmdStan / CmdStanPy). Logistic labels become 0/1."""
    _check_model(model)
    rows, labels, weights = coreset_rows(coreset, X, y)
    data = {"N": int(rows.shape[0]), "D": int(rows.shape[1]), "X": rows.tolist(),
            "w": weights.tolist(), "prior_sd": float(prior_sd)}
    if model in ("gaussian", "linear"):
        data["noise_sd"] = float(noise_sd)
    if model == "logistic":
        data["y"] = [int(v > 0) for v in labels]
    elif model == "poisson":
        data["y"] = [int(v) for v in labels]
    elif model == "linear":
        data["y"] = labels.tolist()
    return data


def numpyro_model(coreset, X, y=None, *, model, intercept=True, prior_sd=1.0, noise_sd=1.0):
    """A NumPyro model function (no arguments) for the coreset posterior: theta ~ N(0, prior_sd^2)
    per parameter, and numpyro.factor adds sum_i w_i L_i(theta). Run it with e.g.
    numpyro.infer.MCMC(numpyro.infer.NUTS(fn), num_warmup=500, num_samples=1000)."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    rows, labels, weights, d = _prepared(coreset, X, y, model, intercept)
    w = jnp.asarray(weights)

    def model_fn():
        theta = numpyro.sample("theta", dist.Normal(0.0, prior_sd).expand([d]).to_event(1))
        terms = log_likelihood_terms(model, theta, rows, labels, intercept=intercept,
                                     noise_sd=noise_sd, xp=jnp)
        numpyro.factor("coreset_log_likelihood", jnp.sum(w * terms))

    return model_fn


def pymc_model(coreset, X, y=None, *, model, intercept=True, prior_sd=1.0, noise_sd=1.0):
    """A PyMC model of the coreset posterior: theta ~ N(0, prior_sd^2) per parameter, and a
    pm.Potential holding sum_i w_i L_i(theta). Sample with `with m: pm.sample()`."""
    import pymc as pm
    import pytensor.tensor as pt

    rows, labels, weights, d = _prepared(coreset, X, y, model, intercept)
    with pm.Model() as m:
        theta = pm.Normal("theta", 0.0, prior_sd, shape=d)
        terms = log_likelihood_terms(model, theta, rows, labels, intercept=intercept,
                                     noise_sd=noise_sd, xp=pt)
        pm.Potential("coreset_log_likelihood", pt.sum(weights * terms))
    return m
