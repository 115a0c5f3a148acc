"""``mx.sym.random``: sampling nodes in symbolic graphs (MXNet 1.x names and argument order).

Scalar parameters give a ``_random_*`` node; symbol parameters give a ``_sample_*`` node with one
draw per parameter element, as in MXNet.

Example
-------
>>> import mxlab as mx
>>> s = mx.sym.random.uniform(0, 1, shape=(2, 3))
>>> s.eval()[0].shape
(2, 3)
"""
from ..ops import registry
from .frontend import compose_op
from .symbol import Symbol

__all__ = ["categorical", "multinomial", "normal", "randint", "randn", "shuffle", "uniform"]


def _node(op_name, inputs=(), name=None, attr=None, **kwargs):
    op = registry.get_op(op_name)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return compose_op(op, tuple(inputs), kwargs, Symbol, name=name, attr=attr, hint=op_name)


def _two_params(random_op, sample_op, first, second, names, shape, dtype, kwargs):
    if isinstance(first, Symbol) or isinstance(second, Symbol):
        return _node(sample_op, (first, second), shape=shape, dtype=dtype, **kwargs)
    return _node(random_op, **{names[0]: first, names[1]: second}, shape=shape, dtype=dtype,
                 **kwargs)


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """Samples from U[low, high) (symbol ``low``/``high``: one draw per element)."""
    return _two_params("_random_uniform", "_sample_uniform", low, high, ("low", "high"), shape,
                       dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """Samples from N(loc, scale^2) (symbol ``loc``/``scale``: one draw per element)."""
    return _two_params("_random_normal", "_sample_normal", loc, scale, ("loc", "scale"), shape,
                       dtype, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """Normal samples of shape ``shape`` given positionally."""
    return normal(loc, scale, shape=shape, dtype=dtype, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """Integers from [low, high)."""
    return _node("_random_randint", low=low, high=high, shape=shape, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """``data`` with its first axis randomly permuted."""
    return _node("_shuffle", (data,), **kwargs)


def categorical(data, shape=None, get_prob=True, dtype="int32", **kwargs):
    """Draws from the categorical distributions on ``data``'s last axis (with their
    log-likelihood unless ``get_prob=False``: MXNet's symbol default differs from ``mx.nd``'s)."""
    return _node("_sample_categorical", (data,), shape=shape, get_prob=get_prob, dtype=dtype,
                 **kwargs)


def multinomial(data=None, shape=None, get_prob=True, dtype="int32", **kwargs):
    """MXNet 1.x's name for :func:`categorical` (2.0's ``n=``/``p=`` form is not built)."""
    if data is None or "n" in kwargs or "p" in kwargs:
        raise NotImplementedError("sym.random.multinomial(n=..., p=...) (MXNet 2.0's counts of n "
                                  "trials) is not built in mxlab; use the 1.x form with data=")
    return categorical(data, shape=shape, get_prob=get_prob, dtype=dtype, **kwargs)
