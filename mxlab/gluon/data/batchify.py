"""Batchify functions: how a list of samples becomes one batch.

Example
-------
>>> import mxlab as mx
>>> mx.gluon.data.batchify.Stack()([[1, 2], [3, 4]]).shape
(2, 2)
"""
import numpy

__all__ = ["Stack", "Pad", "Group", "default_batchify_fn"]


def _stack_arrays(items):
    """Stack samples (NDArrays, NumPy arrays or numbers) into one array of their flavour."""
    from ...ndarray.ndarray import NDArray, array, ndarray
    from ...util import is_np_array

    first = items[0]
    host = numpy.stack([x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)
                        for x in items])
    if host.dtype == numpy.float64:
        host = host.astype(numpy.float32)
    cls = type(first) if isinstance(first, NDArray) else (ndarray if is_np_array() else NDArray)
    return array(host, dtype=host.dtype, cls=cls)


class Stack:
    """Stack samples along a new first axis."""

    def __call__(self, data):
        return _stack_arrays(data)


class Pad:
    """Pad samples along ``axis`` to the longest with ``val``, then stack."""

    def __init__(self, axis=0, val=0, ret_length=False):
        self._axis, self._val, self._ret_length = axis, val, ret_length

    def __call__(self, data):
        hosts = [x.asnumpy() if hasattr(x, "asnumpy") else numpy.asarray(x) for x in data]
        lengths = [h.shape[self._axis] for h in hosts]
        longest = max(lengths)
        padded = []
        for host in hosts:
            widths = [(0, 0)] * host.ndim
            widths[self._axis] = (0, longest - host.shape[self._axis])
            padded.append(numpy.pad(host, widths, constant_values=self._val))
        out = _stack_arrays(padded)
        return (out, _stack_arrays(lengths)) if self._ret_length else out


class Group:
    """One batchify function per field of tuple samples."""

    def __init__(self, *fns):
        self._fns = fns[0] if len(fns) == 1 and isinstance(fns[0], (list, tuple)) else fns

    def __call__(self, data):
        return tuple(fn([sample[i] for sample in data]) for i, fn in enumerate(self._fns))


def default_batchify_fn(data):
    """Stack samples; tuple samples are batched field by field."""
    if isinstance(data[0], tuple):
        return tuple(default_batchify_fn(list(field)) for field in zip(*data))
    return _stack_arrays(data)
