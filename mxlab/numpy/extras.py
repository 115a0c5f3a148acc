"""The rest of ``mx.np`` that NumPy users reach for, built from registered ops so each is
recorded by autograd, traced by ``hybridize`` and differentiable where NumPy's math is.

Aliases (``absolute``, ``concat``, ``amax``, ...), stacking and splitting helpers, products
(``outer``, ``inner``, ``kron``, ``tensordot``, ``einsum``), differences, ``meshgrid``, the
NaN-aware ``fmax``/``fmin`` and friends. Non-differentiable NumPy functions are in
:mod:`mxlab.numpy.fallback`.

Example
-------
>>> import mxlab as mx
>>> xs, ys = mx.np.meshgrid(mx.np.arange(3), mx.np.arange(2))
>>> xs.shape, ys.asnumpy()[:, 0].tolist()
((2, 3), [0.0, 1.0])
"""
import functools
import math

import numpy as _onp

from ..base import MXNetValueError
from ..imperative import STATE, invoke
from ..ndarray.frontend import check_ufunc_options, make_array_frontend
from ..ndarray.ndarray import NDArray, ndarray
from ..ops.np_fallback import TRACED_CONSTANT
from ..ops.registry import get_op

__all__ = []


def _np():
    from .. import numpy
    return numpy


def _op(name, *inputs, **attrs):
    op = get_op(name)
    outs = invoke(op, list(inputs), op.parse_attrs(attrs), cls=ndarray)
    return outs[0] if len(outs) == 1 else list(outs)


def _arr(x, like=None):
    if isinstance(x, NDArray):
        return x
    dtype = None if like is None or isinstance(x, float) else like.dtype
    result = _np().array(x, dtype=dtype)
    if STATE.deferred:      # NOTE: a constant of a traced composition is a graph node too
        from .fallback import fallback
        return fallback(TRACED_CONSTANT)(result.asnumpy().tolist(), dtype=result.dtype.name)
    return result


def _moved(fn):
    """Let ``fn(x, ...)`` take array-likes."""
    @functools.wraps(fn)
    def call(x, *args, **kwargs):
        return fn(_arr(x), *args, **kwargs)
    return call


# -- aliases ---------------------------------------------------------------------------------------
ALIASES = {"absolute": "abs", "fabs": "abs", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
           "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2",
           "pow": "power", "concat": "concatenate", "around": "round", "round_": "round",
           "amax": "max", "amin": "min", "rad2deg": "degrees", "deg2rad": "radians",
           "permute_dims": "transpose", "row_stack": "vstack", "bitwise_invert": "invert",
           "bitwise_not": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift"}


def positive(x, out=None, **kwargs):
    """``+x`` (a copy); NumPy's ufunc keywords only at their defaults, as MXNet."""
    check_ufunc_options("positive", kwargs)
    op = get_op("_copy")
    return invoke(op, [_arr(x)], {}, out=None if out is None else [out], cls=ndarray)[0]


def _only_half(operands):
    floats = {x.dtype for x in operands if isinstance(x, NDArray) and x.dtype.kind == "f"}
    return floats == {_onp.dtype("float16")}


def _ufunc(fn):
    """MXNet's wrapper of its composed binary ufuncs: NumPy's ufunc keywords only at their
    defaults, and ``out`` filled with the result. float16 operands are computed in float32 and
    the result rounded once, as MXNet's kernels do (the composition would round every step)."""
    @functools.wraps(fn)
    def call(x1, x2, out=None, **kwargs):
        check_ufunc_options(fn.__name__, kwargs)
        half = _only_half((x1, x2))
        if half:
            x1, x2 = (x.astype("float32") if isinstance(x, NDArray) and x.dtype.kind == "f"
                      else x for x in (x1, x2))
        result = fn(x1, x2)
        if half and isinstance(result, NDArray) and result.dtype == _onp.float32:
            result = result.astype("float16")
        return result if out is None or not isinstance(result, NDArray) else result.copyto(out)
    return call


def broadcast_to(array, shape):
    """NumPy's ``broadcast_to`` (0 in ``shape`` is a size); a scalar fills a new array."""
    if not isinstance(array, NDArray) and _onp.isscalar(array):
        return _np().full(shape, array)
    return _op("_npi_broadcast_to", _arr(array), shape=shape)


_clip_op = make_array_frontend(ndarray)(get_op("clip"), "clip")


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    """Limit values to ``[a_min, a_max]`` (``min``/``max`` as ``ndarray.clip`` names them); a
    Python scalar gives NumPy's scalar result."""
    a_min, a_max = kwargs.pop("min", a_min), kwargs.pop("max", a_max)
    if not isinstance(a, NDArray) and _onp.isscalar(a):
        return _onp.clip(a, a_min, a_max)
    return _clip_op(_arr(a), a_min, a_max, out=out, **kwargs)


_repeat_op = make_array_frontend(ndarray)(get_op("repeat"), "repeat")


def repeat(a, repeats, axis=None):
    """NumPy's ``repeat``: ``repeats`` one count, or one per element along ``axis`` (then a
    ``take`` of the repeated positions, so it differentiates)."""
    counts = repeats.asnumpy() if isinstance(repeats, NDArray) else _onp.asarray(repeats)
    a = _arr(a)
    if counts.ndim == 0 or counts.size == 1:
        return _repeat_op(a, repeats=int(counts.reshape(-1)[0]), axis=axis)
    if axis is None:
        a, axis = a.reshape(-1), 0
    positions = _onp.repeat(_onp.arange(a.shape[axis]), counts.astype(_onp.int64))
    return _np().take(a, _arr(positions), axis=axis)


# -- integer ops with scalar operands --------------------------------------------------------------
def _integer_binary(name):
    def call(x1, x2, out=None):
        a = x1 if isinstance(x1, NDArray) else None
        b = x2 if isinstance(x2, NDArray) else None
        like = a if a is not None else b
        if like is None:
            return getattr(_onp, name)(x1, x2)
        a, b = _arr(x1, like), _arr(x2, like)
        result = _op(f"_npi_{name}", a, b)
        return result if out is None else result.copyto(out)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"NumPy's ``{name}`` on integer or bool arrays (scalars take the array's dtype)."
    return call


# NOTE: MXNet checks the ufunc keywords of all but the shifts (which take no keywords).
INTEGER_BINARY = {name: _integer_binary(name) if "shift" in name else _ufunc(_integer_binary(name))
                  for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                               "right_shift", "gcd", "lcm")}


# -- triangles, diagonals, traces ------------------------------------------------------------------
@_moved
def tril(m, k=0):
    return _op("_npi_tril", m, k=k, lower=True)


@_moved
def triu(m, k=0):
    return _op("_npi_tril", m, k=k, lower=False)


@_moved
def diagonal(a, offset=0, axis1=0, axis2=1):
    if a.ndim < 2:      # NOTE: the legacy diag op makes a matrix of a vector; NumPy refuses
        raise MXNetValueError(f"diagonal: needs an array of at least two dimensions, got shape "
                              f"{a.shape}")
    return _op("diag", a, k=offset, axis1=axis1, axis2=axis2)


@_moved
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    result = diagonal(a, offset, axis1, axis2).sum(axis=-1)
    result = result if dtype is None else result.astype(dtype)
    return result if out is None else result.copyto(out)


@_moved
def diagflat(v, k=0):
    return _op("diag", v.reshape(-1), k=k)


def fill_diagonal(a, val, wrap=False):
    """Write ``val`` on the main diagonal of ``a`` in place (NumPy's rule for non-square)."""
    data = a.asnumpy()
    _onp.fill_diagonal(data, val.asnumpy() if isinstance(val, NDArray) else val, wrap=wrap)
    a[...] = _np().array(data, dtype=data.dtype)


def identity(n, dtype=None, device=None, ctx=None):
    return _np().eye(n, dtype=dtype or "float32", device=device or ctx)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None, device=None):
    """An array shaped like ``prototype`` (zeros: mxlab never hands out uninitialised memory)."""
    shape = prototype.shape if shape is None else shape
    return _np().zeros(shape, dtype=dtype or prototype.dtype, device=device or prototype.device)


def _filled_like(name, fill):
    def call(a, dtype=None, order="C", device=None, out=None, ctx=None):
        """An array of ``fill`` shaped like ``a``, of ``a``'s dtype unless ``dtype`` is given."""
        result = _op("_npi_full_like", _arr(a), fill_value=fill, dtype=dtype)
        if (device or ctx) is not None:
            result = result.as_in_context(device or ctx)
        return result if out is None else result.copyto(out)
    call.__name__ = call.__qualname__ = name
    return call


zeros_like, ones_like = _filled_like("zeros_like", 0), _filled_like("ones_like", 1)


def shape(a):
    return tuple(_arr(a).shape)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, device=None):
    exponents = _np().linspace(start, stop, num=num, endpoint=endpoint, device=device)
    result = _op("_rpower_scalar", exponents, scalar=float(base))
    return result if dtype is None else result.astype(dtype)


# -- reshaping helpers -----------------------------------------------------------------------------
def _atleast(ndim, placement):
    def call(*arys):
        results = []
        for x in map(_arr, arys):
            if x.ndim < ndim:
                x = x.reshape(placement(tuple(x.shape)))
            results.append(x)
        return results[0] if len(results) == 1 else results
    call.__name__ = f"atleast_{ndim}d"
    return call


atleast_1d = _atleast(1, lambda s: (1,))
atleast_2d = _atleast(2, lambda s: (1,) + s if s else (1, 1))
atleast_3d = _atleast(3, lambda s: (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1
                      else s + (1,))


def column_stack(tup):
    arrays = [x.reshape(-1, 1) if x.ndim < 2 else x for x in map(_arr, tup)]   # NumPy: 0-d too
    return _np().concatenate(arrays, axis=1)


def dstack(tup):
    return _np().concatenate(atleast_3d(*tup) if len(tup) > 1 else [atleast_3d(*tup)], axis=2)


def _split_rank(name, ary, ndim):
    """NumPy's rule: vsplit needs 2 axes, dsplit 3, hsplit 1."""
    if _arr(ary).ndim < ndim:
        raise MXNetValueError(f"{name} only works on arrays of {ndim} or more dimensions, got "
                              f"{_arr(ary).ndim}")


def hsplit(ary, indices_or_sections):
    _split_rank("hsplit", ary, 1)
    return _np().split(ary, indices_or_sections, axis=1 if _arr(ary).ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    _split_rank("vsplit", ary, 2)
    return _np().split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    _split_rank("dsplit", ary, 3)
    return _np().split(ary, indices_or_sections, axis=2)


@_moved
def flipud(m):
    return _np().flip(m, axis=0)


@_moved
def fliplr(m):
    return _np().flip(m, axis=1)


@_moved
def rollaxis(a, axis, start=0):
    axis, start = axis % a.ndim, start if start >= 0 else start + a.ndim
    return _np().moveaxis(a, axis, start - 1 if start > axis else start)


@_moved
def rot90(m, k=1, axes=(0, 1)):
    k %= 4
    np = _np()
    if k == 0:
        return positive(m)
    if k == 2:
        return np.flip(np.flip(m, axis=axes[0]), axis=axes[1])
    if k == 1:
        return np.swapaxes(np.flip(m, axis=axes[1]), axes[0], axes[1])
    return np.flip(np.swapaxes(m, axes[0], axes[1]), axis=axes[1])


@_moved
def roll(a, shift, axis=None):
    np = _np()
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    total = {}                 # NOTE: NumPy broadcasts shift against axis; repeats add up
    for s, ax in _onp.broadcast(shift, axis):
        ax = int(ax) % max(a.ndim, 1)
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in total.items():
        n = a.shape[ax]
        s %= max(n, 1)
        if s:
            a = np.concatenate([np.slice_axis(a, axis=ax, begin=n - s, end=n),
                                np.slice_axis(a, axis=ax, begin=0, end=n - s)], axis=ax)
    return a


def append(arr, values, axis=None):
    arr, values = _arr(arr), _arr(values)
    if axis is None:
        return _np().concatenate([arr.reshape(-1), values.reshape(-1)], axis=0)
    return _np().concatenate([arr, values], axis=axis)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    """Coordinate matrices from coordinate vectors (NumPy's ``xy``/``ij`` indexing)."""
    if indexing not in ("xy", "ij"):
        raise MXNetValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vectors = [_arr(x).reshape(-1) for x in xi]
    ndim = len(vectors)
    shapes = []
    for i, v in enumerate(vectors):
        shape = [1] * ndim
        shape[i] = v.shape[0]
        if indexing == "xy" and ndim > 1 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        shapes.append(tuple(shape))
    grids = [v.reshape(s) for v, s in zip(vectors, shapes)]
    if sparse:
        return grids
    full = tuple(max(s[d] for s in shapes) for d in range(ndim))
    return [_np().broadcast_to(g, full) for g in grids]


def broadcast_arrays(*args):
    arrays = [_arr(a) for a in args]
    full = _onp.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(_np().broadcast_to(a, full) for a in arrays)     # NOTE: a tuple, as NumPy 2


# -- products --------------------------------------------------------------------------------------
def outer(a, b):
    a, b = _arr(a).reshape(-1), _arr(b).reshape(-1)
    return a.reshape(-1, 1) * b.reshape(1, -1)


def vdot(a, b):
    return (_arr(a).reshape(-1) * _arr(b).reshape(-1)).sum()


def inner(a, b):
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))


def tensordot(a, b, axes=2):
    """Sum over ``axes`` of ``a`` and ``b`` via one matrix product (NumPy's semantics)."""
    np = _np()
    a, b = _arr(a), _arr(b)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    axes_a, axes_b = [x % a.ndim for x in axes_a], [x % b.ndim for x in axes_b]
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    inner_size = math.prod(a.shape[i] for i in axes_a)
    # NOTE: explicit sizes, not -1: a zero-size operand makes -1 ambiguous
    left = np.transpose(a, free_a + axes_a).reshape(
        math.prod(a.shape[i] for i in free_a), inner_size)
    right = np.transpose(b, axes_b + free_b).reshape(
        inner_size, math.prod(b.shape[i] for i in free_b))
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return np.dot(left, right).reshape(shape)


def kron(a, b):
    a, b = _arr(a), _arr(b)
    ndim = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (ndim - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (ndim - b.ndim) + tuple(b.shape))
    spread_a = a.reshape(tuple(d for n in a.shape for d in (n, 1)))
    spread_b = b.reshape(tuple(d for n in b.shape for d in (1, n)))
    return (spread_a * spread_b).reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors get a zero third component) along the last axis."""
    np = _np()
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = np.moveaxis(_arr(a), axisa, -1), np.moveaxis(_arr(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise MXNetValueError("cross: vectors must have 2 or 3 components")
    ax, ay = a[..., 0], a[..., 1]
    bx, by = b[..., 0], b[..., 1]
    az = a[..., 2] if a.shape[-1] == 3 else ax * 0
    bz = b[..., 2] if b.shape[-1] == 3 else bx * 0
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return ax * by - ay * bx
    result = np.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)
    return np.moveaxis(result, -1, axisc)


def einsum(subscripts, *operands, out=None, optimize=False, **kwargs):
    operands = [_arr(x) for x in operands]
    result = _op("_npi_einsum", *operands, subscripts=subscripts, optimize=optimize,
                 num_args=len(operands))
    return result if out is None else result.copyto(out)


def pad(x, pad_width, mode="constant", constant_values=0, **kwargs):
    x = _arr(x)
    widths = _onp.broadcast_to(_onp.asarray(pad_width, dtype=int), (x.ndim, 2))
    return _op("_npi_pad", x, pad_width=tuple(map(tuple, widths.tolist())), mode=mode,
               constant_value=float(constant_values))


# -- differences and reductions --------------------------------------------------------------------
def diff(a, n=1, axis=-1, prepend=None, append=None):
    np = _np()
    a = _arr(a)
    axis %= a.ndim
    pieces = [x for x in (prepend, a, append) if x is not None]
    if len(pieces) > 1:
        a = np.concatenate([_expand_to(_arr(p, a), a, axis) for p in pieces], axis=axis)
    for _ in range(n):
        length = a.shape[axis]
        a = np.slice_axis(a, axis=axis, begin=1, end=length) - \
            np.slice_axis(a, axis=axis, begin=0, end=length - 1)
    return a


def _expand_to(value, like, axis):
    if value.ndim == like.ndim:
        return value
    shape = list(like.shape)
    shape[axis] = 1
    return _np().broadcast_to(value, tuple(shape))


def ediff1d(ary, to_end=None, to_begin=None):
    flat = diff(_arr(ary).reshape(-1))
    pieces = [_arr(p, flat).reshape(-1) for p in (to_begin,) if p is not None] + [flat] + \
        [_arr(p, flat).reshape(-1) for p in (to_end,) if p is not None]
    return _np().concatenate(pieces, axis=0) if len(pieces) > 1 else flat


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    a = _arr(a)
    if weights is None:
        avg = a.mean(axis=axis, keepdims=keepdims)
        count = a.size / max(avg.size, 1)
        total = _np().full(avg.shape, count, dtype=avg.dtype)
        return (avg, total) if returned else avg
    w = _arr(weights, a)
    if w.shape != a.shape:
        shape = [1] * a.ndim
        shape[axis % a.ndim] = w.shape[0]
        w = w.reshape(shape)
    total = _np().broadcast_to(w, a.shape).sum(axis=axis, keepdims=keepdims)
    avg = (a * w).sum(axis=axis, keepdims=keepdims) / total
    return (avg, total) if returned else avg


def polyval(p, x):
    p, x = _arr(p), _arr(x)
    # NOTE: NumPy's Horner loop from zeros shaped like x (one coefficient still has x's shape)
    return functools.reduce(lambda acc, c: acc * x + c, [p[i] for i in range(p.shape[0])],
                            _np().zeros_like(x))


# -- NaN-aware and sign arithmetic -----------------------------------------------------------------
def _isnan(x):
    """NaN test as a recorded op (``mx.np.isnan`` is an eager fallback)."""
    return x != x  # noqa: PLR0124


def _pair(x1, x2):
    like = x1 if isinstance(x1, NDArray) else x2
    return _arr(x1, like), _arr(x2, like)


@_ufunc
def fmax(x1, x2):
    a, b = _pair(x1, x2)
    np = _np()
    return np.where(_isnan(b), a, np.where(_isnan(a), b, np.maximum(a, b)))


@_ufunc
def fmin(x1, x2):
    a, b = _pair(x1, x2)
    np = _np()
    return np.where(_isnan(b), a, np.where(_isnan(a), b, np.minimum(a, b)))


@_ufunc
def fmod(x1, x2):
    """C's remainder: the sign of the dividend (``mod`` takes the divisor's)."""
    a, b = _pair(x1, x2)
    np = _np()
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":    # in their dtype, no gradient (as mod)
        return np.mod(np.abs(a), np.abs(b)) * np.sign(a)
    return a - b * np.trunc(a / b)


@_ufunc
def copysign(x1, x2):
    a, b = _pair(x1, x2)
    negative = _op("_npi_less_scalar", b, scalar=0.0, is_int=False)
    return _np().where(negative, -_np().abs(a), _np().abs(a))


@_ufunc
def ldexp(x1, x2):
    a, b = _pair(x1, x2)
    return a * _np().power(2.0, b.astype(a.dtype) if a.dtype.kind == "f" else b)


@_ufunc
def logaddexp(x1, x2):
    a, b = _pair(x1, x2)
    np = _np()
    top = np.maximum(a, b)
    return top + np.log(np.exp(a - top) + np.exp(b - top))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = _arr(x)
    if x.dtype.kind not in "fc":
        return positive(x) if copy else x
    info = _onp.finfo(x.dtype)
    np = _np()
    result = np.where(_isnan(x), _filled(x, nan), x)
    result = np.where(result == _onp.inf, _filled(x, info.max if posinf is None else posinf),
                      result)
    result = np.where(result == -_onp.inf, _filled(x, info.min if neginf is None else neginf),
                      result)
    if not copy and not STATE.deferred:   # NOTE: a traced graph has no in-place writes: a new
        x[...] = result                     # output, as MXNet's symbol gives
        return x
    return result


def _filled(like, value):
    return _np().full(like.shape, value, dtype=like.dtype)


def unravel_index(indices, shape, order="C"):
    """Coordinate arrays (a tuple, one per axis of ``shape``) of flat ``indices``; recorded, so
    it hybridizes (MXNet 2.0 runs its op)."""
    if order != "C":
        raise NotImplementedError("unravel_index: column-major (Fortran-style) order is not "
                                  "supported, as in MXNet")
    if not isinstance(indices, NDArray):
        return _onp.unravel_index(indices, shape)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    return tuple(_op("_unravel_index", indices, shape=shape))


COMPOSED = {name: fn for name, fn in globals().items()
            if callable(fn) and not name.startswith("_")
            and getattr(fn, "__module__", "") == __name__
            and name not in ("get_op", "invoke")}
COMPOSED.update(INTEGER_BINARY)

