"""Arrays in the layout the engine reads, copied only when they are not.

Each function returns the array to hand to the engine and a description for the report that says
whether it was read in place or copied (and why), so a user can see the copies a call made.
"""

import numpy as np

from .errors import InvalidArgumentError

_ENGINE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# DLPack device types (dlpack.h's DLDeviceType).
_DLPACK_CPU = 1
_DLPACK_CUDA = {2: "CUDA", 13: "CUDA managed"}
_DLPACK_OTHER_DEVICES = {10: "ROCm"}


class DeviceArray:
    """An array in CUDA device memory as the engine reads it: a pointer, a shape, strides in
    elements (>= 0), float32 or float64, the producer's stream to wait for (0: none), and the
    object that keeps the memory alive (the array itself, or the DLPack tensor taken over)."""

    def __init__(self, pointer, shape, strides, dtype, stream, keepalive, source):
        self.pointer = int(pointer)
        self.shape = tuple(int(x) for x in shape)
        self.strides = tuple(int(x) for x in strides)
        self.dtype = np.dtype(dtype)
        self.stream = int(stream or 0)
        self.keepalive = keepalive
        self.source = source

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def T(self):  # noqa: N802 (NumPy's name: the layout code reads both kinds of array alike)
        """The 2-D transpose, as a view (no copy)."""
        return DeviceArray(self.pointer, self.shape[::-1], self.strides[::-1], self.dtype,
                           self.stream, self.keepalive, self.source)

    def reshape(self, rows, cols):
        """(chain, draw, n) as (chain * draw, n), the one reshape the engine asks of a GPU array:
        a view when chains follow one another in memory at the draws' stride (a C-ordered array,
        say)."""
        chains, draws, points = self.shape
        if (rows, cols) != (chains * draws, points):
            raise InvalidArgumentError("loglik: cannot reshape a GPU array %s to %s"
                                       % (self.shape, (rows, cols)))
        if chains > 1 and self.strides[0] != draws * self.strides[1]:
            raise InvalidArgumentError(
                "loglik: this (chain, draw, n) GPU array cannot be read as chain * draw draws in "
                "place (strides %s); make it contiguous on the GPU first" % (self.strides,))
        return DeviceArray(self.pointer, (rows, cols), self.strides[1:], self.dtype,
                           self.stream, self.keepalive, self.source)

    def as_matrix(self, name):
        """A 1-D array as one column, a 2-D one as it is."""
        if self.ndim == 1:
            return DeviceArray(self.pointer, self.shape + (1,), self.strides + (0,), self.dtype,
                               self.stream, self.keepalive, self.source)
        if self.ndim != 2:
            raise InvalidArgumentError(
                "%s: expected a 1-D or 2-D GPU array, got shape %s" % (name, self.shape))
        return self

    def spec(self):
        """What _core.solve_device reads: (pointer, rows, cols, row_stride, col_stride, dtype,
        stream)."""
        rows, cols = self.shape
        return (self.pointer, rows, cols, self.strides[0], self.strides[1], self.dtype.name,
                self.stream)


def _engine_dtype(dtype, name):
    dtype = np.dtype(dtype)
    if dtype not in _ENGINE_DTYPES:
        raise InvalidArgumentError(
            "%s: a GPU array must be float32 or float64 (got %s); convert it on the GPU first "
            "(e.g. a.astype('float32'))" % (name, dtype))
    return dtype


def _element_strides(byte_strides, itemsize, name):
    strides = []
    for stride in byte_strides:
        if stride < 0 or stride % itemsize != 0:
            raise InvalidArgumentError(
                "%s: the GPU array's strides must be non-negative whole elements (got %s bytes); "
                "make it contiguous on the GPU first" % (name, tuple(byte_strides)))
        strides.append(stride // itemsize)
    return strides


def _from_cuda_array_interface(value, name):
    """__cuda_array_interface__ (versions 0-3): the dict's typestr, shape, strides (bytes, None
    for C order), data (pointer, read-only flag), mask (must be absent) and stream."""
    interface = value.__cuda_array_interface__
    if not isinstance(interface, dict) or "shape" not in interface or "data" not in interface:
        raise InvalidArgumentError("%s: __cuda_array_interface__ is not a dict with shape and data"
                                   % name)
    if interface.get("mask") is not None:
        raise InvalidArgumentError("%s: a masked GPU array is not supported" % name)
    try:
        dtype = np.dtype(interface.get("typestr"))
    except TypeError:
        raise InvalidArgumentError("%s: unreadable typestr %r in __cuda_array_interface__"
                                   % (name, interface.get("typestr"))) from None
    dtype = _engine_dtype(dtype, name)
    if not dtype.isnative:
        raise InvalidArgumentError("%s: the GPU array's byte order is not the machine's" % name)
    shape = tuple(int(x) for x in interface["shape"])
    strides = interface.get("strides")
    if strides is None:
        strides, step = [], dtype.itemsize
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= max(extent, 1)
    pointer = interface["data"][0] if interface["data"] else 0
    return DeviceArray(pointer, shape, _element_strides(strides, dtype.itemsize, name), dtype,
                       interface.get("stream"), value, "__cuda_array_interface__")


def _from_dlpack(value, name):
    """A CUDA DLPack tensor, taken over from the capsule (its deleter runs when the returned
    array goes). The producer is asked to order its work before CUDA's legacy default stream
    (stream=1, the protocol's convention), which the engine then waits for."""
    from . import _core  # not at import time: the pure-Python helpers work without the module
    try:
        capsule = value.__dlpack__(stream=1)
    except TypeError:
        capsule = value.__dlpack__()
    tensor = _core.DLPackTensor(capsule, name)
    if tensor.dtype not in ("float32", "float64"):
        raise InvalidArgumentError(
            "%s: a GPU array must be float32 or float64 (got %s); convert it on the GPU first "
            "(e.g. a.astype('float32'))" % (name, tensor.dtype))
    if any(stride < 0 for stride in tensor.strides):
        raise InvalidArgumentError(
            "%s: the GPU array's strides must be non-negative (got %s elements); make it "
            "contiguous on the GPU first" % (name, tuple(tensor.strides)))
    return DeviceArray(tensor.pointer, tensor.shape, tensor.strides, tensor.dtype, 1, tensor,
                       "DLPack")


def _dlpack_device(value):
    try:
        return int(value.__dlpack_device__()[0])
    except (TypeError, ValueError, IndexError, AttributeError):
        return None


def device_array(value, name):
    """`value` as a DeviceArray when it lives in CUDA memory (__cuda_array_interface__, or
    __dlpack__ on a CUDA device: CuPy, PyTorch, JAX, Numba), else None (host memory)."""
    if hasattr(value, "__cuda_array_interface__"):
        return _from_cuda_array_interface(value, name)
    if hasattr(value, "__dlpack_device__"):
        device = _dlpack_device(value)
        if device in _DLPACK_CUDA:
            return _from_dlpack(value, name)
    return None


def host_copy(value, name):
    """A GPU array (1-D or 2-D) copied to the host once by the engine, from the GPU that holds
    it, as a NumPy array; (array, note)."""
    from . import _core
    array = device_array(value, name)
    copy = _core.copy_to_host(array.as_matrix(name).spec())
    if array.ndim == 1:
        copy = copy[:, 0]
    return copy, "copied from the GPU (%s) once" % array.source


def as_host_array(value, name):
    """as_array, or for a GPU array its host copy: for arguments the engine keeps on the host (a
    dataset's X and y). (array, note or None)."""
    if device_array_kind(value, name) is not None:
        return host_copy(value, name)
    return as_array(value, name), None


def as_array(value, name):
    """Any host array-like as a NumPy array without copying where NumPy can (buffer protocol,
    __array_interface__, CPU __dlpack__). GPU arrays are refused here with a clear message: the
    arguments that take them go through device_array() or as_host_array() first."""
    if isinstance(value, np.ndarray):
        return value
    memory = device_array_kind(value, name)
    if memory is not None:
        raise InvalidArgumentError(
            "%s: a GPU array (%s memory) is not taken here; pass a host array (e.g. "
            "cupy.asnumpy(a), tensor.cpu().numpy(), numpy.asarray(jax_array))" % (name, memory))
    if hasattr(value, "__dlpack__") and not hasattr(value, "__array__"):
        try:
            return np.from_dlpack(value)
        except (TypeError, RuntimeError, BufferError) as error:
            raise InvalidArgumentError(
                "%s: cannot read this %s through DLPack on the CPU (%s)"
                % (name, type(value).__name__, error)
            ) from None
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as error:
        raise InvalidArgumentError("%s: expected an array, got %s (%s)" % (name, type(value).__name__, error)) from None


def device_array_kind(value, name):
    """The kind of CUDA memory `value` lives in ("CUDA (__cuda_array_interface__)", "CUDA",
    "CUDA managed"), or None for host memory. Memory of a GPU the engine cannot read (ROCm) is an
    InvalidArgumentError naming `name`: neither device='gpu' nor the host path can take it, so the
    only advice that helps is a host copy."""
    if hasattr(value, "__cuda_array_interface__"):
        return "CUDA (__cuda_array_interface__)"
    if hasattr(value, "__dlpack_device__"):
        device = _dlpack_device(value)
        if device in _DLPACK_OTHER_DEVICES:
            raise InvalidArgumentError(
                "%s: %s memory is not supported (the engine runs on CUDA GPUs and the CPU); pass a "
                "host copy, e.g. tensor.cpu().numpy()" % (name, _DLPACK_OTHER_DEVICES[device]))
        return _DLPACK_CUDA.get(device)
    return None


def with_dtype(array, name, dtype=None):
    """`array` as float32/float64: kept when it already is one (or is `dtype`), else converted
    (a copy). Returns (array, note)."""
    if array.dtype.kind not in "biuf":
        raise InvalidArgumentError("%s: expected real numbers, got dtype %s" % (name, array.dtype))
    target = np.dtype(dtype) if dtype is not None else (
        array.dtype if array.dtype in _ENGINE_DTYPES else np.dtype(np.float64))
    if array.dtype == target:
        return array, None
    return array.astype(target), "converted from %s" % array.dtype


def _then(note, step):
    """A second step after an earlier note (a conversion), or the step alone."""
    return note + ", then " + step if note else step


def matrix_for_copy(value, name):
    """A matrix the engine copies anyway (a dataset's covariates): only its dtype is settled here,
    and negative strides (which the engine does not read) undone. A GPU array is copied to the
    host first (the engine's dataset lives there; a GPU build uploads it once)."""
    array, gpu_note = as_host_array(value, name)
    if array.ndim != 2:
        raise InvalidArgumentError(
            "%s: expected a 2-D array, got shape %s" % (name, tuple(array.shape)))
    array, note = strided(array, name)
    return array, _then(gpu_note, note) if gpu_note and note else (gpu_note or note)


def column_major(value, name, dtype=None):
    """Phi (S x n) for solve: read in place when it is float32/float64 in Fortran order (or a
    slice of columns of such an array, e.g. `phi_c_order_n_by_s.T`), else copied once."""
    array = as_array(value, name)
    if array.ndim != 2:
        raise InvalidArgumentError(
            "%s: expected a 2-D array (S x n), got shape %s" % (name, tuple(array.shape)))
    array, note = with_dtype(array, name, dtype)
    item = array.itemsize
    in_place = (array.strides[0] == item or array.shape[0] <= 1) and (
        array.shape[1] <= 1 or array.strides[1] >= item * array.shape[0])
    if not in_place:
        array = np.asfortranarray(array)
        note = _then(note, "copied to Fortran order")
    return array, describe(array, note)


def strided(array, name, dtype=None):
    """Log-likelihoods for the strided projection: strides that are non-negative whole numbers
    of elements are read in place; others (reversed views, a field of a structured array) are
    copied once."""
    array, note = with_dtype(array, name, dtype)
    if any(stride < 0 for stride in array.strides):
        array = np.ascontiguousarray(array)
        note = _then(note, "copied (negative strides)")
    elif any(stride % array.itemsize for stride in array.strides):
        array = np.ascontiguousarray(array)
        note = _then(note, "copied (strides not whole elements)")
    return array, note


def row_indices(value, name):
    """0-based row numbers as int64: integers, or floats with whole values; anything else (1.7,
    NaN) is an InvalidArgumentError rather than truncated."""
    array = as_array(value, name)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind in "fb" or array.size == 0:
        values = array.astype(np.float64)
        whole = np.isfinite(values) & (values == np.floor(values))
        if not np.all(whole):
            raise InvalidArgumentError(
                "%s: expected whole row numbers, got %r" % (name, values[~whole][0]))
        return values.astype(np.int64)
    raise InvalidArgumentError(
        "%s: expected integer row numbers, got an array of dtype %s" % (name, array.dtype))


def vector(value, name, length, dtype):
    """A vector of `length` values as a contiguous array of `dtype`."""
    array = np.ascontiguousarray(as_array(value, name), dtype=dtype)
    if array.shape != (length,):
        raise InvalidArgumentError(
            "%s: expected %d values, got shape %s" % (name, length, tuple(array.shape)))
    return array


def describe(array, note):
    """ "float32 array (500, 100000), read in place" (or the note on how it was made)."""
    return "%s array %s, %s" % (array.dtype, tuple(array.shape), note or "read in place")
