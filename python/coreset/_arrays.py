"""Arrays in the layout the engine reads, copied only when they are not.

Each function returns the array to hand to the engine and a description for the report that says
whether it was read in place or copied (and why), so a user can see the copies a call made.
"""

import numpy as np

from .errors import InvalidArgumentError

_ENGINE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# DLPack device types whose memory the host cannot read: CUDA, ROCm, CUDA managed.
_DLPACK_DEVICE_MEMORY = {2: "CUDA", 10: "ROCm", 13: "CUDA managed"}


def _device_memory(value):
    """The kind of GPU memory `value` lives in, or None for host memory."""
    if hasattr(value, "__cuda_array_interface__"):
        return "CUDA (__cuda_array_interface__)"
    if hasattr(value, "__dlpack_device__"):
        try:
            device_type = int(value.__dlpack_device__()[0])
        except (TypeError, ValueError, IndexError, AttributeError):
            return None
        return _DLPACK_DEVICE_MEMORY.get(device_type)
    return None


def as_array(value, name):
    """Any array-like as a NumPy array without copying where NumPy can (buffer protocol,
    __array_interface__, CPU __dlpack__). GPU arrays are refused with a clear message: the engine
    does not yet read device memory in place from Python (README, "Python")."""
    if isinstance(value, np.ndarray):
        return value
    memory = _device_memory(value)
    if memory is not None:
        raise InvalidArgumentError(
            "%s: a GPU array (%s memory) is not read in place yet; pass a host copy (e.g. "
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
    and negative strides (which the engine does not read) undone."""
    array = as_array(value, name)
    if array.ndim != 2:
        raise InvalidArgumentError(
            "%s: expected a 2-D array, got shape %s" % (name, tuple(array.shape)))
    return strided(array, name)


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
    """Log-likelihoods for the strided projection: any non-negative strides are read in place."""
    array, note = with_dtype(array, name, dtype)
    if any(stride < 0 for stride in array.strides):
        array = np.ascontiguousarray(array)
        note = _then(note, "copied (negative strides)")
    return array, note


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
