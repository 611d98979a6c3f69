"""coreset.sweep and build(k="auto") give what `coreset sweep` and `build -k auto` give."""

import json

import numpy as np
import pytest

import coreset


def untimed(value):
    """`value` without its wall times, which differ from run to run."""
    if isinstance(value, dict):
        return {key: untimed(item) for key, item in value.items() if key != "seconds"}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


def test_sweep_equals_the_commands_sweep(tmp_path, command):
    X, y = coreset.synthetic_logistic(2000, 1)
    np.savetxt(tmp_path / "d.csv", np.column_stack([X, y]), delimiter=",", header="x1,x2,y",
               comments="", fmt="%.17g")
    command("sweep", "--data", tmp_path / "d.csv", "--model", "logistic", "-k", "5,10,40",
            "--samples", 100, "--device", "cpu", "--out", tmp_path / "s")
    got = coreset.sweep(X, y, model="logistic", k=[40, 5, 10], samples=100, device="cpu")
    assert got.ks == [5, 10, 40]
    for k in got.ks:
        expected = np.loadtxt(tmp_path / "s" / ("coreset_k%d.csv" % k), delimiter=",",
                              skiprows=1, ndmin=2)
        np.testing.assert_array_equal(got[k].indices, expected[:, 0].astype(np.int64))
        np.testing.assert_array_equal(got[k].weights, expected[:, 1])
    report = json.loads((tmp_path / "s" / "report.json").read_text())
    assert [b["quality"] for b in report["budgets"]] == [c.report["quality"] for c in got.coresets]
    assert got[10].report["warm_start_from"] == 5


def test_k_auto_equals_the_commands_and_reaches_the_target(tmp_path, command):
    X, y = coreset.synthetic_logistic(2000, 2)
    np.savetxt(tmp_path / "d.csv", np.column_stack([X, y]), delimiter=",", header="x1,x2,y",
               comments="", fmt="%.17g")
    command("build", "--data", tmp_path / "d.csv", "--model", "logistic", "-k", "auto",
            "--target-kl", 0.05, "--samples", 100, "--device", "cpu", "--report",
            tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    got = coreset.build(X, y, model="logistic", k="auto", target_kl=0.05, samples=100,
                        device="cpu")
    assert untimed(got.report["choose_k"]) == untimed(report["choose_k"])
    assert got.report["quality"]["symmetric_kl"] <= 0.05
    chosen = got.report["choose_k"]["k"]
    below = [t for t in got.report["choose_k"]["tried"] if t["k"] < chosen]
    assert all(not t["reached"] for t in below)
    assert chosen == 1 or any(t["k"] == chosen - 1 for t in below)


def test_choose_k_arguments_and_an_unreachable_target():
    X, y = coreset.synthetic_logistic(60, 3)
    with pytest.raises(ValueError, match="needs target_kl or target_error"):
        coreset.build(X, y, model="logistic", k="auto", device="cpu")
    with pytest.raises(ValueError, match="not both"):
        coreset.build(X, y, model="logistic", k="auto", target_kl=1, target_error=1, device="cpu")
    with pytest.raises(ValueError, match='only read with k="auto"'):
        coreset.build(X, y, model="logistic", k=5, target_kl=1, device="cpu")
    with pytest.raises(coreset.TargetNotReachedError, match="best reached was .* at k = "):
        coreset.build(X, y, model="logistic", k="auto", target_error=1e-14, samples=30,
                      device="cpu")
    with pytest.raises(ValueError, match="k: expected a list of budgets"):
        coreset.sweep(X, y, model="logistic", k=[], device="cpu")
    with pytest.raises(TypeError, match="unexpected keyword"):
        coreset.sweep(X, y, model="logistic", k=[2], max_iterations=3, device="cpu")
