"""``mx.npx.random``: MXNet-only samplers for NumPy-style arrays (``bernoulli``, ``categorical``,
``uniform_n``/``normal_n``: ``batch_shape`` draws per broadcast parameter element).

Example
-------
>>> import mxlab as mx
>>> mx.npx.random.categorical(mx.np.array([0.0, 1.0]), shape=2).asnumpy()
array([1, 1], dtype=int32)
"""
from ..ndarray.ndarray import ndarray as _ndarray
from ..ndarray.random import bernoulli_into as _bernoulli_into
from ..ndarray.namespace import call_op as _call_op
from ..ndarray.random import categorical as _nd_categorical
from ..ndarray.random import sample as _sample
from ..numpy.random import normal as _np_normal, uniform as _np_uniform
from ..ops.random import SampleN, check_size as _check_size
from ..ops.random import seed as _seed

__all__ = ["bernoulli", "categorical", "multinomial", "seed", "uniform_n", "normal_n",
           "scalar_poisson", "tensor_poisson"]


def seed(seed, device="all", ctx=None):
    """Seed the generators of every device (``device='all'``) or of one device."""
    _seed(seed, ctx if ctx is not None else device)


def bernoulli(prob=None, logit=None, size=None, dtype=None, device=None, out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0."""
    return _bernoulli_into(_ndarray, prob, logit, size, dtype, device, out)


def categorical(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    """Draws from the categorical distributions on ``data``'s last axis (see ``mx.nd.random``)."""
    return _nd_categorical(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype, **kwargs)


def _batch_size(batch_shape):
    """``batch_shape`` as the sample_n size of mx.np.random (:class:`SampleN`: prepend to the
    parameters' broadcast shape)."""
    if batch_shape is None:
        return None
    return SampleN(_check_size("npx.random.batch_shape", batch_shape))


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, device=None):
    """Uniform draws of shape ``batch_shape + broadcast(low, high).shape``."""
    return _np_uniform(low, high, size=_batch_size(batch_shape), dtype=dtype, device=device)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, device=None):
    """Normal draws of shape ``batch_shape + broadcast(loc, scale).shape``."""
    return _np_normal(loc, scale, size=_batch_size(batch_shape), dtype=dtype, device=device)


def scalar_poisson(lam=1.0, shape=None, dtype=None, device=None, out=None, **kwargs):
    """Poisson draws of ``shape`` with one scalar rate (MXNet's ``npx.scalar_poisson``)."""
    shape = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    return _sample("_random_poisson", _ndarray, device or kwargs.pop("ctx", None), out, lam=lam,
                   shape=shape, dtype=dtype or "float32")


def multinomial(n, prob, shape=None, dtype="float32", out=None):
    """Counts of ``n[i]`` trials over the outcomes of ``prob[i]`` (MXNet's
    ``npx.random.multinomial``): output ``n.shape + shape + (outcomes,)``."""
    shape = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    result = _call_op("_sample_multinomial_counts", [n, prob], shape=shape, dtype=dtype)
    return result if out is None else result.copyto(out)


def tensor_poisson(lam, shape=None, dtype=None, out=None):
    """``shape`` Poisson draws per element of the rate array ``lam`` (output
    ``lam.shape + shape``; MXNet's ``npx.tensor_poisson``)."""
    shape = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    result = _call_op("_sample_poisson", [lam], shape=shape, dtype=dtype or "float32")
    return result if out is None else result.copyto(out)
