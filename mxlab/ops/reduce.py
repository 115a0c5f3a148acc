"""Reductions: sum, mean, max, min, prod, nansum, argmax/argmin, norm, std/var, cumsum, all/any.

Most reductions exist in two flavours, as in MXNet: the legacy op (``sum``, ``argmax``; ``mx.nd``)
and the NumPy op (``_np_sum``, ``_npi_argmax``; ``mx.np``). They differ in small ways:

================  ===================================  ===================================
                  legacy (``mx.nd``)                   NumPy (``mx.np``)
================  ===================================  ===================================
full reduction    shape ``(1,)``                       0-d
``axis=()``       reduces every axis                   reduces nothing
attributes        ``axis``, ``keepdims``, ``exclude``  ``axis``, ``keepdims``, ``dtype``...
argmax/argmin     float32 indices                      int64 indices
mean of ints      the input dtype (truncated)          float32
================  ===================================  ===================================

Gradients spread the head gradient back with the hidden op ``_broadcast_reduced`` (its adjoint is
``_sum_reduced_like``, so gradients can be differentiated again). ``max``/``min`` give the full
gradient to every position equal to the result (ties are not split), as MXNet does; ``prod``'s
gradient is ``y / x`` (undefined at zeros), as in MXNet.

Example
-------
>>> import mxlab as mx
>>> mx.nd.sum(mx.nd.ones((2, 3))).shape, mx.np.sum(mx.np.ones((2, 3))).shape
((1,), ())
"""
import functools
import math

import numpy

from ..base import MXNetAxisError, MXNetValueError
from .attrs import Attr
from .elemwise import as_array, float_result
from .infer import known
from .registry import F, Op, register

__all__ = ["reduced_axes", "reduced_shape", "reduction"]

_FLOAT16, _FLOAT32, _FLOAT64 = (numpy.dtype(f"float{b}") for b in (16, 32, 64))
_INT64 = numpy.dtype("int64")
_BOOL = numpy.dtype("bool")


@functools.lru_cache(maxsize=4096)
def reduced_axes(op_name, axis, ndim, exclude=False, empty_all=False):
    """The sorted, non-negative axes a reduction covers; errors name the op.

    ``axis=None`` reduces every axis; ``()`` every axis when ``empty_all`` (legacy) else none;
    ``exclude`` reduces the complement (legacy).

    >>> reduced_axes("sum", -1, 3), reduced_axes("sum", 1, 3, exclude=True)
    ((2,), (0, 2))
    """
    if axis is None or (empty_all and axis == ()):
        return tuple(range(ndim))
    if ndim == 0 and not empty_all and axis in (0, -1, (0,), (-1,)):
        return ()       # NOTE: NumPy (and MXNet's numpy ops) read axis 0 of a scalar as itself
    axes = []
    for a in (axis,) if isinstance(axis, int) else axis:
        if not -ndim <= a < ndim:
            raise MXNetAxisError(f"{op_name}: axis {a} is out of bounds for an array of "
                                 f"dimension {ndim}")
        a %= ndim
        if a in axes:
            raise MXNetValueError(f"{op_name}: duplicate value in 'axis': {axis}")
        axes.append(a)
    if exclude:
        return tuple(i for i in range(ndim) if i not in axes)
    return tuple(sorted(axes))


def reduced_shape(shape, axes, keepdims, legacy):
    """Output shape of a reduction over ``axes``; legacy full reductions give ``(1,)``."""
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return (1,) if legacy and not out else out


def _axes_of(name, attrs, ndim, legacy):
    return reduced_axes(name, attrs.get("axis"), ndim, attrs.get("exclude", False), legacy)


@functools.lru_cache(maxsize=4096)
def _plan(name, axis, shape, exclude, keepdims, legacy):
    """``(axes, output shape)`` of one reduction call, cached: the imperative hot path."""
    axes = reduced_axes(name, axis, len(shape), exclude, legacy)
    return axes, reduced_shape(shape, axes, keepdims, legacy)


def _reduction_infer(name, legacy):
    def infer_shape(attrs, in_shapes):
        shape = in_shapes[0]
        if not known(shape):
            return [None]
        axes = _axes_of(name, attrs, len(shape), legacy)
        return [reduced_shape(shape, axes, attrs["keepdims"], legacy)]
    return infer_shape


def _rule_type(rule):
    """``infer_type`` from ``rule(in_dtype, attrs) -> dtype``."""
    return lambda attrs, d: [None if d[0] is None else rule(numpy.dtype(d[0]), attrs).name]


def _no_grad(legacy):
    return lambda node, g: [None]


def reduction(name, fn, dtype_rule, grad=_no_grad, legacy=True, attrs=(), aliases=(),
              np_name=None, exclude=None, doc="", temp=False, fold_unit_axes=None):
    """Register a reduction computed by ``fn(xp, x, axes, dtype, attrs)`` in keepdims form.

    ``dtype_rule(in_dtype, attrs)`` gives the output dtype; ``grad(legacy)`` builds the gradient
    rule; ``exclude`` (default: ``legacy``) adds MXNet's ``exclude`` attribute. Output shapes
    follow the flavour (see the module doc). With ``temp`` the kernel needs scratch memory:
    ``fn`` also gets the op context (``ctx.temp_space``) and the op requests the temp resource.
    ``fold_unit_axes(xp, x, out)``: what a reduction of one element is (sum and mean: the
    element plus zero, max, min and prod: the element), so planned graphs reducing axes of
    extent 1 write that instead.
    """
    def reduce(xp, x, attrs_, *ctx):
        axes, shape = _plan(name, attrs_["axis"], x.shape, attrs_.get("exclude", False),
                            attrs_["keepdims"], legacy)
        dtype = dtype_rule(x.dtype, attrs_)
        result = fn(xp, x, axes, dtype, attrs_, *ctx).reshape(shape)  # NOTE: keepdims: no scalar
        return result if result.dtype == dtype else result.astype(dtype)

    def compute(xp, inputs, attrs_):
        return reduce(xp, inputs[0], attrs_)

    def compute_with_scratch(xp, inputs, attrs_, ctx):
        return reduce(xp, inputs[0], attrs_, ctx)

    def compute_into(xp, inputs, attrs_, outs):
        """Planned execution: a reduction over axes of extent 1 (a loss's per-sample mean of a
        ``(batch, 1)`` column) is a copy of its input, the same values; others compute, then
        copy."""
        x, out = inputs[0], outs[0]
        axes, _ = _plan(name, attrs_["axis"], x.shape, attrs_.get("exclude", False),
                        attrs_["keepdims"], legacy)
        if x.dtype == out.dtype and x.dtype.kind == "f" and x.size == out.size \
                and attrs_.get("initial") is None and dtype_rule(x.dtype, attrs_) == x.dtype \
                and all(x.shape[a] == 1 for a in axes):
            fold_unit_axes(xp, x.reshape(out.shape), out)
            return
        xp.copyto(out, reduce(xp, x, attrs_), casting="unsafe")

    exclude = legacy if exclude is None else exclude
    specs = (Attr("axis", "axis", None, optional=True), Attr("keepdims", "bool", False))
    specs += (Attr("exclude", "bool", False),) if exclude else ()
    return register(Op(name=name, compute=compute_with_scratch if temp else compute,
                       compute_into=None if temp or fold_unit_axes is None else compute_into,
                       attrs=specs + tuple(attrs), resources=("temp",) if temp else (),
                       aliases=tuple(aliases), infer_shape=_reduction_infer(name, legacy),
                       infer_type=_rule_type(dtype_rule), gradient=grad(legacy),
                       np_name=np_name, doc=doc))


# -- hidden helpers for gradients: spread a reduced array back, and its adjoint ------------------
_HELPER_ATTRS = (Attr("axis", "axis", None, optional=True), Attr("exclude", "bool", False),
                 Attr("empty_all", "bool", False), Attr("mean", "bool", False),
                 Attr("ddof", "int", 0))


def _helper_axes(name, attrs, ndim):
    return reduced_axes(name, attrs["axis"], ndim, attrs["exclude"], attrs["empty_all"])


@functools.lru_cache(maxsize=1024)
def _kept_shape(shape, axes):
    """:func:`reduced_shape` in keepdims form, cached (a planned backward runs it every step)."""
    return reduced_shape(shape, axes, True, False)


def _divisor(shape, axes, attrs):
    count = 1
    for a in axes:
        count *= shape[a]
    return count - attrs["ddof"]


def _broadcast_reduced_into(xp, inputs, attrs, outs):
    """``data`` in keepdims form broadcast into the output by one ufunc (mean: divided on the
    way, the same division per element as dividing the broadcast copy)."""
    data, like = inputs
    axes = _helper_axes("_broadcast_reduced", attrs, like.ndim)
    kept = data.reshape(_kept_shape(like.shape, axes))
    if attrs["mean"]:   # NOTE: divided in the output's dtype (a float16 head of a float32 input)
        kept = kept.astype(outs[0].dtype, copy=False)
        xp.divide(kept, _divisor(like.shape, axes, attrs), out=outs[0])
    else:
        xp.copyto(outs[0], kept)


def _spread_dtype(attrs, data, like):
    """The data's dtype, but a mean spreads its head (``mean(x, dtype=int8)``,
    ``mean(x, dtype=float16)``) in the float dtype of ``like``: MXNet casts the head to the
    input's dtype and divides there, so a float32 input gets ``1 / n`` exactly."""
    data, like = numpy.dtype(data), numpy.dtype(like)
    return like if attrs["mean"] and data.kind in "biuf" and like.kind == "f" else data


def _broadcast_reduced(xp, inputs, attrs):
    out = xp.empty(inputs[1].shape, _spread_dtype(attrs, inputs[0].dtype, inputs[1].dtype))
    _broadcast_reduced_into(xp, inputs, attrs, [out])
    return out


def _sum_reduced_like(xp, inputs, attrs):
    data, like = inputs
    axes = _helper_axes("_sum_reduced_like", attrs, data.ndim)
    result = as_array(xp, data.sum(axis=axes, keepdims=True)).reshape(like.shape)
    if attrs["mean"]:
        result = result / _divisor(data.shape, axes, attrs)
    return result.astype(data.dtype, copy=False)


def _helper_attrs(node):
    return {k: node.attrs[k] for k in ("axis", "exclude", "empty_all", "mean", "ddof")}


def _adjoint(op_name):
    """Gradient of one helper: the other helper with the same attributes."""
    return lambda node, g: [getattr(F, op_name)(g[0], node.inputs[0], **_helper_attrs(node)),
                            None]


for _name, _compute, _into, _other, _doc in (
        ("_broadcast_reduced", _broadcast_reduced, _broadcast_reduced_into, "_sum_reduced_like",
         "Reshape a reduced array to keepdims form, broadcast it to ``like`` (mean: / count)."),
        ("_sum_reduced_like", _sum_reduced_like, None, "_broadcast_reduced",
         "Sum over the reduced axes and reshape to ``like`` (adjoint of _broadcast_reduced).")):
    register(Op(name=_name, compute=_compute, compute_into=_into, attrs=_HELPER_ATTRS,
                num_inputs=2,
                input_names=("data", "like"), infer_shape=lambda attrs, s: [s[1]],
                infer_type=lambda attrs, d: [d[0] if None in d else _spread_dtype(
                    attrs, *d).name] if _into else [d[0]], ignore_inputs=(1,), hidden=True,
                gradient=_adjoint(_other), doc=_doc))


# -- gradient rules ------------------------------------------------------------------------------
def _spread(node, value, legacy, mean=False, ddof=0):
    """``value`` (reduced shape) broadcast back to the input's shape."""
    return F._broadcast_reduced(value, node.inputs[0], axis=node.attrs.get("axis"),
                                exclude=node.attrs.get("exclude", False), empty_all=legacy,
                                mean=mean, ddof=ddof)


def _centered(node, legacy):
    """``x - mean(x)`` over the reduced axes (used by var/std)."""
    x = node.inputs[0]
    mean = F._sum_reduced_like(x, node.outputs[0], axis=node.attrs.get("axis"),
                               empty_all=legacy, mean=True)
    return F.broadcast_sub(x, _spread(node, mean, legacy))


def _sum_grad(legacy):
    return lambda node, g: [_spread(node, g[0], legacy)]


def _mean_grad(legacy):
    return lambda node, g: [_spread(node, g[0], legacy, mean=True)]


def _extreme_grad(legacy):
    def grad(node, g):
        x = node.inputs[0]
        mask = F.broadcast_equal(x, _spread(node, node.outputs[0], legacy))
        return [F.broadcast_mul(mask, _spread(node, g[0], legacy))]
    return grad


def _prod_grad(legacy):
    def grad(node, g):
        spread_g, spread_y = _spread(node, g[0], legacy), _spread(node, node.outputs[0], legacy)
        return [F.broadcast_div(F.broadcast_mul(spread_g, spread_y), node.inputs[0])]
    return grad


def _nansum_grad(legacy):
    def grad(node, g):
        x = node.inputs[0]
        return [F.broadcast_mul(_spread(node, g[0], legacy), F.broadcast_equal(x, x))]
    return grad


def _nanprod_grad(legacy):
    def grad(node, g):
        x = node.inputs[0]
        present = F.broadcast_equal(x, x)
        spread_g, spread_y = _spread(node, g[0], legacy), _spread(node, node.outputs[0], legacy)
        others = F.broadcast_div(F.broadcast_mul(spread_g, spread_y),
                                 F.where(present, x, F.ones_like(x)))
        return [F.broadcast_mul(others, present)]
    return grad


def _norm_grad(legacy):
    def grad(node, g):
        x = node.inputs[0]
        if node.attrs["ord"] == 1:
            return [F.broadcast_mul(_spread(node, g[0], legacy), F.sign(x))]
        scaled = F.broadcast_div(g[0], node.outputs[0])
        return [F.broadcast_mul(_spread(node, scaled, legacy), x)]
    return grad


def _var_grad(legacy):
    def grad(node, g):
        spread = _spread(node, g[0], legacy, mean=True, ddof=node.attrs["ddof"])
        return [F._mul_scalar(F.broadcast_mul(_centered(node, legacy), spread), scalar=2.0)]
    return grad


def _std_grad(legacy):
    def grad(node, g):
        scaled = F.broadcast_div(g[0], node.outputs[0])
        spread = _spread(node, scaled, legacy, mean=True, ddof=node.attrs["ddof"])
        return [F.broadcast_mul(_centered(node, legacy), spread)]
    return grad


# -- dtype rules ---------------------------------------------------------------------------------
def _same(dtype, attrs):
    return dtype


def _sum_dtype(dtype, attrs):
    """NumPy sum/prod: the ``dtype`` attribute, else bool counts as int64, else the input's."""
    if attrs.get("dtype"):
        return numpy.dtype(attrs["dtype"])
    return _INT64 if dtype.kind == "b" else dtype


def _mean_dtype(dtype, attrs):
    if attrs.get("dtype"):
        return numpy.dtype(attrs["dtype"])
    return float_result(dtype)


def _norm_dtype(dtype, attrs):
    if attrs.get("out_dtype"):
        return numpy.dtype(attrs["out_dtype"])
    return float_result(dtype)


def _constant(dtype):
    return lambda in_dtype, attrs: dtype


# -- kernels (keepdims form) ---------------------------------------------------------------------
# NOTE: array methods (``x.sum(...)``) skip NumPy's function dispatch, about twice as fast on the
# small arrays of the imperative hot path; CuPy arrays have the same methods.
def _plain(method):
    return lambda xp, x, axes, dtype, attrs: getattr(x, method)(axis=axes, keepdims=True)


def _typed(method):
    def fn(xp, x, axes, dtype, attrs):
        if dtype == _FLOAT16:    # NOTE: MXNet accumulates sum/mean wider, then casts
            acc = _FLOAT32 if x.dtype == _FLOAT16 else _FLOAT64
            return getattr(x, method)(axis=axes, dtype=acc, keepdims=True).astype(dtype)
        return getattr(x, method)(axis=axes, dtype=dtype, keepdims=True)
    return fn


def _with_initial(method, combine):
    """NumPy's ``initial``, folded into the result (CuPy's reductions have no ``initial``)."""
    base = _typed(method) if method in ("sum", "prod") else _plain(method)

    def fn(xp, x, axes, dtype, attrs):
        result = base(xp, x, axes, dtype, attrs)
        initial = attrs.get("initial")
        return result if initial is None else combine(xp, result, initial)
    return fn


def _norm(xp, x, axes, dtype, attrs, ctx):
    """|x| or x*x into the op context's scratch space (MXNet's norm requests temp space too),
    then the reduction."""
    x = x.astype(dtype, copy=False)
    scratch = ctx.temp_space(xp, x.shape, x.dtype)
    if attrs["ord"] == 1:
        return xp.abs(x, out=scratch).sum(axis=axes, keepdims=True)
    return xp.sqrt(xp.multiply(x, x, out=scratch).sum(axis=axes, keepdims=True))


def _moment(method):
    def fn(xp, x, axes, dtype, attrs):
        x = x.astype(dtype, copy=False)
        return getattr(x, method)(axis=axes, ddof=attrs["ddof"], keepdims=True)
    return fn


def _arg_reduce(method):
    def fn(xp, x, axes, dtype, attrs):
        axis = attrs["axis"]
        if axis is None:
            return getattr(x.reshape(-1), method)(axis=0, keepdims=True)
        return getattr(x, method)(axis=axis, keepdims=True)
    return fn


_DTYPE_ATTR = Attr("dtype", "dtype", None, optional=True)
_INITIAL_ATTR = Attr("initial", "float", None, optional=True)

# legacy names, NumPy op names, np_name, kernel, NumPy dtype rule (legacy keeps the dtype),
# gradient, NumPy-only attributes
_REDUCTIONS = (
    (("sum", "sum_axis"), ("_np_sum", "_npi_sum"), "sum",
     _with_initial("sum", lambda xp, r, i: r + i), _sum_dtype, _sum_grad,
     (_DTYPE_ATTR, _INITIAL_ATTR)),
    (("mean",), ("_npi_mean",), "mean", _typed("mean"), _mean_dtype, _mean_grad, (_DTYPE_ATTR,)),
    (("max", "max_axis"), ("_np_max", "_npi_max", "_np_amax"), "max",
     _with_initial("max", lambda xp, r, i: xp.maximum(r, i)), _same, _extreme_grad,
     (_INITIAL_ATTR,)),
    (("min", "min_axis"), ("_np_min", "_npi_min", "_np_amin"), "min",
     _with_initial("min", lambda xp, r, i: xp.minimum(r, i)), _same, _extreme_grad,
     (_INITIAL_ATTR,)),
    (("prod",), ("_np_prod", "_npi_prod", "_np_product"), "prod",
     _with_initial("prod", lambda xp, r, i: r * i), _sum_dtype, _prod_grad,
     (_DTYPE_ATTR, _INITIAL_ATTR)),
)


def _plus_zero(xp, x, out):
    """A sum of one element: NumPy's sum starts from +0.0, so -0.0 comes out +0.0."""
    xp.add(x, 0, out=out)


def _copy(xp, x, out):
    xp.copyto(out, x)


def _register_pair(legacy_names, np_names, np_name, kernel, np_dtype, grad, np_attrs):
    """One table row: the legacy op (keeps the input dtype) and the NumPy op."""
    fold = _plus_zero if np_name in ("sum", "mean") else _copy
    reduction(legacy_names[0], kernel, _same, grad=grad, legacy=True, aliases=legacy_names[1:],
              fold_unit_axes=fold)
    reduction(np_names[0], kernel, np_dtype, grad=grad, legacy=False, attrs=np_attrs,
              aliases=np_names[1:], np_name=np_name, fold_unit_axes=fold)


for _row in _REDUCTIONS:
    _register_pair(*_row)

reduction("nansum", lambda xp, x, axes, dtype, attrs: xp.nansum(x, axis=axes, keepdims=True),
          _same, grad=_nansum_grad,
          doc="Sum treating NaN as zero (gradient 0 at NaN).")
reduction("nanprod", lambda xp, x, axes, dtype, attrs: xp.nanprod(x, axis=axes, keepdims=True),
          _same, grad=_nanprod_grad,
          doc="Product treating NaN as one (gradient 0 at NaN).")
reduction("norm", _norm, _norm_dtype, grad=_norm_grad, temp=True,
          attrs=(Attr("ord", "int", 2, choices=(1, 2)),
                 Attr("out_dtype", "dtype", None, optional=True)),
          doc="L1 or L2 norm over ``axis`` (of the flattened array when ``axis`` is None).")
for _method, _grad in (("std", _std_grad), ("var", _var_grad)):
    reduction(f"_npi_{_method}", _moment(_method), _mean_dtype, grad=_grad, legacy=False,
              np_name=_method, attrs=(_DTYPE_ATTR, Attr("ddof", "int", 0)))
for _method in ("argmax", "argmin"):
    reduction(_method, _arg_reduce(_method), _constant(_FLOAT32), exclude=False,
              doc="Indices of the extreme values, as float32 (MXNet legacy).")
    reduction(f"_npi_{_method}", _arg_reduce(_method), _constant(_INT64), legacy=False,
              np_name=_method)
register(Op(name="argmax_channel",
            compute=lambda xp, inputs, attrs: as_array(xp, inputs[0].argmax(axis=1)).astype(
                _FLOAT32),
            infer_shape=lambda attrs, s: [None if s[0] is None else tuple(s[0][:1] + s[0][2:])],
            infer_type=lambda attrs, dtypes: [_FLOAT32.name], gradient=_no_grad(True),
            doc="Indices of the maxima along axis 1 (the channels), as float32."))
for _method in ("all", "any"):
    reduction(f"_np_{_method}", _plain(_method), _constant(_BOOL), legacy=False, np_name=_method)


# -- cumulative sum and its adjoint (a reversed cumulative sum) ----------------------------------
def _scan_axis(name, x, axis):
    """``(array, axis)`` to scan: the flattened array when ``axis`` is None."""
    if axis is None:
        return x.reshape(-1), 0
    return x, reduced_axes(name, axis, x.ndim)[0]


def _cumsum(xp, inputs, attrs):
    x, axis = _scan_axis("_np_cumsum", inputs[0], attrs["axis"])
    return xp.cumsum(x, axis=axis, dtype=_sum_dtype(x.dtype, attrs))


def _rcumsum(xp, inputs, attrs):
    data, like = inputs
    data, axis = _scan_axis("_rcumsum", data, attrs["axis"])
    flipped = xp.flip(data, axis)
    return xp.flip(xp.cumsum(flipped, axis=axis), axis).reshape(like.shape)


def _cumsum_shape(attrs, in_shapes):
    """The input's shape, or its size as one axis when ``axis`` is None (a flattened scan)."""
    shape = in_shapes[0]
    if shape is None:
        return [None]
    if attrs["axis"] is None:
        return [(None if None in shape else math.prod(shape),)]
    reduced_axes("_np_cumsum", attrs["axis"], len(shape))
    return [tuple(shape)]


_SCAN_AXIS = Attr("axis", "int", None, optional=True)
register(Op(name="_np_cumsum", aliases=("cumsum", "_npi_cumsum"), compute=_cumsum,
            infer_shape=_cumsum_shape,
            np_name="cumsum", attrs=(_SCAN_AXIS, _DTYPE_ATTR), infer_type=_rule_type(_sum_dtype),
            gradient=lambda node, g: [F._rcumsum(g[0], node.inputs[0], axis=node.attrs["axis"])],
            save_inputs=(0,), save_outputs=False,
            doc="Cumulative sum along ``axis`` (of the flattened array when ``axis`` is None)."))
register(Op(name="_rcumsum", compute=_rcumsum, num_inputs=2, input_names=("data", "like"),
            attrs=(_SCAN_AXIS,), infer_shape=lambda attrs, s: [s[1]],
            infer_type=lambda attrs, d: [d[0]], ignore_inputs=(1,), hidden=True,
            gradient=lambda node, g: [F._np_cumsum(g[0], axis=node.attrs["axis"]), None],
            doc="Reversed cumulative sum reshaped to ``like`` (the adjoint of ``cumsum``)."))
