"""The op context: what a kernel may ask of the run that calls it (MXNet's ``OpContext``).

A kernel that names a ``ctx`` parameter (``compute(xp, inputs, attrs, ctx)``) is handed one by
whoever runs it: the imperative dispatcher (from ``autograd.is_training()`` when the op is
pushed), the graph executors (their ``is_train``), the interpreters. Kernels read the mode from it
instead of from thread-local state, so an op computes the same on any engine worker thread.

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
"""
from . import rng

__all__ = ["OpContext", "TRAIN", "PREDICT", "op_context"]


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


TRAIN = OpContext(True)
PREDICT = OpContext(False)


def op_context(is_train):
    """The shared context for a training (True) or inference (False) run."""
    return TRAIN if is_train else PREDICT
