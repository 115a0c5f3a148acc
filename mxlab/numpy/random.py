"""``mx.np.random``: NumPy's sampling functions on ``mx.np.ndarray`` (per-device generators, see
``mx.random.seed``).

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(0)
>>> mx.np.random.uniform(-1, 1, size=(2, 2)).shape
(2, 2)
"""

import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from ..ndarray.ndarray import ndarray
from ..ndarray.random import array_params, bernoulli_into, sample
from ..ndarray.random import bind_params
from ..ops.distributions import NP_DISTRIBUTIONS
from ..ops.random import SampleN as _SampleN, check_pvals, check_randint
from ..ops.random import check_size as _check_size
from .random_arrays import draw_with_arrays

__all__ = ["uniform", "normal", "randint", "rand", "randn", "shuffle", "bernoulli", "multinomial",
           "choice", "multivariate_normal", *NP_DISTRIBUTIONS]


def _size(size, where="np.random"):
    """``size`` as a tuple, checked (no negative dims); the sample_n form (:class:`SampleN`,
    prepend to the parameters' shape) is its dims for scalar parameters."""
    size = _check_size(where, size)
    return tuple(size) if isinstance(size, _SampleN) else size


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from U[low, high); ``size=None`` gives a 0-d array (arrays ``low``/``high``: see
    :mod:`mxlab.numpy.random_arrays`)."""
    if array_params(low, high):
        return draw_with_arrays("uniform", [low, high], size, dtype, device or ctx, out)
    return sample(
        "_npi_uniform",
        ndarray,
        device or ctx,
        out,
        low=low,
        high=high,
        size=_size(size, "np.random.uniform"),
        dtype=dtype,
    )


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from N(loc, scale^2)."""
    if array_params(loc, scale):
        return draw_with_arrays("normal", [loc, scale], size, dtype, device or ctx, out)
    return sample(
        "_npi_normal",
        ndarray,
        device or ctx,
        out,
        loc=loc,
        scale=scale,
        size=_size(size, "np.random.normal"),
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
        size=_size(size, "np.random.randint"),
        dtype=dtype or "int64",
    )


def multinomial(n, pvals, size=None, ctx=None, device=None, out=None):
    """Counts of ``n`` draws over ``len(pvals)`` outcomes (int64, shape ``size + (k,)``);
    ``pvals`` is a list or an array (read on the host, as MXNet reads it)."""
    if isinstance(pvals, ndarray):
        pvals = pvals.asnumpy()
    pvals = tuple(float(p) for p in check_pvals(pvals))
    return sample("_npi_multinomial", ndarray, device or ctx, out, n=n, pvals=pvals,
                  size=_size(size, "np.random.multinomial"))


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of ``N(mean, cov)``, shape ``size + broadcast(mean, cov[..., 0])`` (MXNet 1.9.1's
    ``np.random.multivariate_normal``; ``check_valid`` and ``tol`` are not built)."""
    from ..imperative import invoke
    from ..ops.registry import get_op

    if check_valid is not None or tol is not None:
        raise MXNetNotImplementedError("np.random.multivariate_normal: check_valid and tol are "
                                       "not built in mxlab")
    op = get_op("_npi_mvn_fallback")
    size = _size(size, "np.random.multivariate_normal")
    return invoke(op, [mean, cov], op.parse_attrs({"size": size}))[0]


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


def _np_distribution(name, params):
    """``mx.np.random.<name>(*params, size=None, dtype=None, device=None, out=None)`` with
    NumPy's parameter names (array parameters: :mod:`mxlab.numpy.random_arrays`)."""
    names = [n for n, _ in params]
    op_name = "_npi_powerd" if name == "power" else f"_npi_{name}"

    def draw(*args, dtype=None, ctx=None, device=None, out=None, **kwargs):
        values = bind_params(f"np.random.{name}", params, args, kwargs, ("size",))
        size = kwargs.pop("size", None)
        if kwargs:
            raise TypeError(f"np.random.{name}: unexpected arguments {sorted(kwargs)}")
        if array_params(*values):
            return draw_with_arrays(name, values, size, dtype, device or ctx, out)
        attrs = dict(zip(names, values), size=_size(size, f"np.random.{name}"))
        if dtype is not None:       # NOTE: None keeps the op's default (int64 for poisson)
            attrs["dtype"] = dtype
        return sample(op_name, ndarray, device or ctx, out, **attrs)
    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = f"NumPy's ``random.{name}({', '.join(names)}, size)`` on mx.np arrays."
    return draw


for _name, (_params, _) in NP_DISTRIBUTIONS.items():
    globals()[_name] = _np_distribution(_name, _params)


def choice(a, size=None, replace=True, p=None, ctx=None, device=None, out=None):
    """Draws from ``range(a)`` (an int) or from the 1-d array ``a``, with probabilities ``p``."""
    from ..imperative import STATE

    if STATE.deferred:
        result = _traced_choice(a, size, replace, p)
        return result if out is None else result.copyto(out)
    if isinstance(p, ndarray):
        p = p.asnumpy()
    probs = None if p is None else tuple(float(v) for v in p)
    size = _size(size, "np.random.choice")
    if isinstance(a, int):
        return sample("_npi_choice", ndarray, device or ctx, out, a=a, size=size,
                      replace=replace, p=probs)
    picks = sample("_npi_choice", ndarray, device or ctx, None, a=len(a), size=size,
                   replace=replace, p=probs)
    result = a[picks]
    return result if out is None else result.copyto(out)


def _traced_choice(a, size, replace, p):
    """``choice`` inside a traced HybridBlock, from recorded ops only (``p`` and ``a`` may be the
    block's inputs, so they are never read on the host): the Gumbel-max trick, ``argmax(log p +
    g)`` per draw with replacement, the top ``k`` of one ``log p + g`` without (the law of
    sequential draws without replacement)."""
    from . import argmax, argsort, log, ones, take

    n = a if isinstance(a, int) else a.shape[0]
    shape = _size(size, "np.random.choice") or ()
    count = int(numpy.prod(shape, dtype=numpy.int64))
    logits = log(ones(n) if p is None else p.astype("float64"))
    if replace:
        picks = argmax(logits + _gumbel((count, n)), axis=-1)
    else:
        if count > n:
            raise MXNetValueError("np.random.choice: cannot take a larger sample than the "
                                  "population without replacement")
        picks = argsort(-(logits + _gumbel((n,))))[:count]
    picks = picks.astype("int64").reshape(shape)
    return picks if isinstance(a, int) else take(a, picks, axis=0)


def _gumbel(shape):
    """Standard Gumbel noise ``-log(-log(u))`` (float64, recorded ops)."""
    from . import log

    return -log(-log(uniform(1e-300, 1.0, size=shape, dtype="float64")))
