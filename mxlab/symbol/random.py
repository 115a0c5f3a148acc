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
from ..ops.distributions import DISTRIBUTIONS
from .frontend import compose_op
from .symbol import Symbol

__all__ = ["categorical", "multinomial", "normal", "randint", "randn", "shuffle", "uniform",
           "exponential", "binomial", "gamma", "poisson", "negative_binomial",
           "generalized_negative_binomial", "uniform_like", "normal_like", "exponential_like",
           "gamma_like", "poisson_like", "negative_binomial_like",
           "generalized_negative_binomial_like"]


def _node(op_name, inputs=(), name=None, attr=None, **kwargs):
    op = registry.get_op(op_name)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return compose_op(op, tuple(inputs), kwargs, Symbol, name=name, attr=attr, hint=op_name)


def _distribution(name, params, rate_from_scale=False):
    """``mx.sym.random.<name>``: scalar parameters give a ``_random_<name>`` node, symbol ones a
    ``_sample_<name>`` node (a draw per element)."""
    names = ["lam"] if rate_from_scale else [n for n, _ in params]

    def node(*args, shape=None, dtype=None, **kwargs):
        values = bind_params(f"sym.random.{name}", params, args, kwargs)
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


uniform = _distribution("uniform", DISTRIBUTIONS["uniform"][0])
normal = _distribution("normal", DISTRIBUTIONS["normal"][0])
exponential = _distribution("exponential", (("scale", 1.0),), rate_from_scale=True)
binomial = _distribution("binomial", DISTRIBUTIONS["binomial"][0])
gamma = _distribution("gamma", DISTRIBUTIONS["gamma"][0])
poisson = _distribution("poisson", DISTRIBUTIONS["poisson"][0])
negative_binomial = _distribution("negative_binomial", DISTRIBUTIONS["negative_binomial"][0])
generalized_negative_binomial = _distribution(
    "generalized_negative_binomial", DISTRIBUTIONS["generalized_negative_binomial"][0])
uniform_like = _distribution_like("uniform", DISTRIBUTIONS["uniform"][0])
normal_like = _distribution_like("normal", DISTRIBUTIONS["normal"][0])
exponential_like = _distribution_like("exponential", DISTRIBUTIONS["exponential"][0])
gamma_like = _distribution_like("gamma", DISTRIBUTIONS["gamma"][0])
poisson_like = _distribution_like("poisson", DISTRIBUTIONS["poisson"][0])
negative_binomial_like = _distribution_like("negative_binomial",
                                            DISTRIBUTIONS["negative_binomial"][0])
generalized_negative_binomial_like = _distribution_like(
    "generalized_negative_binomial", DISTRIBUTIONS["generalized_negative_binomial"][0])


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
