"""The PPL handoff: each helper's weighted log-likelihood is the engine's sum of w_i L_i."""

import importlib.util
import json

import numpy as np
import pytest

import coreset
from coreset import ppl


def datasets():
    rng = np.random.default_rng(21)
    X = rng.normal(size=(400, 3))
    eta = X @ np.array([0.8, -0.5, 0.3]) + 0.2
    return {
        "logistic": (X, np.where(rng.random(400) < 1 / (1 + np.exp(-eta)), 1.0, -1.0)),
        "poisson": (X, rng.poisson(np.log1p(np.exp(eta))).astype(np.float64)),
        "linear": (X, eta + 0.5 * rng.normal(size=400)),
        "gaussian": (X + 1.0, None),
    }


@pytest.mark.parametrize("model", ["logistic", "poisson", "linear", "gaussian"])
def test_the_helpers_formulas_are_the_engines_log_likelihood(model):
    X, y = datasets()[model]
    options = dict(noise_sd=0.7) if model in ("linear", "gaussian") else {}
    c = coreset.build(X, y, model=model, k=20, samples=100, device="cpu", **options)
    rng = np.random.default_rng(3)
    d = ppl.parameter_count(model, X.shape[1])
    for _ in range(5):
        theta = rng.normal(size=d)
        rows, labels, weights = ppl.coreset_rows(c, X, y)
        engine = coreset.log_likelihood(rows, labels, model=model, theta=theta, **options)
        helper = ppl.log_likelihood_terms(model, theta, rows, labels, **options)
        np.testing.assert_allclose(helper, engine, rtol=1e-12, atol=1e-12)
        assert ppl.weighted_log_likelihood(c, X, y, theta, model=model, **options) == (
            pytest.approx(float(weights @ engine), rel=1e-12))


@pytest.mark.parametrize("model", ["logistic", "poisson", "linear", "gaussian"])
def test_stan_data_fill_the_programs_data_block(model):
    X, y = datasets()[model]
    c = coreset.build(X, y, model=model, k=15, samples=100, device="cpu")
    data = ppl.stan_data(c, X, y, model=model)
    json.dumps(data)  # plain values only
    program = ppl.stan_program(model)
    block = program[program.index("data {"):program.index("}")]
    declared = {line.split()[-1].rstrip(";") for line in block.splitlines()[1:] if line.strip()}
    assert declared == set(data)
    assert data["N"] == len(c) and len(data["X"]) == len(c) and data["w"] == c.weights.tolist()
    if model == "logistic":
        assert set(data["y"]) <= {0, 1}


def test_helpers_refuse_what_they_do_not_cover():
    with pytest.raises(ValueError, match="model: the PPL helpers cover"):
        ppl.stan_program("probit")


@pytest.mark.skipif(importlib.util.find_spec("numpyro") is None, reason="NumPyro not installed")
def test_numpyro_log_density_is_prior_plus_weighted_log_likelihood():
    from numpyro.infer.util import log_density

    X, y = datasets()["logistic"]
    c = coreset.build(X, y, model="logistic", k=15, samples=100, device="cpu")
    theta = np.array([0.5, -0.2, 0.1, 0.3])
    density, _ = log_density(ppl.numpyro_model(c, X, y, model="logistic"), (), {},
                             {"theta": theta})
    prior = float(np.sum(-0.5 * np.log(2 * np.pi) - 0.5 * theta ** 2))
    assert float(density) == pytest.approx(
        prior + ppl.weighted_log_likelihood(c, X, y, theta, model="logistic"), rel=1e-5)


@pytest.mark.skipif(importlib.util.find_spec("pymc") is None, reason="PyMC not installed")
def test_pymc_log_density_is_prior_plus_weighted_log_likelihood():
    X, y = datasets()["logistic"]
    c = coreset.build(X, y, model="logistic", k=15, samples=100, device="cpu")
    m = ppl.pymc_model(c, X, y, model="logistic")
    theta = np.array([0.5, -0.2, 0.1, 0.3])
    density = float(m.compile_logp()({"theta": theta}))
    prior = float(np.sum(-0.5 * np.log(2 * np.pi) - 0.5 * theta ** 2))
    assert density == pytest.approx(
        prior + ppl.weighted_log_likelihood(c, X, y, theta, model="logistic"), rel=1e-8)
