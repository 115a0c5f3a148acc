"""``mx.np.random``: NumPy's sampling functions on ``mx.np.ndarray`` (per-device generators, see
``mx.random.seed``).

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(0)
>>> mx.np.random.uniform(-1, 1, size=(2, 2)).shape
(2, 2)
"""

from ..ndarray.ndarray import ndarray
from ..ndarray.random import bernoulli_into, reject_array_params, sample
from ..ops.random import check_pvals, check_randint

__all__ = ["uniform", "normal", "randint", "rand", "randn", "shuffle", "bernoulli", "multinomial"]


def _size(size):
    return (size,) if isinstance(size, int) else size


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from U[low, high); ``size=None`` gives a 0-d array."""
    reject_array_params("np.random.uniform", low, high)
    return sample(
        "_npi_uniform",
        ndarray,
        device or ctx,
        out,
        low=low,
        high=high,
        size=_size(size),
        dtype=dtype,
    )


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from N(loc, scale^2)."""
    reject_array_params("np.random.normal", loc, scale)
    return sample(
        "_npi_normal",
        ndarray,
        device or ctx,
        out,
        loc=loc,
        scale=scale,
        size=_size(size),
        dtype=dtype,
    )


def randint(low, high=None, size=None, dtype=None, ctx=None, device=None, out=None):
    """Integers from [low, high) (from [0, low) when ``high`` is None); int64 unless ``dtype``."""
    if high is None:
        low, high = 0, low
    check_randint(low, high)
    return sample(
        "_npi_random_randint",
        ndarray,
        device or ctx,
        out,
        low=low,
        high=high,
        size=_size(size),
        dtype=dtype or "int64",
    )


def multinomial(n, pvals, size=None, ctx=None, device=None, out=None):
    """Counts of ``n`` draws over ``len(pvals)`` outcomes (int64, shape ``size + (k,)``);
    ``pvals`` is a list or an array (read on the host, as MXNet reads it)."""
    if isinstance(pvals, ndarray):
        pvals = pvals.asnumpy()
    pvals = tuple(float(p) for p in check_pvals(pvals))
    return sample("_npi_multinomial", ndarray, device or ctx, out, n=n, pvals=pvals,
                  size=_size(size))


def rand(*size, **kwargs):
    """Uniform samples in [0, 1) of shape ``size``."""
    return uniform(size=size, **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``."""
    return normal(size=size, **kwargs)


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, device=None, out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0 (MXNet has this as
    ``npx.random``)."""
    return bernoulli_into(ndarray, prob, logit, size, dtype, device or ctx, out)


def shuffle(x):
    """Shuffle ``x`` along its first axis in place (as NumPy does)."""
    from ..imperative import invoke
    from ..ops.registry import get_op

    invoke(get_op("_shuffle"), [x], {}, out=[x])
