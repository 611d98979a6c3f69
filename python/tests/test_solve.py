"""coreset.solve on Phi or raw log-likelihoods, in every layout NumPy and ArviZ hand out."""

import json

import numpy as np
import pytest

import coreset


def same(a, b):
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_solve_equals_the_command_on_the_same_phi(tmp_path, command, planted_phi):
    np.save(tmp_path / "phi.npy", planted_phi)
    command("solve", "--phi", tmp_path / "phi.npy", "-k", 12, "--device", "cpu",
            "--precision", "double", "--out", tmp_path / "c.csv", "--report", tmp_path / "r.json")
    expected = np.loadtxt(tmp_path / "c.csv", delimiter=",", skiprows=1, ndmin=2)
    got = coreset.solve(planted_phi, k=12, device="cpu")
    np.testing.assert_array_equal(got.indices, expected[:, 0].astype(np.int64))
    np.testing.assert_array_equal(got.weights, expected[:, 1])
    report = json.loads((tmp_path / "r.json").read_text())
    assert got.report["objective"] == report["objective"]
    assert got.report["objective_history"] == report["objective_history"]


def test_phi_in_fortran_order_is_read_in_place_and_c_order_is_copied(planted_phi):
    fortran = coreset.solve(planted_phi, k=10, device="cpu")
    assert fortran.report["python"]["arrays"]["phi"].endswith("read in place")
    c_order = coreset.solve(np.ascontiguousarray(planted_phi), k=10, device="cpu")
    assert "copied to Fortran order" in c_order.report["python"]["arrays"]["phi"]
    same(fortran, c_order)
    # The transpose of a C-ordered n x S array is column-major S x n: in place.
    transposed = coreset.solve(np.ascontiguousarray(planted_phi.T).T, k=10, device="cpu")
    assert transposed.report["python"]["arrays"]["phi"].endswith("read in place")
    same(fortran, transposed)
    # A slice of columns keeps the leading dimension: in place too.
    wide = np.asfortranarray(np.hstack([planted_phi, planted_phi]))
    sliced = coreset.solve(wide[:, :300], k=10, device="cpu")
    assert sliced.report["python"]["arrays"]["phi"].endswith("read in place")
    same(fortran, sliced)


def test_float32_stays_float32_unless_asked(planted_phi):
    narrow = np.asfortranarray(planted_phi.astype(np.float32))
    auto = coreset.solve(narrow, k=10, device="cpu")
    assert auto.report["input"]["precision"] == "float"
    assert auto.report["python"]["arrays"]["phi"].endswith("read in place")
    wide = coreset.solve(narrow, k=10, device="cpu", precision="double")
    assert wide.report["input"]["precision"] == "double"
    assert "converted from float32" in wide.report["python"]["arrays"]["phi"]


def test_a_given_target_is_used(planted_phi):
    y = planted_phi[:, :5].sum(axis=1)  # not Phi 1
    c = coreset.solve(planted_phi, y=y, k=5, device="cpu")
    assert c.report["target_norm"] == pytest.approx(np.linalg.norm(y), rel=1e-12)
    residual = y - planted_phi @ c.dense(planted_phi.shape[1])
    assert c.report["objective"] == pytest.approx(residual @ residual, rel=1e-9)
    assert c.report["relative_error"] < 0.5
    with pytest.raises(ValueError, match="y: expected 40 values"):
        coreset.solve(planted_phi, y=y[:-1], k=5, device="cpu")


def loglik_and_its_phi(n=200, draws=60, seed=4):
    rng = np.random.default_rng(seed)
    loglik = rng.normal(size=(n, 3)) @ rng.normal(size=(3, draws)) - 5.0  # n x S
    phi = (loglik - loglik.mean(axis=1, keepdims=True)).T / np.sqrt(draws)
    return loglik, np.asfortranarray(phi)


def test_loglik_in_every_layout_gives_the_coreset_of_its_phi():
    loglik, phi = loglik_and_its_phi()
    reference = coreset.solve(loglik=loglik, k=8, device="cpu")
    from_phi = coreset.solve(phi, k=8, device="cpu")
    np.testing.assert_array_equal(reference.indices, from_phi.indices)
    np.testing.assert_allclose(reference.weights, from_phi.weights, rtol=1e-9)
    draws_first = np.ascontiguousarray(loglik.T)  # S x n, C order
    same(reference, coreset.solve(loglik=draws_first, samples_axis=0, k=8, device="cpu"))
    same(reference, coreset.solve(loglik=np.asfortranarray(loglik), k=8, device="cpu"))
    # ArviZ: (chain, draw, n); the draws are the chains' draws in order.
    arviz = draws_first.reshape(3, 20, 200)
    c = coreset.solve(loglik=arviz, k=8, device="cpu")
    same(reference, c)
    assert "flattened to S = 60 draws" in c.report["python"]["arrays"]["loglik"]
    assert c.report["input"]["rows"] == 60 and c.report["input"]["cols"] == 200


def test_loglik_errors_name_the_argument():
    loglik, _ = loglik_and_its_phi()
    bad = loglik.copy()
    bad[7, 3] = np.inf
    with pytest.raises(coreset.InvalidArgumentError, match="datapoint 7, draw 3"):
        coreset.solve(loglik=bad, k=3, device="cpu")
    with pytest.raises(ValueError, match="samples_axis"):
        coreset.solve(loglik=loglik, samples_axis=2, k=3, device="cpu")
    with pytest.raises(ValueError, match="exactly one of phi and loglik"):
        coreset.solve(k=3, device="cpu")
    with pytest.raises(ValueError, match="loglik: expected n x S"):
        coreset.solve(loglik=loglik.ravel(), k=3, device="cpu")


def test_cpu_dlpack_is_read_without_numpy_in_between(planted_phi):
    class OnlyDlpack:  # what a CPU tensor of another library offers
        def __init__(self, array):
            self._array = array

        def __dlpack__(self, stream=None):
            return self._array.__dlpack__()

        def __dlpack_device__(self):
            return self._array.__dlpack_device__()

    got = coreset.solve(OnlyDlpack(planted_phi), k=10, device="cpu")
    assert got.report["python"]["arrays"]["phi"].endswith("read in place")
    same(got, coreset.solve(planted_phi, k=10, device="cpu"))


@pytest.mark.parametrize("algorithm", ["iht", "a-iht", "a-iht-2", "giga", "fw", "is", "uniform"])
def test_every_algorithm_runs_from_python(planted_phi, algorithm):
    c = coreset.solve(planted_phi, k=10, algorithm=algorithm, device="cpu", seed=2)
    assert c.report["algorithm"] == algorithm
    assert 0 < len(c) <= 10 and np.all(c.weights > 0)


def test_sync_every_changes_nothing_but_how_often_the_host_looks(planted_phi):
    every = coreset.solve(planted_phi, k=12, device="cpu", tol=1e-9, sync_every=1)
    assert every.report["iterations"] > 4  # the tracked loop takes over after four
    for interval in (2, 5, 16):
        tracked = coreset.solve(planted_phi, k=12, device="cpu", tol=1e-9, sync_every=interval)
        same(tracked, every)
        assert tracked.report["objective_history"] == every.report["objective_history"]
        assert tracked.report["sync_every"] == interval
    with pytest.raises(coreset.InvalidArgumentError, match="sync_every must be between"):
        coreset.solve(planted_phi, k=12, device="cpu", sync_every=-1)
