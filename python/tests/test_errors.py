"""Bad input raises clear exceptions; Ctrl-C and the progress callback stop a long solve."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import coreset


def test_the_hierarchy_derives_from_the_builtins():
    assert issubclass(coreset.InvalidArgumentError, ValueError)
    assert issubclass(coreset.InputError, ValueError)
    assert issubclass(coreset.NumericalError, ArithmeticError)
    assert issubclass(coreset.OutputError, OSError)
    assert issubclass(coreset.DeviceError, RuntimeError)
    for kind in (coreset.InvalidArgumentError, coreset.InputError, coreset.NumericalError,
                 coreset.OutputError, coreset.DeviceError):
        assert issubclass(kind, coreset.CoresetError)


@pytest.mark.parametrize("keywords, kind, words", [
    (dict(k=0), coreset.InvalidArgumentError, "k must be at least 1"),
    (dict(max_iter=0), coreset.InvalidArgumentError, "max_iter"),
    (dict(tol=-1.0), coreset.InvalidArgumentError, "tol"),
    (dict(algorithm="lasso"), coreset.InvalidArgumentError, "algorithm: "),
    (dict(algorithm="sparsevi"), coreset.InvalidArgumentError, "build"),
    (dict(step_rule="fast"), coreset.InvalidArgumentError, "step_rule: "),
    (dict(device="tpu"), coreset.InvalidArgumentError, "device: expected"),
    (dict(precision="half"), coreset.InvalidArgumentError, "precision: expected"),
    (dict(k="ten"), TypeError, "k: cannot use 'ten'"),
])
def test_bad_solver_options(planted_phi, keywords, kind, words):
    arguments = dict(k=5, device="cpu")
    arguments.update(keywords)
    with pytest.raises(kind, match=words):
        coreset.solve(planted_phi, **arguments)


def test_messages_use_keyword_names_not_flags(planted_phi):
    with pytest.raises(coreset.InvalidArgumentError) as caught:
        coreset.solve(planted_phi, k=5, max_iter=0, device="cpu")
    assert "--" not in str(caught.value)


def test_bad_data_names_row_and_column(logistic_data):
    X, y = logistic_data
    labels = y.copy()
    labels[17] = 2.0
    with pytest.raises(coreset.InputError, match="row 17") as caught:
        coreset.build(X, labels, model="logistic", k=5, samples=50, device="cpu")
    assert isinstance(caught.value, ValueError)
    covariates = X.copy()
    covariates[4, 1] = np.nan
    with pytest.raises(coreset.InputError, match="row 4"):
        coreset.build(covariates, y, model="logistic", k=5, samples=50, device="cpu")


def test_bad_build_arguments(logistic_data):
    X, y = logistic_data
    with pytest.raises(ValueError, match="model: "):
        coreset.build(X, y, model="probit", device="cpu")
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        coreset.build(X[:, 0], y, model="logistic", device="cpu")
    with pytest.raises(ValueError, match="X: expected real numbers"):
        coreset.build(X.astype(str), y, model="logistic", device="cpu")
    with pytest.raises(ValueError, match="y: expected 1500 values"):
        coreset.build(X, y[:-1], model="logistic", device="cpu")
    with pytest.raises(ValueError, match="needs pihat_samples"):
        coreset.build(X, y, model="logistic", pihat="samples", device="cpu")
    with pytest.raises(ValueError, match="k"):  # a coreset must be smaller than the data
        coreset.build(X[:10], y[:10], model="logistic", k=20, samples=20, device="cpu")
    with pytest.raises(ValueError, match="progress: expected a callable"):
        coreset.build(X, y, model="logistic", device="cpu", progress=3)


def test_gpu_without_one_is_a_device_error(planted_phi):
    usable = bool(coreset.info()["gpus"])
    if usable:
        pytest.skip("a GPU is usable here")
    with pytest.raises(coreset.DeviceError, match="GPU"):
        coreset.solve(planted_phi, k=5, device="gpu")


def long_problem():
    rng = np.random.default_rng(1)
    return np.asfortranarray(rng.normal(size=(200, 20000)))


def test_the_progress_callback_sees_the_solve_and_its_exception_stops_it():
    phi = long_problem()
    seen = []

    class Enough(Exception):
        pass

    def watch(stage, done, total):
        seen.append((stage, done, total))
        if done >= 3:
            raise Enough()

    started = time.monotonic()
    with pytest.raises(Enough):
        coreset.solve(phi, k=500, tol=0.0, max_iter=5000, device="cpu", progress=watch)
    assert time.monotonic() - started < 30
    assert seen[0] == ("solve", 0, 5000)
    assert all(stage == "solve" for stage, _, _ in seen)
    dones = [done for _, done, _ in seen]
    assert dones == sorted(dones)


def test_build_reports_its_stages_in_order(logistic_data):
    X, y = logistic_data
    stages = []
    coreset.build(X, y, model="logistic", k=10, samples=50, device="cpu",
                  progress=lambda stage, done, total: stages.append(stage))
    order = [stage for i, stage in enumerate(stages) if i == 0 or stages[i - 1] != stage]
    assert order == ["laplace", "sampling", "projection", "solve", "evaluation"]


def test_ctrl_c_interrupts_a_long_solve():
    phi = long_problem()
    # Python's own SIGINT handler, whatever this process inherited (a shell's background job
    # starts with SIGINT ignored, and Python then leaves it so).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # Thousands of iterations of milliseconds each: seconds, far beyond the timer.
            coreset.solve(phi, k=500, tol=0.0, max_iter=5000, device="cpu")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 10  # one iteration here is milliseconds


def test_the_gil_is_released_while_the_engine_runs():
    phi = long_problem()
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        coreset.solve(phi, k=500, tol=0.0, max_iter=150, device="cpu")
    finally:
        stop.set()
        thread.join()
    gaps = np.diff(ticks)
    # With the GIL held for the whole solve the ticker would stall for all of it.
    assert len(ticks) > 10 and gaps.max() < 0.5
