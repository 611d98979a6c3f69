"""GPU arrays (__cuda_array_interface__, CUDA __dlpack__) as solve's phi, loglik and y.

On any machine: the layout and dtype read from each interface, the errors that come before any
device memory is touched, the DLPack capsule's take-over (tested on NumPy's CPU capsules), and
that a GPU array reaches the engine rather than being read on the host (a DeviceError without a
GPU). With a GPU and libcudart loadable through ctypes: arrays made in device memory are solved in
place and give the coreset of the same numbers solved from the host on the GPU."""

import ctypes
import ctypes.util

import numpy as np
import pytest

import coreset
from coreset import _arrays, _core


def gpu_usable():
    return bool(coreset.info()["gpus"])


class FakeCuda:
    """__cuda_array_interface__ alone, at an address nothing may read without a GPU."""

    def __init__(self, shape, typestr="<f8", strides=None, data=0x1000, mask=None, stream=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (data, False), "version": 3, "mask": mask,
                                         "stream": stream}


class FakeCudaDlpack:
    """A "CUDA" DLPack tensor whose capsule is NumPy's (host memory): enough to check the
    take-over; the engine must refuse the pointer rather than read it as device memory."""

    def __init__(self, array):
        self.array = array
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)


def test_cuda_array_interface_layouts_are_read_as_given():
    c_order = _arrays.device_array(FakeCuda((40, 300)), "phi")
    assert (c_order.shape, c_order.strides, c_order.dtype) == ((40, 300), (300, 1), np.float64)
    assert c_order.source == "__cuda_array_interface__" and c_order.stream == 0
    fortran = _arrays.device_array(FakeCuda((40, 300), "<f4", strides=(4, 160), stream=7), "phi")
    assert fortran.spec() == (0x1000, 40, 300, 1, 40, "float32", 7)
    assert fortran.T.spec() == (0x1000, 300, 40, 40, 1, "float32", 7)
    chains = _arrays.device_array(FakeCuda((2, 20, 300)), "loglik").reshape(40, 300)
    assert (chains.shape, chains.strides) == ((40, 300), (300, 1))
    scattered = _arrays.device_array(FakeCuda((2, 20, 300), strides=(8, 16, 320)), "loglik")
    with pytest.raises(coreset.InvalidArgumentError, match="loglik: .*cannot be read as chain"):
        scattered.reshape(40, 300)


@pytest.mark.parametrize("change, match", [
    (dict(typestr="<i4"), "float32 or float64"),
    (dict(typestr=">f8"), "float32 or float64"),
    (dict(strides=(-8, 320)), "non-negative whole elements"),
    (dict(strides=(3, 320)), "non-negative whole elements"),
    (dict(mask=(0x2000, False)), "masked"),
])
def test_bad_cuda_array_interfaces_are_named_errors(change, match):
    with pytest.raises(coreset.InvalidArgumentError, match="phi: .*" + match):
        coreset.solve(FakeCuda((40, 300), **change), k=5, device="gpu")


def test_a_gpu_array_for_the_cpu_is_refused_before_it_is_taken():
    class NeverExport:
        def __dlpack__(self, stream=None):
            raise AssertionError("a CUDA tensor was exported for a CPU solve")

        def __dlpack_device__(self):
            return (2, 0)

    for array in (FakeCuda((40, 300)), NeverExport()):
        with pytest.raises(coreset.InvalidArgumentError, match="phi is a GPU array"):
            coreset.solve(array, k=5, device="cpu")
    with pytest.raises(coreset.InvalidArgumentError, match="loglik is a GPU array"):
        coreset.solve(loglik=FakeCuda((300, 40)), k=5, device="cpu")


def test_gpu_arrays_elsewhere_say_where_they_are_read():
    with pytest.raises(coreset.InvalidArgumentError, match="indices: a GPU array .* not taken"):
        coreset.evaluate(np.zeros((10, 2)), np.ones(10), model="logistic",
                         indices=FakeCuda((3,), "<i8"), weights=[1.0, 1.0, 1.0])
    vector = _arrays.device_array(FakeCuda((100,), stream=3), "y").as_matrix("y")
    assert vector.spec() == (0x1000, 100, 1, 1, 0, "float64", 3)
    with pytest.raises(coreset.InvalidArgumentError, match="X: expected a 1-D or 2-D GPU array"):
        _arrays.device_array(FakeCuda((2, 3, 4)), "X").as_matrix("X")
    with pytest.raises(coreset.InvalidArgumentError, match="precision: 'float' asks for float32"):
        coreset.solve(FakeCuda((40, 300)), k=5, precision="float")
    with pytest.raises(coreset.InvalidArgumentError, match="phi: expected a 2-D array"):
        coreset.solve(FakeCuda((40, 300, 2)), k=5)
    with pytest.raises(coreset.InvalidArgumentError, match="y: expected 40 contiguous float64"):
        coreset.solve(FakeCuda((40, 300)), y=FakeCuda((40,), "<f4"), k=5)
    with pytest.raises(coreset.InvalidArgumentError, match="samples_axis: only read with loglik"):
        coreset.solve(FakeCuda((40, 300)), k=5, samples_axis=0)


@pytest.mark.skipif(gpu_usable(), reason="checks the machine without a GPU")
def test_without_a_gpu_a_gpu_array_is_a_device_error_not_a_host_read():
    _, y = coreset.synthetic_logistic(100, 1)
    for X, response in ((FakeCuda((100, 2)), y), (np.zeros((100, 2)), FakeCuda((100,)))):
        with pytest.raises(coreset.DeviceError, match="array is in GPU memory but no GPU"):
            coreset.build(X, response, model="logistic", k=5, device="cpu")
    for device in ("gpu", "auto"):
        with pytest.raises(coreset.DeviceError, match="Phi is in GPU memory but no GPU is usable"):
            coreset.solve(FakeCuda((40, 300)), k=5, device=device)
        with pytest.raises(coreset.DeviceError, match="log-likelihood matrix is in GPU memory"):
            coreset.solve(loglik=FakeCuda((300, 40), "<f4"), k=5, device=device)


def test_dlpack_capsules_are_taken_over_as_the_protocol_says():
    base = np.arange(120.0).reshape(12, 10)
    view = base[::2, 1:8]
    tensor = _core.DLPackTensor(view.__dlpack__(), "phi")
    assert tensor.pointer == view.__array_interface__["data"][0]
    assert (tensor.shape, tensor.strides, tensor.dtype) == ([6, 7], [20, 1], "float64")
    assert (tensor.device_type, tensor.device_id) == (1, 0)
    assert _core.DLPackTensor(np.zeros(3, np.int32).__dlpack__(), "phi").dtype == "int32"
    capsule = base.__dlpack__()
    _core.DLPackTensor(capsule, "phi")
    with pytest.raises(coreset.InvalidArgumentError, match="phi: .*unused DLPack capsule"):
        _core.DLPackTensor(capsule, "phi")  # consumed: the producer's deleter has run
    with pytest.raises(coreset.InvalidArgumentError, match="loglik: .*DLPack capsule"):
        _core.DLPackTensor(object(), "loglik")


def test_a_cuda_dlpack_array_is_described_and_reaches_the_engine():
    phi = np.asfortranarray(np.ones((40, 300), np.float32))
    producer = FakeCudaDlpack(phi)
    array = _arrays.device_array(producer, "phi")
    assert producer.streams == [1]  # ordered before CUDA's legacy default stream
    assert array.spec() == (phi.__array_interface__["data"][0], 40, 300, 1, 40, "float32", 1)
    assert array.source == "DLPack" and isinstance(array.keepalive, _core.DLPackTensor)
    ints = FakeCudaDlpack(np.zeros((40, 300), np.int64))
    with pytest.raises(coreset.InvalidArgumentError, match="phi: .*float32 or float64 .*int64"):
        _arrays.device_array(ints, "phi")
    if gpu_usable():
        with pytest.raises(coreset.InvalidArgumentError, match="not in CUDA device memory"):
            coreset.solve(FakeCudaDlpack(phi), k=5)
    else:
        with pytest.raises(coreset.DeviceError):
            coreset.solve(FakeCudaDlpack(phi), k=5)


# ---- on a GPU: device memory made through the CUDA runtime itself ----

def _cudart():
    names = ["libcudart.so", "/usr/local/cuda/lib64/libcudart.so", ctypes.util.find_library("cudart")]
    for name in names:
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    return None


CUDART = _cudart() if gpu_usable() else None
needs_gpu = pytest.mark.skipif(CUDART is None, reason="no usable GPU (or no libcudart for ctypes)")


class DeviceArray:
    """A NumPy array's bytes copied to device memory, exposed as __cuda_array_interface__ with
    the array's own shape and strides."""

    def __init__(self, host):
        self.pointer = ctypes.c_void_p()
        base = np.ascontiguousarray(host) if not (host.flags.c_contiguous or host.flags.f_contiguous) else host
        assert CUDART.cudaMalloc(ctypes.byref(self.pointer), ctypes.c_size_t(base.nbytes)) == 0
        assert CUDART.cudaMemcpy(self.pointer, ctypes.c_void_p(base.ctypes.data),
                                 ctypes.c_size_t(base.nbytes), 1) == 0  # host to device
        self.__cuda_array_interface__ = {
            "shape": base.shape, "typestr": base.dtype.str, "strides": base.strides,
            "data": (self.pointer.value, False), "version": 3, "stream": None}

    def __del__(self):
        CUDART.cudaFree(self.pointer)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_device_phi_gives_the_host_phis_gpu_coreset(planted_phi, dtype):
    host = np.asfortranarray(planted_phi.astype(dtype))
    expected = coreset.solve(host, k=10, device="gpu")
    got = coreset.solve(DeviceArray(host), k=10, device="gpu")
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.weights, expected.weights)
    assert got.report["python"]["arrays"]["phi"].endswith("read in place on the GPU")
    c_order = coreset.solve(DeviceArray(np.ascontiguousarray(host)), k=10, device="auto")
    np.testing.assert_array_equal(c_order.indices, expected.indices)
    assert "copied once on the GPU" in c_order.report["python"]["arrays"]["phi"]
    y = host.sum(axis=1) * dtype(0.9)
    with_y = coreset.solve(DeviceArray(host), y=DeviceArray(y), k=10, device="gpu")
    np.testing.assert_array_equal(with_y.indices, coreset.solve(host, y=y, k=10, device="gpu").indices)


@needs_gpu
def test_device_log_likelihoods_give_the_host_ones_coreset():
    rng = np.random.default_rng(5)
    loglik = rng.normal(size=(300, 6)) @ rng.normal(size=(6, 40)) - 3.0  # n x S
    expected = coreset.solve(loglik=loglik, k=10, device="gpu")
    for layout, samples_axis in ((loglik, None), (np.ascontiguousarray(loglik.T), 0)):
        got = coreset.solve(loglik=DeviceArray(layout), samples_axis=samples_axis, k=10,
                            device="gpu")
        np.testing.assert_array_equal(got.indices, expected.indices)
        assert got.report["relative_error"] == pytest.approx(expected.report["relative_error"],
                                                             rel=1e-9)


@needs_gpu
def test_a_dataset_in_gpu_memory_is_copied_once_and_builds_the_host_coreset():
    X, y = coreset.synthetic_logistic(2000, 4)
    expected = coreset.build(X, y, model="logistic", k=20, samples=100, device="gpu")
    for layout in (np.asfortranarray(X), np.ascontiguousarray(X)):  # in place, then gathered
        got = coreset.build(DeviceArray(layout), DeviceArray(y), model="logistic", k=20,
                            samples=100, device="gpu")
        np.testing.assert_array_equal(got.indices, expected.indices)
        np.testing.assert_array_equal(got.weights, expected.weights)
        assert "copied from the GPU (__cuda_array_interface__) once" in \
            got.report["python"]["arrays"]["X"]


@needs_gpu
def test_a_non_finite_device_entry_is_named():
    bad = np.asfortranarray(np.ones((40, 300)))
    bad[3, 17] = np.nan
    with pytest.raises(coreset.InvalidArgumentError, match="row 3, column 17"):
        coreset.solve(DeviceArray(bad), k=5, device="gpu")
    loglik = np.ones((300, 40))
    loglik[5, 2] = np.inf
    with pytest.raises(coreset.InvalidArgumentError, match="datapoint 5, draw 2"):
        coreset.solve(loglik=DeviceArray(loglik), k=5, device="gpu")


# ---- on a GPU with the frameworks users hand arrays from (CuPy, PyTorch): skipped without ----

def _framework(name):
    if not gpu_usable():
        return None
    try:
        module = __import__(name)
    except Exception:  # not installed, or installed without a usable CUDA build
        return None
    try:
        if name == "torch":
            return module if module.cuda.is_available() else None
        module.cuda.runtime.getDeviceCount()
        return module
    except Exception:
        return None


cupy = _framework("cupy")
torch = _framework("torch")


class DlpackOnly:
    """A framework array seen through __dlpack__ alone, so the DLPack path is the one taken."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.mark.skipif(cupy is None, reason="no CuPy with a usable GPU")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_arrays_give_the_host_coreset(planted_phi, dtype):
    host = np.asfortranarray(planted_phi.astype(dtype))
    expected = coreset.solve(host, k=10, device="gpu")
    for layout in (cupy.asarray(host, order="F"), cupy.asarray(host, order="C")):
        for wrapped in (layout, DlpackOnly(layout)):  # __cuda_array_interface__, then DLPack
            got = coreset.solve(wrapped, k=10, device="gpu")
            np.testing.assert_array_equal(got.indices, expected.indices)
            np.testing.assert_array_equal(got.weights, expected.weights)
    # ArviZ's (chain, draw, n) log-likelihoods, made on the device.
    rng = np.random.default_rng(8)
    loglik = (rng.normal(size=(2, 20, 5)) @ rng.normal(size=(5, 300)) - 2.0).astype(dtype)
    from_host = coreset.solve(loglik=loglik, k=10, device="gpu")
    from_cupy = coreset.solve(loglik=cupy.asarray(loglik), k=10, device="gpu")
    np.testing.assert_array_equal(from_cupy.indices, from_host.indices)


@pytest.mark.skipif(torch is None, reason="no PyTorch with a usable GPU")
def test_torch_tensors_give_the_host_coreset(planted_phi):
    host = np.ascontiguousarray(planted_phi.astype(np.float32))
    expected = coreset.solve(host, k=10, device="gpu")
    tensor = torch.from_numpy(host).cuda()
    for wrapped in (tensor, DlpackOnly(tensor), tensor.T.contiguous().T):
        got = coreset.solve(wrapped, k=10, device="gpu")
        np.testing.assert_array_equal(got.indices, expected.indices)
        np.testing.assert_array_equal(got.weights, expected.weights)
    # Work queued on PyTorch's stream before the call is waited for: the tensor is written by a
    # kernel just before it is handed over.
    late = torch.zeros_like(tensor)
    late.copy_(tensor)
    got = coreset.solve(late, k=10, device="gpu")
    np.testing.assert_array_equal(got.indices, expected.indices)
    # A dataset on the device builds the host dataset's coreset.
    X, y = coreset.synthetic_logistic(2000, 4)
    built = coreset.build(torch.from_numpy(X).cuda(), torch.from_numpy(y).cuda(), model="logistic",
                          k=20, samples=100, device="gpu")
    reference = coreset.build(X, y, model="logistic", k=20, samples=100, device="gpu")
    np.testing.assert_array_equal(built.indices, reference.indices)
