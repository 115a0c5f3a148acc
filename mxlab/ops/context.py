"""The op context: what a kernel may ask of the run that calls it (MXNet's ``OpContext``).

A kernel that names a ``ctx`` parameter (``compute(xp, inputs, attrs, ctx)``) is handed one by
whoever runs it: the imperative dispatcher (from ``autograd.is_training()`` when the op is
pushed), the graph executors (their ``is_train``), the interpreters. Kernels read the mode from it
instead of from thread-local state, so an op computes the same on any engine worker thread.

A kernel that needs scratch memory asks its context for it (:meth:`OpContext.temp_space`,
MXNet's ``requested`` ``kTempSpace`` resource) instead of allocating: one growing buffer per
device and thread, reused by every call, so a steady-state loop allocates no scratch. The op
lists ``"temp"`` in ``Op.resources``.

Contexts are immutable and there are two (:data:`TRAIN`, :data:`PREDICT`; :func:`op_context`
picks one), so passing one costs a lookup, not an allocation, per op.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> dropout = get_op("Dropout")
>>> attrs = dropout.parse_attrs({"p": 0.5})
>>> x = numpy.ones(4, dtype="float32")
>>> dropout.forward(numpy, [x], attrs, ctx=PREDICT)[0]       # inference: the identity
array([1., 1., 1., 1.], dtype=float32)
>>> dropout.takes_ctx, get_op("relu").takes_ctx
(True, False)
>>> scratch = PREDICT.temp_space(numpy, (2, 3), "float32")
>>> scratch.shape, scratch.dtype.name
((2, 3), 'float32')
"""
import threading

import numpy

from . import rng

__all__ = ["OpContext", "TRAIN", "PREDICT", "op_context", "temp_space_bytes"]


class OpContext:
    """The run's mode and resources, as a kernel sees them.

    Attributes
    ----------
    is_train : bool
        Training pass (Dropout drops, BatchNorm uses batch statistics) or inference.
    """

    __slots__ = ("is_train",)

    def __init__(self, is_train):
        object.__setattr__(self, "is_train", bool(is_train))

    def __setattr__(self, name, value):
        raise AttributeError("OpContext is immutable; use op_context(is_train)")

    def __repr__(self):
        return f"OpContext(is_train={self.is_train})"

    @staticmethod
    def draw(xp, fn):
        """``fn(generator)`` with the random generator of the device ``xp`` computes on, held
        exclusively (the ``rng`` resource)."""
        return rng.draw(xp, fn)

    @staticmethod
    def temp_space(xp, shape, dtype):
        """A scratch array of ``shape`` and ``dtype`` on the device ``xp`` computes on (the
        ``temp`` resource): contents undefined, valid until the kernel returns (the next request
        on this thread reuses the memory), never to be returned as an output."""
        return _TEMP.request(xp, tuple(shape), numpy.dtype(dtype))


class _TempSpace(threading.local):
    """The scratch buffers of this thread, one byte buffer per device, grown to the largest
    request. Per thread (MXNet has one per device and orders its users through the engine):
    interpreters running kernels outside the engine cannot race a worker for it."""

    def __init__(self):
        self.buffers = {}

    def request(self, xp, shape, dtype):
        nbytes = int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize
        key = rng._key(xp)
        buffer = self.buffers.get(key)
        if buffer is None or buffer.nbytes < nbytes:
            buffer = self.buffers[key] = xp.empty(max(nbytes, 1), dtype=numpy.uint8)
        return buffer[:nbytes].view(dtype).reshape(shape)


_TEMP = _TempSpace()


def temp_space_bytes(xp=numpy):
    """Bytes of this thread's scratch buffer on the device ``xp`` computes on (0: none yet)."""
    buffer = _TEMP.buffers.get(rng._key(xp))
    return 0 if buffer is None else int(buffer.nbytes)


TRAIN = OpContext(True)
PREDICT = OpContext(False)


def op_context(is_train):
    """The shared context for a training (True) or inference (False) run."""
    return TRAIN if is_train else PREDICT
