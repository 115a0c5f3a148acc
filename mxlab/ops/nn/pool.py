"""Pooling (max, avg, sum, lp; global; valid/full/same conventions) with its gradient.

The per-shape plan (window geometry, a padded workspace whose border already holds the pad value,
and for average pooling MXNet's divisor map) comes from :mod:`mxlab.op_cache`; forward and backward
share the entry. Average pooling divides by the window clipped to the padded input
(``count_include_pad``, the default) or to the real input, exactly as MXNet's ``pool.h`` does; the
``full`` convention lets the last window run past the padding. Max pooling sends the gradient to the
first maximum of each window.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[[[1., 2.], [3., 4.]]]])
>>> mx.nd.Pooling(x, kernel=(2, 2), pool_type="max").asnumpy().ravel()
array([4.], dtype=float32)
"""

import dataclasses
import math

import numpy

from ... import op_cache
from ...base import MXNetValueError
from ..attrs import Attr
from ..registry import F, Op, register
from ._window import ALL_LAYOUTS, Window, check_layout, spatial

__all__ = ["PoolPlan", "pool_plan"]


@dataclasses.dataclass(eq=False)
class PoolPlan:
    """Geometry, padded workspace and (avg) divisor of one pooling signature."""

    win: Window
    pool_type: str
    p_value: object
    is_global: bool
    workspace: object = None
    divisor: object = None
    scatter: object = None  # max pooling's flat scatter indices (built on the first backward)

    def padded(self, xp, x):
        if self.workspace is None:
            return x
        self.workspace[self.win.interior] = x
        return self.workspace


def _fill_value(pool_type, dtype):
    if pool_type != "max":
        return 0
    dtype = numpy.dtype(dtype)
    return numpy.finfo(dtype).min if dtype.kind == "f" else numpy.iinfo(dtype).min


def _out_size(op_name, convention, size, k, s, p):
    if k > size + 2 * p:
        raise MXNetValueError(
            f"{op_name}: kernel size {k} exceeds input 'data' size {size} padded by {p}"
        )
    if convention == "valid":
        return (size + 2 * p - k) // s + 1
    return 1 + math.ceil((size + 2 * p - k) / s)


def _geometry(op_name, attrs, shape):
    """A :class:`Window` for ``shape`` plus the declared pad MXNet clips the average divisor to."""
    ndim = len(shape) - 2
    if ndim not in (1, 2, 3):
        raise MXNetValueError(
            f"{op_name}: input 'data' must be 3-, 4- or 5-d (N, C, spatial...), got shape "
            f"{tuple(shape)}"
        )
    check_layout(op_name, attrs["layout"], ndim)
    if attrs["global_pool"]:
        kernel, stride, pad = tuple(shape[2:]), (1,) * ndim, (0,) * ndim
    else:
        if not attrs["kernel"]:
            raise MXNetValueError(
                f"{op_name}: attribute 'kernel' is required unless global_pool=True"
            )
        kernel = spatial(op_name, "kernel", attrs["kernel"], ndim, 1, 1)
        stride = spatial(op_name, "stride", attrs["stride"], ndim, 1, 1)
        # NOTE: MXNet reads the first ndim pad entries; extra zeros (pad=(0, 0, 0) on 1-D
        #   data) are accepted as it accepts them, any other extra entry stays an error
        given = tuple(attrs["pad"] or ())
        if len(given) > ndim and not any(given[ndim:]):
            given = given[:ndim]
        pad = spatial(op_name, "pad", given, ndim, 0, 0)
    convention = attrs["pooling_convention"]
    if convention == "same" and not attrs["global_pool"]:
        return _same_geometry(op_name, shape, kernel, stride, pad)
    out = tuple(
        _out_size(op_name, convention, s, k, st, p)
        for s, k, st, p in zip(shape[2:], kernel, stride, pad)
    )
    pad_hi = tuple(
        max(p, (o - 1) * st + k - s - p)
        for s, k, st, p, o in zip(shape[2:], kernel, stride, pad, out)
    )
    win = Window(tuple(shape), kernel, stride, (1,) * ndim, pad, pad_hi, out)
    return win, pad


def _same_geometry(op_name, shape, kernel, stride, pad):
    """TensorFlow-style 'same' (MXNet allows it for 1-d only): ``out = ceil(size / stride)``."""
    if len(shape) != 3 or any(pad):
        raise MXNetValueError(
            f"{op_name}: pooling_convention='same' supports 1-d data without pad only, got "
            f"data shape {tuple(shape)} and pad {pad}"
        )
    out = (-(-shape[2] // stride[0]),)
    total = max((out[0] - 1) * stride[0] + kernel[0] - shape[2], 0)
    lo, hi = (total // 2,), (total - total // 2,)
    return Window(tuple(shape), kernel, stride, (1,), lo, hi, out), hi


def _divisor(xp, win, pad, count_include_pad, dtype):
    """MXNet's average-pool window sizes: clipped to input+pad, or to the input alone."""
    sizes = []
    for s, k, st, lo, p, o in zip(
        win.in_shape[2:], win.kernel, win.stride, win.pad_lo, pad, win.out
    ):
        start = numpy.arange(o) * st - lo
        end = numpy.minimum(start + k, s + p)
        if not count_include_pad:
            start, end = numpy.maximum(start, 0), numpy.minimum(end, s)
        sizes.append(numpy.maximum(end - start, 0))
    grid = numpy.ones(win.out)
    for axis, size in enumerate(sizes):
        grid = grid * size.reshape([-1 if i == axis else 1 for i in range(len(sizes))])
    grid[grid == 0] = 1
    return xp.asarray(grid.astype(dtype))


def _build(op_name, xp, attrs, shape, dtype):
    if attrs["pool_type"] == "lp" and attrs["p_value"] not in (1, 2, 3):
        raise MXNetValueError(
            f"{op_name}: pool_type='lp' needs attribute 'p_value' of 1, 2 or 3, got "
            f"{attrs['p_value']!r}"
        )
    win, pad = _geometry(op_name, attrs, shape)
    plan = PoolPlan(win, attrs["pool_type"], attrs["p_value"], attrs["global_pool"])
    if win.has_padding:
        plan.workspace = win.workspace(xp, dtype, _fill_value(plan.pool_type, dtype))
    if plan.pool_type == "avg":
        include = attrs["count_include_pad"] is not False
        plan.divisor = _divisor(xp, win, pad, include, dtype)
    return plan


def pool_plan(xp, attrs, data):
    """The cached :class:`PoolPlan` for ``data`` (forward and backward share it)."""
    key = op_cache.signature("Pooling", attrs, (data,), op_cache.device_key(xp, data))
    return op_cache.get_or_build(
        key, lambda: _build("Pooling", xp, attrs, data.shape, data.dtype.name)
    )


# -- compute ---------------------------------------------------------------------------------------
def _root(xp, total, p):
    return {1: lambda t: t, 2: xp.sqrt, 3: xp.cbrt}[p](total)


def _window_reduce(xp, plan, padded):
    """Combine the ``prod(kernel)`` strided slices, one per kernel offset.

    NOTE: far faster than reducing a strided window view (NumPy cannot vectorise that reduction).
    Global pooling reduces the contiguous spatial axes instead of looping over its one big window.
    """
    kind, p = plan.pool_type, plan.p_value
    if plan.is_global:
        axes = tuple(range(2, padded.ndim))
        base = padded**p if kind == "lp" else padded
        return (
            base.max(axis=axes, keepdims=True)
            if kind == "max"
            else base.sum(axis=axes, keepdims=True)
        )
    combine = xp.maximum if kind == "max" else xp.add
    acc = None
    for index in plan.win.offsets():
        term = padded[index] ** p if kind == "lp" else padded[index]
        acc = term.copy() if acc is None else combine(acc, term, out=acc)
    return acc


def _pool_forward(xp, inputs, attrs):
    x = inputs[0]
    plan = pool_plan(xp, attrs, x)
    y = _window_reduce(xp, plan, plan.padded(xp, x))
    if plan.pool_type == "lp":
        y = _root(xp, y, plan.p_value)
    elif plan.pool_type == "avg":
        y = y / plan.divisor
    return y.astype(x.dtype, copy=False)


def _local_grad(xp, plan, xk, y, dy):
    """Gradient reaching the inputs ``xk`` of each window (avg, sum and lp pooling)."""
    kind = plan.pool_type
    if kind == "avg":
        return dy / plan.divisor
    if kind == "sum" or plan.p_value == 1:
        return dy
    ratio = xp.where(y != 0, xk / xp.where(y != 0, y, 1), 0)
    return dy * ratio ** (plan.p_value - 1)


CHUNK_ELEMENTS = 1 << 22  # window copies of max-pool backward are made this many elements at a time


def _first_max_offset(xp, plan, padded):
    """Per output, the first kernel offset (row-major in the window) holding a real input equal
    to the window's maximum; ``K`` (the offset count) where none does (a NaN window).

    Planes are taken a chunk at a time: their windows copied contiguous ``(P, K, L)``, the
    maximum ``y`` reduced over ``K``, and the first match found as the largest of
    ``(y == window) * (K - k)``, all passes over contiguous memory. The padded border holds the
    dtype's lowest value, so it can equal ``y`` only where ``y`` is that value; only then are
    border positions masked out (MXNet clips its windows to the input).
    """
    win = plan.win
    count = math.prod(win.kernel)
    planes = win.in_shape[0] * win.in_shape[1]
    size = math.prod(win.out)
    dtype = numpy.uint8 if count < 255 else numpy.intp
    rank = xp.arange(count, 0, -1, dtype=dtype).reshape(count, 1)
    view = win.windows(xp, padded).reshape((planes,) + win.kernel + win.out)
    real = _real_windows(xp, plan) if plan.workspace is not None else None
    low = _fill_value("max", padded.dtype)
    idx = xp.empty((planes, size), dtype=dtype)
    step = max(1, CHUNK_ELEMENTS // (count * size))
    for start in range(0, planes, step):
        cols = xp.ascontiguousarray(view[start:start + step]).reshape(-1, count, size)
        y = cols.max(axis=1, keepdims=True)
        hit = cols == y
        if real is not None and bool((y == low).any()):
            hit &= real
        best = xp.multiply(hit, rank, dtype=dtype).max(axis=1)
        idx[start:start + step] = count - best
    return idx.reshape(win.in_shape[:2] + win.out)


def _real_windows(xp, plan):
    """``(K, L)``: whether each window position is a real input rather than padding."""
    win = plan.win
    mask = xp.zeros((1, 1) + win.padded_shape[2:], dtype=bool)
    mask[win.interior] = True
    view = dataclasses.replace(win, in_shape=(1, 1) + win.in_shape[2:]).windows(xp, mask)
    return xp.ascontiguousarray(view).reshape(math.prod(win.kernel), -1)


def _max_scatter_index(xp, plan):
    """Flat input index of each output's window start (``base``, may point into the padding) and
    the flat distance of each kernel offset from it (``step``, with a last entry for "none"),
    both in unpadded coordinates."""
    if plan.scatter is None:
        win = plan.win
        in_sp = win.in_shape[2:]
        strides = [math.prod(in_sp[i + 1:]) for i in range(len(in_sp))]
        n_planes = win.in_shape[0] * win.in_shape[1]
        base = (numpy.arange(n_planes) * math.prod(in_sp)).reshape(
            win.in_shape[:2] + (1,) * len(in_sp)
        )
        for axis, (o, s, lo, st) in enumerate(zip(win.out, win.stride, win.pad_lo, strides)):
            shape = [1] * (2 + len(in_sp))
            shape[2 + axis] = o
            base = base + ((numpy.arange(o) * s - lo) * st).reshape(shape)
        kernel_grid = numpy.indices(win.kernel).reshape(len(in_sp), -1)
        step = (kernel_grid * numpy.array(strides).reshape(-1, 1)).sum(axis=0)
        step = numpy.append(step, 0)
        plan.scatter = (xp.asarray(base.astype(numpy.intp)), xp.asarray(step.astype(numpy.intp)))
    return plan.scatter


def _max_backward(xp, plan, x, dy):
    """Max pooling: each output's gradient goes to the first maximum of its window, added in
    output order (MXNet's ``unpool_max`` loop order, so overlapping windows sum alike)."""
    idx = _first_max_offset(xp, plan, plan.padded(xp, x))
    base, step = _max_scatter_index(xp, plan)
    flat = (base + step[idx]).ravel()
    values = dy.ravel()
    missing = idx.ravel() == len(step) - 1
    if bool(missing.any()):
        flat, values = flat[~missing], values[~missing]
    dx = xp.zeros(x.size, dtype=dy.dtype)
    xp.add.at(dx, flat, values)
    return dx.reshape(x.shape).astype(x.dtype, copy=False)


def _pool_backward(xp, inputs, attrs):
    dy, x = inputs
    plan = pool_plan(xp, attrs, x)
    if plan.pool_type == "max":
        return _max_backward(xp, plan, x, dy)
    # NOTE: last offset first: each input then sums its windows in output order, as MXNet does
    offsets = plan.win.offsets()[::-1]
    dpad = xp.zeros(plan.win.padded_shape, dtype=dy.dtype)
    if plan.pool_type == "lp" and plan.p_value != 1:
        y = _pool_forward(xp, [x], attrs)
        padded = plan.padded(xp, x)
        for index in offsets:
            dpad[index] += _local_grad(xp, plan, padded[index], y, dy)
    else:
        grad = _local_grad(xp, plan, None, None, dy)  # the same for every input of a window
        for index in offsets:
            dpad[index] += grad
    return dpad[plan.win.interior].astype(x.dtype)


def _global_backward(xp, inputs, attrs):
    """Global pooling: one window covering the input, so gradients broadcast instead of looping;
    max sends each gradient to the first input equal to the maximum (none when it is NaN)."""
    dy, x = inputs
    plan = pool_plan(xp, attrs, x)
    y = _pool_forward(xp, [x], attrs)
    if plan.pool_type != "max":
        return xp.broadcast_to(_local_grad(xp, plan, x, y, dy), x.shape).astype(x.dtype)
    flat = x.reshape(x.shape[:2] + (-1,))
    hit = flat == y.reshape(y.shape[:2] + (1,))
    first = xp.arange(flat.shape[2]) == hit.argmax(axis=2)[..., None]
    grad = xp.where(hit.any(axis=2, keepdims=True), dy.reshape(dy.shape[:2] + (1,)), 0)
    return xp.where(first, grad, 0).reshape(x.shape).astype(x.dtype, copy=False)


def _backward(xp, inputs, attrs):
    if attrs["global_pool"]:
        return _global_backward(xp, inputs, attrs)
    return _pool_backward(xp, inputs, attrs)


# -- shapes and registration -----------------------------------------------------------------------
def _infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None or any(d is None for d in data):
        return in_shapes, [None]
    if attrs["pool_type"] == "lp" and attrs["p_value"] is None:
        raise MXNetValueError("Pooling: pool_type='lp' needs attribute 'p_value'")
    win, _ = _geometry("Pooling", attrs, data)
    return in_shapes, [tuple(data[:2]) + win.out]


_ATTRS = (
    Attr("kernel", "shape", ()),
    Attr("pool_type", "str", "max", choices=("max", "avg", "sum", "lp")),
    Attr("global_pool", "bool", False),
    Attr("pooling_convention", "str", "valid", choices=("valid", "full", "same")),
    Attr("stride", "shape", ()),
    Attr("pad", "shape", ()),
    Attr("p_value", "int", None, optional=True),
    Attr("count_include_pad", "bool", None, optional=True),
    Attr("layout", "str", None, optional=True, choices=ALL_LAYOUTS),
)

register(
    Op(
        name="Pooling",
        compute=_pool_forward,
        attrs=_ATTRS,
        input_names=("data",),
        infer_shape=_infer_shape,
        infer_type=lambda attrs, d: [d[0]],
        gradient=lambda node, g: [F._backward_Pooling(g[0], node.inputs[0], **node.attrs)],
        save_inputs=(0,),
        save_outputs=False,
        ignored_attrs=("cudnn_off",),
        npx_name="pooling",
        nd_names=("Pooling",),
        doc="Max / average / sum / Lp pooling over 1-3 spatial dims.",
    )
)
register(
    Op(
        name="_backward_Pooling",
        compute=_backward,
        attrs=_ATTRS,
        num_inputs=2,
        input_names=("out_grad", "data"),
        infer_shape=lambda attrs, s: (s, [s[1]]),
        infer_type=lambda attrs, d: [d[1]],
        ignored_attrs=("cudnn_off",),
        hidden=True,
        doc="Gradient of Pooling for its data (recomputes the forward, keeps no output).",
    )
)
