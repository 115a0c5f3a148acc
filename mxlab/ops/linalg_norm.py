"""``np.linalg.norm``: vector and matrix norms with NumPy's ``ord``/``axis``/``keepdims``, and
their gradients (subgradients at ties and zeros, as MXNet gives them).

Example
-------
>>> import mxlab as mx
>>> float(mx.np.linalg.norm(mx.np.array([3.0, 4.0])))
5.0
"""
import math

from .attrs import Attr
from .linalg import mT, register_linalg

__all__ = []


def _axes(x, attrs):
    """The reduced axes as a tuple: all of them (flattened, Frobenius) when ``axis`` is None."""
    axis = attrs["axis"]
    if axis is None:
        return tuple(range(x.ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(a % x.ndim for a in axis)


def _order(attrs):
    """``ord`` with MXNet's spellings ``'inf'`` and ``'-inf'`` read as the floats NumPy takes."""
    ord_ = attrs["ord"]
    return {"inf": math.inf, "-inf": -math.inf}.get(ord_, ord_) if isinstance(ord_, str) else ord_


def _flat_l2(x, attrs):
    """NumPy's default: ``axis=None`` with no ``ord`` (or Frobenius on a matrix, or 2 on a
    vector) is the 2-norm of the flattened array."""
    ord_ = _order(attrs)
    return attrs["axis"] is None and (ord_ is None or (ord_ == "fro" and x.ndim == 2) or
                                      (ord_ == 2 and x.ndim == 1))


def _norm(xp, inputs, attrs):
    x = inputs[0]
    if _flat_l2(x, attrs):
        return xp.sqrt((x * x).sum(keepdims=attrs["keepdims"])).astype(x.dtype)
    norm = xp.linalg.norm(x, ord=_order(attrs), axis=attrs["axis"], keepdims=attrs["keepdims"])
    return xp.asarray(norm).astype(x.dtype)


def _keep(g, x, axes):
    """Re-insert the reduced axes so ``g`` broadcasts against ``x``."""
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return g.reshape(shape)


def _vector_grad(xp, x, n, ord_):
    absx = xp.abs(x)
    if ord_ in (None, 2, "fro"):
        return x / xp.where(n == 0, 1, n)
    if ord_ == 1:
        return xp.sign(x)
    if ord_ in (math.inf, -math.inf):
        hit = (absx == n).astype(x.dtype)
        return xp.sign(x) * hit / xp.maximum(hit.sum(axis=-1, keepdims=True), 1)
    if ord_ == 0:
        return xp.zeros_like(x)
    safe = xp.where(n == 0, 1, n)
    return xp.sign(x) * absx ** (ord_ - 1) / safe ** (ord_ - 1)


def _matrix_grad(xp, x, ord_):
    """Gradient of a matrix norm over the last two axes."""
    if ord_ in (None, "fro"):
        n = xp.sqrt((x * x).sum(axis=(-2, -1), keepdims=True))
        return x / xp.where(n == 0, 1, n)
    if ord_ in ("nuc", 2, -2):
        u, _, vh = xp.linalg.svd(x, full_matrices=False)
        if ord_ == "nuc":
            return u @ vh
        pick = 0 if ord_ == 2 else -1
        return u[..., :, pick:pick + 1 or None] @ vh[..., pick:pick + 1 or None, :]
    transpose = ord_ in (math.inf, -math.inf)      # row sums instead of column sums
    y = mT(x) if transpose else x
    sums = xp.abs(y).sum(axis=-2)
    pick = sums.argmax(axis=-1) if ord_ in (1, math.inf) else sums.argmin(axis=-1)
    mask = (xp.arange(sums.shape[-1]) == xp.asarray(pick)[..., None]).astype(x.dtype)
    grad = xp.sign(y) * mask[..., None, :]
    return mT(grad) if transpose else grad


def _norm_backward(xp, grads, inputs, outputs, attrs):
    x, ord_ = inputs[0], _order(attrs)
    axes = _axes(x, attrs)
    g, n = _keep(grads[0], x, axes), _keep(outputs[0], x, axes)
    if _flat_l2(x, attrs) or len(axes) == 1:
        if len(axes) > 1:             # flattened vector norm (axis=None)
            return [g * _vector_grad(xp, x, n, ord_)]
        moved = xp.moveaxis(x, axes[0], -1)
        grad = _vector_grad(xp, moved, xp.moveaxis(n, axes[0], -1), ord_)
        return [g * xp.moveaxis(grad, -1, axes[0])]
    moved = xp.moveaxis(x, axes, (-2, -1))
    return [g * xp.moveaxis(_matrix_grad(xp, moved, ord_), (-2, -1), axes)]


def _norm_shape(attrs, shapes):
    shape = shapes[0]
    if shape is None:
        return [None]
    axis = attrs["axis"]
    axes = range(len(shape)) if axis is None else \
        [a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)]
    if attrs["keepdims"]:
        return [tuple(1 if i in axes else d for i, d in enumerate(shape))]
    return [tuple(d for i, d in enumerate(shape) if i not in axes)]


register_linalg("norm", _norm, _norm_shape, _norm_backward, input_names=("x",),
                attrs=(Attr("ord", "any", None, optional=True,
                            doc="None, 'fro', 'nuc', inf, -inf or a number"),
                       Attr("axis", "axis", None, optional=True),
                       Attr("keepdims", "bool", False)),
                doc="Vector or matrix norm (NumPy's ``linalg.norm``).")
