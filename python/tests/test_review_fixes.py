"""Inputs the package once took wrongly, without an error: a float32 X rounding y, row numbers
that were not whole or not distinct, fields of structured arrays, a sweep's coresets without n,
and a projection from log-likelihoods that Ctrl-C and the callback could not reach."""

import numpy as np
import pytest

import coreset


def test_a_float32_x_keeps_y_in_float64():
    # 16777217 = 2^24 + 1 is not a float32: rounded to 2^24 it is another count, whose
    # log-likelihood differs by about 14 nats at this rate.
    theta = [0.0, 16.6]
    x32 = np.ones((1, 1), np.float32)
    counts = [16777217.0]
    got = coreset.log_likelihood(x32, counts, model="poisson", theta=theta)
    want = coreset.log_likelihood(x32.astype(np.float64), counts, model="poisson", theta=theta)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("indices, message", [
    ([3, 3], "more than once"),
    ([1.7, 3.0], "whole row numbers"),
    ([np.nan, 3.0], "whole row numbers"),
    (["a", "b"], "integer row numbers"),
])
def test_evaluate_refuses_rows_the_command_refuses(logistic_data, indices, message):
    X, y = logistic_data
    with pytest.raises(coreset.InvalidArgumentError, match=message):
        coreset.evaluate(X, y, model="logistic", indices=indices, weights=[1.0, 2.0],
                         samples=50, device="cpu")


def test_evaluate_takes_whole_floats_as_rows(logistic_data):
    X, y = logistic_data
    a = coreset.evaluate(X, y, model="logistic", indices=[3.0, 7.0], weights=[1.0, 2.0],
                         samples=50, device="cpu")
    b = coreset.evaluate(X, y, model="logistic", indices=[3, 7], weights=[1.0, 2.0],
                         samples=50, device="cpu")
    np.testing.assert_array_equal(a.indices, [3, 7])
    assert a.report["quality"] == b.report["quality"]


def test_a_field_of_a_structured_array_is_copied_not_refused(logistic_data):
    X, y = logistic_data
    records = np.zeros(len(y), dtype=[("x", "f8", (X.shape[1],)), ("y", "i4")])
    records["x"], records["y"] = X, y
    field = records["x"]  # strides of 20 + 8 * D bytes: not whole float64 elements
    assert field.strides[0] % field.itemsize != 0
    a = coreset.build(field, records["y"], model="logistic", k=10, samples=50, device="cpu")
    b = coreset.build(np.ascontiguousarray(field), y, model="logistic", k=10, samples=50,
                      device="cpu")
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.weights, b.weights)
    loglik = np.zeros(300, dtype=[("v", "f8", (20,)), ("tag", "i4")])
    loglik["v"] = np.random.default_rng(3).normal(size=(300, 20))
    c = coreset.solve(loglik=loglik["v"], k=5, device="cpu")
    d = coreset.solve(loglik=np.ascontiguousarray(loglik["v"]), k=5, device="cpu")
    np.testing.assert_array_equal(c.indices, d.indices)
    assert "copied (strides not whole elements)" in str(c.report["python"])


def test_a_sweeps_coresets_know_the_datas_size(logistic_data):
    X, y = logistic_data
    s = coreset.sweep(X, y, model="logistic", k=[5, 10], samples=50, device="cpu")
    w = s[10].dense()
    assert w.shape == (len(y),)
    np.testing.assert_array_equal(np.flatnonzero(w), s[10].indices)


def test_the_projection_from_log_likelihoods_reports_and_stops():
    loglik = np.random.default_rng(5).normal(size=(40000, 30))
    seen = []

    def watch(stage, done, total):
        seen.append((stage, done, total))

    coreset.solve(loglik=loglik, k=5, device="cpu", progress=watch)
    assert ("projection", 0, 40000) in seen or any(
        stage == "projection" and total == 40000 for stage, _, total in seen), seen

    class Stop(Exception):
        pass

    def stop(stage, done, total):
        if stage == "projection":
            raise Stop()

    with pytest.raises(Stop):
        coreset.solve(loglik=loglik, k=5, device="cpu", progress=stop)


@pytest.mark.parametrize("shape", [(10, 0), (1, 0), (0, 5)])
def test_an_empty_phi_is_refused_as_empty(shape):
    with pytest.raises(coreset.InvalidArgumentError, match="at least one row and one column"):
        coreset.solve(np.zeros(shape, order="F"), k=1, device="cpu")


@pytest.mark.parametrize("keywords", [{"k": 2**63}, {"max_iter": 2**40}, {"seed": -1},
                                      {"seed": 2**64}])
def test_numbers_out_of_an_options_range_are_invalid_arguments(planted_phi, keywords):
    name = next(iter(keywords))
    options = dict(k=5, device="cpu")
    options.update(keywords)
    with pytest.raises(coreset.InvalidArgumentError, match="%s: .* is out of range" % name):
        coreset.solve(planted_phi, **options)


def test_a_3d_loglik_that_numpy_must_copy_says_so():
    draws = np.random.default_rng(9).normal(size=(4, 10, 100))
    in_place = coreset.solve(loglik=draws, k=5, device="cpu")
    fortran = coreset.solve(loglik=np.asfortranarray(draws), k=5, device="cpu")
    np.testing.assert_array_equal(in_place.indices, fortran.indices)
    assert "copied" not in str(in_place.report["python"])
    assert "cannot be flattened in place" in str(fortran.report["python"])


@pytest.mark.parametrize("keywords, message", [
    ({"max_iter": 0}, r"^max_iter must be between 1 and 1e9 \(got 0\)"),
    ({"tol": -1.0}, r"^tol must be a finite number >= 0"),
    ({"tol": float("nan")}, r"^tol must be a finite number >= 0"),
])
def test_a_solver_keyword_out_of_range_is_named_as_the_caller_wrote_it(planted_phi, keywords,
                                                                       message):
    with pytest.raises(coreset.InvalidArgumentError, match=message):
        coreset.solve(planted_phi, k=5, device="cpu", **keywords)


class _RocmArray:
    """An array that says (through DLPack) it lives in ROCm memory, as a ROCm PyTorch tensor does."""

    shape = (4, 10)

    def __dlpack_device__(self):
        return (10, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("ROCm memory must be refused before it is taken over")


@pytest.mark.parametrize("device", ["cpu", "gpu", "auto"])
def test_rocm_memory_is_refused_with_advice_that_works(device):
    # Before, device="cpu" was told to pass device="gpu", which then refused it too.
    with pytest.raises(coreset.InvalidArgumentError) as raised:
        coreset.solve(_RocmArray(), k=2, device=device)
    message = str(raised.value)
    assert message.startswith("phi: ROCm memory is not supported"), message
    assert "host copy" in message and "device='gpu'" not in message


def test_rocm_memory_is_refused_as_a_dataset_too():
    with pytest.raises(coreset.InvalidArgumentError, match="X: ROCm memory is not supported"):
        coreset.build(_RocmArray(), np.zeros(4), model="logistic", k=2, device="cpu")
