"""coreset.build and coreset.evaluate give what the command gives on the same data and seed."""

import json
import math
import os

import numpy as np
import pytest

import coreset


def write_csv(path, X, y):
    header = ",".join(["x%d" % (j + 1) for j in range(X.shape[1])] + ["y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="",
               fmt="%.17g")


def test_build_equals_the_command_on_the_same_csv(tmp_path, command, logistic_data):
    X, y = logistic_data
    write_csv(tmp_path / "data.csv", X, y)
    command("build", "--data", tmp_path / "data.csv", "--model", "logistic", "-k", 40,
            "--samples", 200, "--seed", 5, "--device", "cpu", "--out", tmp_path / "c.csv",
            "--report", tmp_path / "r.json")
    expected = np.loadtxt(tmp_path / "c.csv", delimiter=",", skiprows=1, ndmin=2)
    got = coreset.build(X, y, model="logistic", k=40, samples=200, seed=5, device="cpu")
    np.testing.assert_array_equal(got.indices, expected[:, 0].astype(np.int64))
    np.testing.assert_array_equal(got.weights, expected[:, 1])  # %.17g round-trips doubles
    report = json.loads((tmp_path / "r.json").read_text())
    assert got.report["quality"] == report["quality"]
    assert got.report["iterations"] == report["iterations"]
    # The same report fields as the command's, plus where the arrays came from.
    assert set(report) <= set(got.report)
    assert set(got.report) - set(report) == {"python"}


def test_the_built_in_example_is_the_commands(command, tmp_path):
    command("build", "--model", "logistic", "-k", 30, "--device", "cpu", "--out",
            tmp_path / "c.csv")
    expected = np.loadtxt(tmp_path / "c.csv", delimiter=",", skiprows=1, ndmin=2)
    got = coreset.build(*coreset.synthetic_logistic(), model="logistic", k=30, device="cpu")
    np.testing.assert_array_equal(got.indices, expected[:, 0].astype(np.int64))
    np.testing.assert_array_equal(got.weights, expected[:, 1])


def test_every_layout_and_dtype_of_X_gives_the_same_coreset(logistic_data):
    X, y = logistic_data
    reference = coreset.build(X, y, model="logistic", k=25, samples=100, device="cpu")
    spaced = np.zeros((X.shape[0], 4))
    spaced[:, ::2] = X
    for variant, labels in [(np.asfortranarray(X), y), (np.ascontiguousarray(X), y),
                            (spaced[:, ::2], y),  # every other column of a wider array
                            (X[::-1][::-1], y),
                            (X, (y > 0).astype(np.int64))]:  # {0, 1} labels, integer dtype
        got = coreset.build(variant, labels, model="logistic", k=25, samples=100, device="cpu")
        np.testing.assert_array_equal(got.indices, reference.indices)
        np.testing.assert_array_equal(got.weights, reference.weights)
    # float32 covariates are widened exactly: the coreset of their float64 values.
    narrow = X.astype(np.float32)
    a = coreset.build(narrow, y, model="logistic", k=25, samples=100, device="cpu")
    b = coreset.build(narrow.astype(np.float64), y, model="logistic", k=25, samples=100,
                      device="cpu")
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_coreset_fields_and_dense(logistic_data):
    X, y = logistic_data
    c = coreset.build(X, y, model="logistic", k=20, samples=100, device="cpu")
    assert c.indices.dtype == np.int64 and c.weights.dtype == np.float64
    assert np.all(np.diff(c.indices) > 0) and np.all(c.weights > 0)
    assert 0 < len(c) <= 20
    dense = c.dense()
    assert dense.shape == (X.shape[0],)
    np.testing.assert_array_equal(np.flatnonzero(dense), c.indices)
    np.testing.assert_array_equal(dense[c.indices], c.weights)
    assert c.report["runtime"]["backend"] == "cpu"
    assert "copied once" in c.report["python"]["arrays"]["X"]
    with pytest.raises(ValueError, match="too small"):
        c.dense(int(c.indices.max()))


def test_evaluate_scores_a_build_as_the_build_did(logistic_data):
    X, y = logistic_data
    built = coreset.build(X, y, model="logistic", k=30, samples=150, device="cpu")
    # In any order: evaluate sorts by index.
    order = np.arange(len(built))[::-1]
    scored = coreset.evaluate(X, y, model="logistic", indices=built.indices[order],
                              weights=built.weights[order], samples=150, device="cpu")
    assert scored.report["command"] == "evaluate"
    for field in ("forward_kl", "reverse_kl", "symmetric_kl", "map_distance"):
        assert scored.report["quality"][field] == pytest.approx(
            built.report["quality"][field], rel=1e-9, abs=1e-12)
    np.testing.assert_array_equal(scored.indices, built.indices)


def test_gaussian_and_linear_models_run(logistic_data):
    X, _ = logistic_data
    g = coreset.build(X + 1.0, model="gaussian", k=15, samples=100, device="cpu")
    assert g.report["pihat"] == "exact" and len(g) > 0
    response = X @ np.array([1.0, -2.0]) + 0.1
    lin = coreset.build(X, response, model="linear", k=15, samples=100, device="cpu")
    assert lin.report["parameter_names"] == ["x1", "x2", "intercept"]
    assert lin.report["quality"]["symmetric_kl"] >= 0


def test_dataframe_like_column_names_name_the_parameters(logistic_data):
    X, y = logistic_data

    class Frame(np.ndarray):
        columns = ["height", "weight"]

    c = coreset.build(X.view(Frame), y, model="logistic", k=10, samples=50, device="cpu")
    assert c.report["parameter_names"][:2] == ["height", "weight"]


def test_info_describes_the_build():
    facts = coreset.info()
    assert facts["version"] == coreset.__version__
    # The default team fits the control group's CPU limit (docker --cpus) unless OMP_NUM_THREADS
    # sized it.
    assert facts["threads"] >= 1
    assert facts["cpu_limit"] is None or facts["cpu_limit"] > 0
    assert facts["memory_limit_bytes"] is None or facts["memory_limit_bytes"] > 0
    assert facts["local_ranks"] >= 1  # the MPI ranks on this node, which share the limits
    if facts["cpu_limit"] is not None and not os.environ.get("OMP_NUM_THREADS"):
        share = facts["cpu_limit"] / facts["local_ranks"]
        assert facts["threads"] <= max(1, math.floor(share + 0.5))
    assert isinstance(facts["cuda"], bool) and isinstance(facts["gpus"], list)
    if not facts["gpus"]:
        assert facts["gpu_unavailable_reason"]
