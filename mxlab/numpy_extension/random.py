"""``mx.npx.random``: MXNet-only samplers for NumPy-style arrays (``bernoulli``, ``categorical``).

Example
-------
>>> import mxlab as mx
>>> mx.npx.random.categorical(mx.np.array([0.0, 1.0]), shape=2).asnumpy()
array([1, 1], dtype=int32)
"""
from ..ndarray.random import categorical as _nd_categorical
from ..numpy.random import bernoulli  # noqa: F401
from ..ops.random import seed  # noqa: F401

__all__ = ["seed", "bernoulli", "categorical"]


def categorical(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    """Draws from the categorical distributions on ``data``'s last axis (see ``mx.nd.random``)."""
    return _nd_categorical(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype, **kwargs)
