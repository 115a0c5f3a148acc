"""``mx.npx.random``: MXNet-only samplers for NumPy-style arrays (``bernoulli``, ``categorical``).

Example
-------
>>> import mxlab as mx
>>> mx.npx.random.categorical(mx.np.array([0.0, 1.0]), shape=2).asnumpy()
array([1, 1], dtype=int32)
"""
from ..ndarray.ndarray import ndarray as _ndarray
from ..ndarray.random import bernoulli_into as _bernoulli_into
from ..ndarray.random import categorical as _nd_categorical
from ..ops.random import seed

__all__ = ["bernoulli", "categorical", "seed"]


def bernoulli(prob=None, logit=None, size=None, dtype=None, device=None, out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0."""
    return _bernoulli_into(_ndarray, prob, logit, size, dtype, device, out)


def categorical(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    """Draws from the categorical distributions on ``data``'s last axis (see ``mx.nd.random``)."""
    return _nd_categorical(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype, **kwargs)
