"""``mx.nd.random``: sampling into legacy ``NDArray`` objects (MXNet 1.x names and argument order).

Example
-------
>>> import mxlab as mx
>>> mx.nd.random.normal(0, 1, shape=(2, 3)).shape
(2, 3)
"""

from ..base import MXNetNotImplementedError, MXNetValueError
from ..imperative import invoke
from ..ops.random import check_randint
from ..ops.registry import get_op
from .namespace import call_op
from .ndarray import NDArray

__all__ = ["uniform", "normal", "randint", "shuffle", "sample", "categorical", "multinomial"]


def sample(op_name, cls, device=None, out=None, **attrs):
    """Run the sampling op ``op_name``; the result is a ``cls`` on ``device`` (or written into
    ``out``)."""
    op = get_op(op_name)
    return invoke(
        op, [], op.parse_attrs(attrs), out=None if out is None else [out], cls=cls, device=device
    )[0]


def array_params(*params):
    """True when the distribution parameters are arrays (MXNet then runs its ``_sample_*`` ops)."""
    return any(isinstance(p, NDArray) for p in params)


def reject_array_params(op_name, *params):
    """Array-valued parameters for the NumPy-style samplers are not built yet: say so clearly."""
    if array_params(*params):
        raise MXNetNotImplementedError(
            f"{op_name}: array-valued distribution parameters are not implemented in mxlab's "
            "mx.np.random; pass Python scalars (mx.nd.random supports arrays)"
        )


def _sample_arrays(op_name, first, second, shape, dtype, out, kwargs):
    """MXNet's ``_sample_*`` ops: one draw per parameter element (scalars become arrays like it)."""
    like = first if isinstance(first, NDArray) else second
    first, second = (
        p if isinstance(p, NDArray) else call_op("_npi_full_like", [like], fill_value=p)
        for p in (first, second)
    )
    result = call_op(op_name, [first, second], shape=shape, dtype=dtype, **kwargs)
    return result if out is None else result.copyto(out)


def uniform(low=0, high=1, shape=(), dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high) of ``shape``; array ``low``/``high`` give one draw per element."""
    if array_params(low, high):
        return _sample_arrays("_sample_uniform", low, high, shape, dtype, out, kwargs)
    return sample(
        "_random_uniform", NDArray, ctx, out, low=low, high=high, shape=shape, dtype=dtype, **kwargs
    )


def normal(loc=0, scale=1, shape=(), dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale^2) of ``shape``; array ``loc``/``scale``: a draw per element."""
    if array_params(loc, scale):
        return _sample_arrays("_sample_normal", loc, scale, shape, dtype, out, kwargs)
    return sample(
        "_random_normal",
        NDArray,
        ctx,
        out,
        loc=loc,
        scale=scale,
        shape=shape,
        dtype=dtype,
        **kwargs,
    )


def randint(low, high, shape=(), dtype=None, ctx=None, out=None, **kwargs):
    """Integers from [low, high) (int32 unless ``dtype``)."""
    check_randint(low, high)
    return sample(
        "_random_randint",
        NDArray,
        ctx,
        out,
        low=low,
        high=high,
        shape=shape,
        dtype=dtype or "int32",
        **kwargs,
    )


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    return call_op("_shuffle", [data], **kwargs)


def categorical(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    """One draw per ``shape`` entry from each categorical distribution on ``data``'s last axis;
    ``get_prob=True`` also returns the draws' log-likelihood (differentiable w.r.t. ``data``)."""

    result = call_op("_sample_categorical", [data], shape=shape, get_prob=get_prob, dtype=dtype,
                     **kwargs)
    if out is None:
        return result
    return result.copyto(out) if not get_prob else [r.copyto(o) for r, o in zip(result, out)]


def multinomial(data=None, shape=(), get_prob=False, out=None, dtype=None, **kwargs):
    """MXNet 1.x ``multinomial(data, ...)``: categorical sampling (:func:`categorical`).

    MXNet 2.0 reuses the name for counts from ``n`` trials (``n=``, ``p=``); that form is not built.
    """
    if data is None or "n" in kwargs or "p" in kwargs:
        raise NotImplementedError("nd.random.multinomial(n=..., p=...) (MXNet 2.0's counts of n "
                                  "trials) is not built in mxlab; use the 1.x form with data=")
    return categorical(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype or "int32",
                       **kwargs)


def bernoulli_into(cls, prob, logit, size, dtype, device, out):
    """Bernoulli draws as ``cls`` arrays: ``mx.np.random.bernoulli`` and ``mx.npx.random``'s."""
    if (prob is None) == (logit is None):
        raise MXNetValueError("random.bernoulli: give exactly one of prob and logit")
    size = (size,) if isinstance(size, int) else size
    return sample("_npi_bernoulli", cls, device, out, prob=prob, logit=logit, size=size,
                  dtype=dtype)
