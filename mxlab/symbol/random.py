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
from ..ndarray.random import bind_params
from ..ops import registry
from ..ops.distributions import DISTRIBUTIONS, frontend_params
from .frontend import compose_op
from .symbol import Symbol

__all__ = ["categorical", "multinomial", "randint", "randn", "shuffle"] + \
    [*DISTRIBUTIONS] + [f"{name}_like" for name in DISTRIBUTIONS]


def _node(op_name, inputs=(), name=None, attr=None, **kwargs):
    op = registry.get_op(op_name)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return compose_op(op, tuple(inputs), kwargs, Symbol, name=name, attr=attr, hint=op_name)


def _distribution(name, params):
    """``mx.sym.random.<name>``: scalar parameters give a ``_random_<name>`` node, symbol ones a
    ``_sample_<name>`` node (a draw per element)."""
    rate_from_scale = params[0][0] == "scale"
    names = ["lam"] if rate_from_scale else [n for n, _ in params]

    def node(*args, **kwargs):
        values = bind_params(f"sym.random.{name}", params, args, kwargs, ("shape", "dtype"))
        shape, dtype = kwargs.pop("shape", None), kwargs.pop("dtype", None)
        if rate_from_scale:     # NOTE: MXNet's exponential(scale) is the op with lam=1/scale
            values = [1.0 / values[0]]
        kwargs.pop("data", None)   # NOTE: MXNet's samplers have no inputs and drop a data= symbol
        if any(isinstance(v, Symbol) for v in values):
            return _node(f"_sample_{name}", values, shape=shape, dtype=dtype, **kwargs)
        return _node(f"_random_{name}", **dict(zip(names, values)), shape=shape, dtype=dtype,
                     **kwargs)
    node.__name__ = node.__qualname__ = name
    node.__doc__ = f"A {name} sampling node ({', '.join(names)})."
    return node


def _distribution_like(name, params):
    def node(data=None, *args, **kwargs):
        values = bind_params(f"sym.random.{name}_like", params, args, kwargs)
        return _node(f"_random_{name}_like", (data,), **dict(zip([n for n, _ in params], values)),
                     **kwargs)
    node.__name__ = node.__qualname__ = f"{name}_like"
    node.__doc__ = f"{name} samples of ``data``'s shape and dtype."
    return node


for _name, (_params, _) in DISTRIBUTIONS.items():
    globals()[_name] = _distribution(_name, frontend_params(_name))
    globals()[f"{_name}_like"] = _distribution_like(_name, _params)


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """Normal samples of shape ``shape`` given positionally."""
    # NOTE: `normal` is made by the DISTRIBUTIONS loop below (a name linters cannot see)
    return globals()["normal"](loc, scale, shape=shape, dtype=dtype, **kwargs)


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
