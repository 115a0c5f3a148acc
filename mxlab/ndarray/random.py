"""``mx.nd.random``: sampling into legacy ``NDArray`` objects (MXNet 1.x names and argument order).

Example
-------
>>> import mxlab as mx
>>> mx.nd.random.normal(0, 1, shape=(2, 3)).shape
(2, 3)
"""

from ..base import MXNetTypeError, MXNetValueError
from ..imperative import invoke
from ..ops.distributions import DISTRIBUTIONS, frontend_params
from ..ops.random import SampleN, check_randint, check_size
from ..ops.registry import get_op
from .namespace import call_op
from .ndarray import NDArray, array
from ..util import is_np_shape

__all__ = ["randn", "randint", "shuffle", "sample", "categorical", "multinomial"] + \
    [*DISTRIBUTIONS] + [f"{name}_like" for name in DISTRIBUTIONS]


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


def _sample_arrays(op_name, params, shape, dtype, out, kwargs):
    """MXNet's ``_sample_*`` ops: one draw per parameter element (scalars become arrays like it)."""
    like = next(p for p in params if isinstance(p, NDArray))
    arrays = [p if isinstance(p, NDArray) else call_op("_npi_full_like", [like], fill_value=p)
              for p in params]
    result = call_op(op_name, arrays, shape=shape, dtype=dtype, **kwargs)
    return result if out is None else result.copyto(out)


_TAIL_DEFAULTS = (("shape", ()), ("dtype", None), ("ctx", None), ("out", None))
_TAIL = tuple(key for key, _ in _TAIL_DEFAULTS)


def _distribution(name, params):
    """``mx.nd.random.<name>(*params, shape=(), dtype=None, ctx=None, out=None)``: scalar
    parameters run ``_random_<name>``; array ones ``_sample_<name>`` (a draw per element)."""
    rate_from_scale = params[0][0] == "scale"
    names = ["lam"] if rate_from_scale else [n for n, _ in params]

    def draw(*args, **kwargs):
        values = bind_params(f"random.{name}", params, args, kwargs, _TAIL)
        shape, dtype, ctx, out = (kwargs.pop(key, default) for key, default in _TAIL_DEFAULTS)
        if rate_from_scale:     # NOTE: MXNet's exponential(scale) runs the op with lam=1/scale
            values = [1.0 / values[0]]
        if array_params(*values):
            return _sample_arrays(f"_sample_{name}", values, shape, dtype, out, kwargs)
        return sample(f"_random_{name}", NDArray, ctx, out, shape=legacy_shape(shape),
                      dtype=dtype, **dict(zip(names, values)), **kwargs)
    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = (f"Samples from the {name} distribution ({', '.join(names)}); array "
                    "parameters give ``shape`` draws per element.")
    return draw


def _distribution_like(name, params):
    """``mx.nd.random.<name>_like(data, *params)``: draws of ``data``'s shape and dtype."""
    def draw(data=None, *args, out=None, **kwargs):
        values = bind_params(f"random.{name}_like", params, args, kwargs)
        result = call_op(f"_random_{name}_like", [data], **dict(zip([n for n, _ in params],
                                                                     values)), **kwargs)
        return result if out is None else result.copyto(out)
    draw.__name__ = draw.__qualname__ = f"{name}_like"
    draw.__doc__ = f"{name} samples of the shape and dtype of ``data``."
    return draw


def legacy_shape(shape):
    """MXNet 1.x reads an empty ``shape`` as unknown and draws one value: shape (1,) (under
    ``np_shape`` it is a 0-d array)."""
    if shape in ((), None, []) and not is_np_shape():
        return (1,)
    return (shape,) if isinstance(shape, int) else shape


def bind_params(where, params, args, kwargs, tail=()):
    """The distribution parameters from positional ``args`` and ``kwargs`` (defaults filled).
    Positionals past the parameters go into ``kwargs`` under the names ``tail`` (MXNet's
    ``uniform(low, high, shape, dtype, ctx, out)`` order)."""
    head, extra = args[:len(params)], args[len(params):]
    if len(extra) > len(tail):
        raise MXNetTypeError(f"{where}: takes {len(params) + len(tail)} positional arguments, "
                             f"got {len(args)}")
    for key, value in zip(tail, extra):
        if key in kwargs:
            raise MXNetTypeError(f"{where}: got multiple values for argument {key!r}")
        kwargs[key] = value
    return list(head) + [kwargs.pop(n, d) for n, d in params[len(head):]]




def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
    """Normal samples of shape ``shape`` given positionally."""
    # NOTE: `normal` is made by the DISTRIBUTIONS loop below (a name linters cannot see)
    return globals()["normal"](loc, scale, shape=shape, dtype=dtype, ctx=ctx, out=out, **kwargs)


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


def multinomial(data=None, shape=(), get_prob=False, out=None, dtype=None, n=None, p=None,
                **kwargs):
    """MXNet 1.x ``multinomial(data, ...)``: categorical sampling (:func:`categorical`); MXNet
    2.0's ``multinomial(n=, p=)``: counts of ``n[i]`` trials over the outcomes of ``p[i]``."""
    if n is not None or p is not None:
        if data is not None or n is None or p is None:
            raise MXNetValueError("random.multinomial: give data (1.x: categorical draws) or both "
                                  "n and p (2.0: counts of n trials), not a mix")
        device = kwargs.pop("ctx", None)
        n, p = (v if isinstance(v, NDArray) else array(v, device=device, cls=NDArray)
                for v in (n, p))
        result = call_op("_sample_multinomial_counts", [n, p], shape=shape, dtype=dtype,
                         **kwargs)
        return result if out is None else result.copyto(out)
    if data is None:
        raise MXNetValueError("random.multinomial: data (or n and p) is required")
    return categorical(data, shape=shape, get_prob=get_prob, out=out, dtype=dtype or "int32",
                       **kwargs)


def bernoulli_into(cls, prob, logit, size, dtype, device, out):
    """Bernoulli draws as ``cls`` arrays: ``mx.np.random.bernoulli`` and ``mx.npx.random``'s."""
    if (prob is None) == (logit is None):
        raise MXNetValueError("random.bernoulli: give exactly one of prob and logit")
    size = check_size("random.bernoulli", size)
    if array_params(prob, logit):
        return _bernoulli_arrays(cls, prob, logit, size, dtype, device, out)
    if isinstance(size, SampleN):      # sample_n form: scalar parameters have shape ()
        size = tuple(size)
    return sample("_npi_bernoulli", cls, device, out, prob=prob, logit=logit, size=size,
                  dtype=dtype)


def _bernoulli_arrays(cls, prob, logit, size, dtype, device, out):
    """Array ``prob``/``logit``: ``uniform < prob`` per element, with MXNet's output shapes
    (``size=SampleN(s)`` prepends ``s`` to the parameter's shape)."""
    param = prob if logit is None else logit
    shape = param.shape if size is None else tuple(size)
    if isinstance(size, SampleN):
        shape = shape + param.shape
    if logit is not None:
        prob = call_op("sigmoid", [logit])
    else:               # NOTE: MXNet rejects probabilities outside [0, 1] (a check in the graph)
        inside = call_op("_npx_constraint_check", [abs(prob - 0.5) <= 0.5],
                         msg="bernoulli: prob must be in [0, 1]")
        prob = prob * inside
    noise = sample("_npi_uniform", cls, device or param.device, None, low=0.0, high=1.0,
                   size=shape, dtype=prob.dtype)
    result = call_op("broadcast_lesser", [noise, prob]).astype(dtype or "float32")
    return result if out is None else result.copyto(out)


for _name, (_params, _) in DISTRIBUTIONS.items():
    globals()[_name] = _distribution(_name, frontend_params(_name))
    globals()[f"{_name}_like"] = _distribution_like(_name, _params)
