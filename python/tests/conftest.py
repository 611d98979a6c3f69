"""Shared fixtures: the command (for same-answer checks), small datasets and Phi matrices."""

import os
import shutil
import subprocess

import numpy as np
import pytest


def _find_command():
    path = os.environ.get("CORESET_BINARY")
    if path and os.path.exists(path):
        return path
    return shutil.which("coreset")


@pytest.fixture(scope="session")
def command():
    """Runs the `coreset` command (ctest passes the build's; else one on PATH), or skips."""
    path = _find_command()
    if path is None:
        pytest.skip("the coreset command is not available (set CORESET_BINARY)")

    def run(*args):
        result = subprocess.run([path, "--quiet", *map(str, args)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result

    return run


@pytest.fixture(scope="session")
def logistic_data():
    """1500 rows of the papers' synthetic logistic problem, labels in {-1, 1}."""
    import coreset

    return coreset.synthetic_logistic(1500, 3)


@pytest.fixture(scope="session")
def planted_phi():
    """A 40 x 300 Phi whose target y = Phi 1 is well approximated by few columns."""
    rng = np.random.default_rng(11)
    basis = rng.normal(size=(40, 6))
    phi = basis @ rng.normal(size=(6, 300)) + 0.05 * rng.normal(size=(40, 300))
    return np.asfortranarray(phi)
