"""Index ops: slicing, boolean masks and advanced keys with their scatter gradients, assignments
used by ``x[key] = value``, ``where``, ``clip`` (``gather_nd``, ``take``, ``pick`` and
``one_hot`` live in :mod:`mxlab.ops.gather`, sorting and ``nonzero`` in :mod:`mxlab.ops.sorting`).

Gathers and scatters come in pairs: the gradient of a gather is the matching scatter into zeros and
the gradient of that scatter is the gather again, so gradients can be differentiated again.
Assignment ops write their first input (``compute_into`` updates the buffer in place when it aliases
that input).

Example
-------
>>> import mxlab as mx
>>> mx.nd.slice(mx.nd.arange(6).reshape((2, 3)), begin=(None, 1), end=(None, None)).shape
(2, 2)
"""

import numpy

from ..base import MXNetIndexError, MXNetValueError
from .attrs import Attr
from .infer import broadcast_shapes, merge_shapes, same_shape
from .registry import F, Op, register
from .shape import norm_axis, any_unknown

__all__ = ["slice_key", "KEY_INT", "KEY_SLICE", "KEY_NONE", "KEY_ELLIPSIS", "KEY_ARRAY"]

_SLICE_ATTRS = (Attr("begin", "shape"), Attr("end", "shape"),
                Attr("step", "shape", (), optional=True))   # NOTE: MXNet reads None as ()


def _shape_of(s):
    return None if s is None else tuple(s)


def _pass_shape(index):
    return lambda a, s: [_shape_of(s[index])]


# -- slicing ---------------------------------------------------------------------------------------
def slice_key(a, ndim, op_name="slice"):
    """The Python key of ``slice(begin, end, step)`` attributes for an array of ``ndim`` dims."""
    begin, end, step = a["begin"], a["end"], a["step"] or ()
    if len(begin) != len(end) or len(begin) > ndim or (step and len(step) != len(begin)):
        raise MXNetValueError(
            f"{op_name}: begin {begin}, end {end} and step {step} must have the same length, "
            f"at most the input dimension {ndim}"
        )
    steps = step or (None,) * len(begin)
    if any(s == 0 for s in steps):
        raise MXNetValueError(f"{op_name}: step must not be 0, got {step}")
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, steps))


def _slice_axis_key(a, ndim):
    axis = norm_axis("slice_axis", a["axis"], ndim)
    return (slice(None),) * axis + (slice(a["begin"], a["end"]),)


def _key_shape(shape, key):
    """Shape of ``x[key]`` for a tuple of slices, without touching data."""
    out = [len(range(n)[k]) for n, k in zip(shape, key)]
    return tuple(out) + tuple(shape[len(key) :])


def _slicing_op(name, key_fn, attrs, **kwargs):
    """Register ``name`` (``x[key]``) and ``_backward_name`` (scatter a gradient into zeros) as a
    pair."""
    backward = f"_backward_{name.lstrip('_')}"

    def compute(xp, inputs, a):
        return inputs[0][key_fn(a, inputs[0].ndim)].copy()

    def infer(a, in_shapes):
        if any_unknown(in_shapes[:1]):
            return [None]
        return [_key_shape(tuple(in_shapes[0]), key_fn(a, len(in_shapes[0])))]

    def scatter(xp, inputs, a):
        g, x = inputs
        out = xp.zeros(x.shape, dtype=g.dtype)
        out[key_fn(a, x.ndim)] = g
        return out

    register(
        Op(
            name=name,
            compute=compute,
            attrs=attrs,
            infer_shape=infer,
            save_outputs=False,
            gradient=lambda node, g: [getattr(F, backward)(g[0], node.inputs[0], **node.attrs)],
            **kwargs,
        )
    )
    register(
        Op(
            name=backward,
            compute=scatter,
            num_inputs=2,
            input_names=("grad", "data"),
            attrs=attrs,
            infer_shape=_pass_shape(1),
            infer_type=lambda a, d: [d[0]],
            ignore_inputs=(1,),
            hidden=True,
            gradient=lambda node, g: [getattr(F, name)(g[0], **node.attrs), None],
            doc=f"Gradient of ``{name}``: the gradient placed in zeros shaped like the data.",
        )
    )


_slicing_op(
    "slice",
    lambda a, ndim: slice_key(a, ndim),
    _SLICE_ATTRS,
    aliases=("crop", "_npi_slice"),
    doc="``data[begin:end:step]`` per axis (``None`` entries take the default).",
)
def slice_like_key(a, shape, like):
    """``slice_like``'s key: the leading part of each axis in ``axes`` (all when empty) as long as
    that axis of ``like``."""
    axes = a["axes"]
    if not axes:
        if len(shape) != len(like):
            raise MXNetValueError(f"slice_like: with no axes the inputs need the same number of "
                                  f"dims, got {tuple(shape)} and {tuple(like)}")
        axes = range(len(shape))
    key = [slice(None)] * len(shape)
    for axis in axes:
        axis = norm_axis("slice_like", axis, len(shape))
        if axis >= len(like) or like[axis] > shape[axis]:
            raise MXNetValueError(f"slice_like: axis {axis} of {tuple(like)} does not fit the "
                                  f"input of shape {tuple(shape)}")
        key[axis] = slice(0, like[axis])
    return tuple(key)


def _slice_like_backward(xp, inputs, a):
    g, x, like = inputs
    out = xp.zeros(x.shape, dtype=g.dtype)
    out[slice_like_key(a, x.shape, like.shape)] = g
    return out


def _slice_like_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None, None]
    shape, like = tuple(in_shapes[0]), tuple(in_shapes[1])
    return [_key_shape(shape, slice_like_key(a, shape, like))]


register(
    Op(
        name="slice_like",
        compute=lambda xp, inputs, a: inputs[0][
            slice_like_key(a, inputs[0].shape, inputs[1].shape)].copy(),
        num_inputs=2,
        input_names=("data", "shape_like"),
        attrs=(Attr("axes", "shape", ()),),
        infer_shape=_slice_like_infer,
        ignore_inputs=(1,),
        save_outputs=False,
        npx_name="slice_like",
        gradient=lambda node, g: [
            F._backward_slice_like(g[0], node.inputs[0], node.inputs[1], **node.attrs), None],
        doc="Slice ``data`` to the shape of ``shape_like`` along ``axes`` (all when empty).",
    )
)
register(
    Op(
        name="_backward_slice_like",
        compute=_slice_like_backward,
        num_inputs=3,
        input_names=("grad", "data", "shape_like"),
        attrs=(Attr("axes", "shape", ()),),
        infer_shape=_pass_shape(1),
        ignore_inputs=(1, 2),
        hidden=True,
        gradient=lambda node, g: [
            F.slice_like(g[0], node.inputs[0], **node.attrs), None, None],
        doc="Gradient of ``slice_like``: the gradient placed in zeros shaped like the data.",
    )
)

_slicing_op(
    "slice_axis",
    _slice_axis_key,
    (Attr("axis", "int"), Attr("begin", "int"), Attr("end", "int", None, optional=True)),
    doc="``data[begin:end]`` along ``axis``.",
)


def _fit_value(value, target_shape):
    """``value`` shaped to broadcast into ``target_shape`` (leading size-1 dims dropped, as NumPy
    does)."""
    while value.ndim > len(target_shape) and value.shape[0] == 1:
        value = value.reshape(value.shape[1:])
    return value


def _assign_op(name, key_fn, attrs, tensor, **kwargs):
    """Register an op writing ``value`` into ``data[key]`` (output 0 is the updated ``data``)."""

    def write(xp, inputs, a, out):
        if out is not inputs[0]:
            xp.copyto(out, inputs[0])
        key = key_fn(xp, inputs, a)
        region = out[key]
        value = _fit_value(inputs[1], region.shape) if tensor else a["scalar"]
        try:
            out[key] = value
        except ValueError:
            if not getattr(out, "flags", {"WRITEABLE": True})["WRITEABLE"]:
                raise MXNetValueError(f"{name}: the array is read-only (its memory is a "
                                      f"read-only NumPy array's)") from None
            raise MXNetValueError(
                f"{name}: cannot assign a value of shape {numpy.shape(value)} to a region of "
                f"shape {region.shape}"
            ) from None

    def compute(xp, inputs, a):
        out = inputs[0].copy()
        write(xp, inputs, a, out)
        return out

    register(
        Op(
            name=name,
            compute=compute,
            compute_into=lambda xp, inputs, a, outs: write(xp, inputs, a, outs[0]),
            attrs=attrs,
            infer_shape=lambda a, s: [_shape_of(s[0])],
            inplace=((0, 0),),
            save_outputs=False,
            hidden=True,
            **kwargs,
        )
    )


_assign_op(
    "_slice_assign",
    lambda xp, inputs, a: slice_key(a, inputs[0].ndim, "_slice_assign"),
    _SLICE_ATTRS,
    True,
    aliases=("_crop_assign",),
    num_inputs=2,
    input_names=("lhs", "rhs"),
    save_inputs=(1,),
    gradient=lambda node, g: [
        F._slice_assign_scalar(g[0], scalar=0, **node.attrs),
        F._reduce_sum_like(F.slice(g[0], **node.attrs), node.inputs[1]),
    ],
    doc="``lhs[begin:end:step] = rhs`` (``x[key] = array``).",
)
_assign_op(
    "_slice_assign_scalar",
    lambda xp, inputs, a: slice_key(a, inputs[0].ndim, "_slice_assign_scalar"),
    (Attr("scalar", "scalar", 0.0),) + _SLICE_ATTRS,
    False,
    aliases=("_crop_assign_scalar",),
    save_inputs=False,
    gradient=lambda node, g: [
        F._slice_assign_scalar(
            g[0],
            scalar=0,
            begin=node.attrs["begin"],
            end=node.attrs["end"],
            step=node.attrs["step"],
        )
    ],
    doc="``lhs[begin:end:step] = scalar`` (``x[key] = 1.0``).",
)


# -- general keys (advanced indexing): one key spec attribute + index arrays as inputs -------------
KEY_INT, KEY_SLICE, KEY_NONE, KEY_ELLIPSIS, KEY_ARRAY = range(5)


def _build_key(spec, arrays):
    """The Python key from a spec such as ``((1, 0, None, 1), (4, 0))`` and the index arrays it
    refers to."""
    key = []
    for entry in spec:
        kind = entry[0]
        if kind == KEY_INT:
            key.append(entry[1])
        elif kind == KEY_SLICE:
            key.append(slice(entry[1], entry[2], entry[3]))
        elif kind == KEY_NONE:
            key.append(None)
        elif kind == KEY_ELLIPSIS:
            key.append(Ellipsis)
        else:
            arr = arrays[entry[1]]
            key.append(arr if arr.dtype.kind in "bi" else arr.astype(numpy.int64))
    return tuple(key)


_KEY_ATTRS = (
    Attr("key", "any", doc="key spec: (kind, ...) entries, see KEY_* constants"),
    Attr("num_arrays", "int", 0),
)


def _index_get(xp, inputs, a):
    return xp.array(inputs[0][_build_key(a["key"], inputs[1:])])


_VOID = numpy.dtype([])   # NOTE: itemsize 0: an indexing result of any shape takes no memory


def _index_get_shape(a, in_shapes):
    """Shape of ``data[key]``: NumPy indexes a zero-itemsize stand-in with zero-strided integer
    index arrays (a boolean mask's count depends on values; it is read as integers, as the
    kernel would on zeros), so no element is stored whatever the sizes."""
    if any_unknown(in_shapes):
        return [None]
    data = numpy.broadcast_to(numpy.empty((), _VOID), in_shapes[0])
    arrays = [numpy.broadcast_to(numpy.zeros((), numpy.int64), s) for s in in_shapes[1:]]
    return [tuple(data[_build_key(a["key"], arrays)].shape)]


def _index_scatter(xp, inputs, a):
    g, data, arrays = inputs[0], inputs[1], inputs[2:]
    out = xp.zeros(data.shape, dtype=g.dtype)
    key = _build_key(a["key"], arrays)
    if xp is numpy:
        numpy.add.at(out, key, g)
    else:
        import cupyx

        cupyx.scatter_add(out, key, g)
    return out


def _array_names(prefix, a):
    return prefix + tuple(f"index{i}" for i in range(a["num_arrays"]))


register(
    Op(
        name="_index_get",
        compute=_index_get,
        infer_shape=_index_get_shape,
        attrs=_KEY_ATTRS,
        num_inputs=lambda a: 1 + a["num_arrays"],
        input_names=lambda a: _array_names(("data",), a),
        dynamic_shape=True,
        save_outputs=False,
        gradient=lambda node, g: [F._backward_index_get(g[0], *node.inputs, **node.attrs)]
        + [None] * node.attrs["num_arrays"],
        doc="``data[key]`` for any NumPy key (integer arrays, boolean arrays, slices, None, "
        "Ellipsis).",
    )
)
register(
    Op(
        name="_backward_index_get",
        compute=_index_scatter,
        attrs=_KEY_ATTRS,
        hidden=True,
        num_inputs=lambda a: 2 + a["num_arrays"],
        input_names=lambda a: _array_names(("grad", "data"), a),
        infer_shape=_pass_shape(1),
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        gradient=lambda node, g: [F._index_get(g[0], *node.inputs[2:], **node.attrs), None]
        + [None] * node.attrs["num_arrays"],
        doc="Gradient of ``_index_get``: accumulate the gradient into zeros at the key.",
    )
)
_assign_op(
    "_index_set",
    lambda xp, inputs, a: _build_key(a["key"], inputs[2:]),
    _KEY_ATTRS,
    True,
    num_inputs=lambda a: 2 + a["num_arrays"],
    input_names=lambda a: _array_names(("data", "value"), a),
    gradient=lambda node, g: [
        F._index_set(g[0], F.zeros_like(node.inputs[1]), *node.inputs[2:], **node.attrs),
        F._reduce_sum_like(F._index_get(g[0], *node.inputs[2:], **node.attrs), node.inputs[1]),
    ]
    + [None] * node.attrs["num_arrays"],
    doc="``data[key] = value`` for any NumPy key.",
)


def _mask_key(a, data, mask):
    axis = norm_axis("boolean_mask", a["axis"], data.ndim)
    if data.shape[axis : axis + mask.ndim] != mask.shape:
        raise MXNetIndexError(
            f"boolean_mask: mask of shape {mask.shape} does not match data of shape "
            f"{data.shape} at axis {axis}"
        )
    return (slice(None),) * axis + (mask.astype(bool),)


def _mask_scatter(xp, inputs, a):
    g, data, mask = inputs
    out = xp.zeros(data.shape, dtype=g.dtype)
    out[_mask_key(a, data, mask)] = g
    return out


register(
    Op(
        name="_contrib_boolean_mask",
        aliases=("boolean_mask", "_npi_boolean_mask"),
        num_inputs=2,
        input_names=("data", "index"),
        attrs=(Attr("axis", "int", 0),),
        dynamic_shape=True,
        compute=lambda xp, inputs, a: inputs[0][_mask_key(a, inputs[0], inputs[1])],
        infer_shape=lambda a, s: [None],
        save_outputs=False,
        gradient=lambda node, g: [F._backward_boolean_mask(g[0], *node.inputs, **node.attrs), None],
        doc="The entries of ``data`` where ``index`` is true (output length depends on the "
        "values).",
    )
)
register(
    Op(
        name="_backward_boolean_mask",
        compute=_mask_scatter,
        num_inputs=3,
        hidden=True,
        input_names=("grad", "data", "index"),
        attrs=(Attr("axis", "int", 0),),
        infer_shape=_pass_shape(1),
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        gradient=lambda node, g: [
            F._contrib_boolean_mask(g[0], node.inputs[2], **node.attrs),
            None,
            None,
        ],
        doc="Gradient of ``boolean_mask``.",
    )
)


# -- where / clip ----------------------------------------------------------------------------------
def _legacy_cond(cond, shape):
    """MXNet 1.x's ``where``: a condition of the output's shape, or a 1-D one selecting whole
    rows (``(3,)`` with ``(3, 3)`` picks rows, where NumPy's broadcasting would pick columns)."""
    cond = tuple(cond)
    if len(cond) == 1 and len(shape) > 1:
        if cond[0] != shape[0]:
            raise MXNetValueError(f"where: a 1-D condition selects rows: its size {cond[0]} must "
                                  f"be the first dimension of {tuple(shape)}")
        return (cond[0],) + (1,) * (len(shape) - 1)
    if cond != tuple(shape):
        raise MXNetValueError(f"where: condition shape {cond} must equal the shape of x and y "
                              f"{tuple(shape)} (or be 1-D over its rows)")
    return cond


def _where(xp, inputs, a):
    cond, x, y = inputs
    shape = broadcast_shapes("where", x.shape, y.shape)
    return xp.where(cond.reshape(_legacy_cond(cond.shape, shape)).astype(bool), x, y)


def _where_infer(a, in_shapes, out_shapes=None):
    """MXNet 1.x's rule: nothing until the condition is fully known; then x, y and the output
    fill each other's unknown dims."""
    if any_unknown(in_shapes):
        if any_unknown(in_shapes[:1]):
            return [None]
        shape = merge_shapes("where", list(in_shapes[1:]) + [(out_shapes or [None])[0]])
        return [in_shapes[0], shape, shape], [shape]
    shape = broadcast_shapes("where", tuple(in_shapes[1]), tuple(in_shapes[2]))
    _legacy_cond(in_shapes[0], shape)
    return [shape]


def _np_where(xp, inputs, a):
    cond, x, y = inputs
    return xp.where(cond.astype(bool), x, y)


def _np_where_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    return [broadcast_shapes("where", *(tuple(s) for s in in_shapes))]


def _where_grad_rule(where):
    def grad(node, g):
        cond, x, y = node.inputs
        zeros = F.zeros_like(g[0])
        return [None, F._reduce_sum_like(where(cond, g[0], zeros), x),
                F._reduce_sum_like(where(cond, zeros, g[0]), y)]
    return grad


register(
    Op(
        name="_npi_where",
        compute=_np_where,
        num_inputs=3,
        input_names=("condition", "x", "y"),
        infer_shape=_np_where_infer,
        probe_partial=False,
        gradient=_where_grad_rule(lambda *args: F._npi_where(*args)),
        infer_type=lambda a, d: [d[1]],
        save_outputs=False,
        doc="NumPy's ``where``: all three inputs broadcast together.",
    )
)
register(
    Op(
        name="where",
        compute=_where,
        num_inputs=3,
        input_names=("condition", "x", "y"),
        infer_shape=_where_infer,
        probe_partial=False,  # NOTE: MXNet infers nothing until cond is fully known
        gradient=_where_grad_rule(lambda *args: F.where(*args)),
        infer_type=lambda a, d: [d[1]],
        save_outputs=False,
        doc="``x`` where ``condition`` else ``y``.",
    )
)


def _clip(xp, inputs, a):
    return xp.asarray(xp.clip(inputs[0], a["a_min"], a["a_max"]), dtype=inputs[0].dtype)


def _backward_clip(xp, inputs, a):
    g, x = inputs
    keep = xp.ones(x.shape, dtype=bool)
    if a["a_min"] is not None:
        keep &= x >= a["a_min"]
    if a["a_max"] is not None:
        keep &= x <= a["a_max"]
    return xp.where(keep, g, 0).astype(g.dtype)


_CLIP_ATTRS = (
    Attr("a_min", "float", None, optional=True),
    Attr("a_max", "float", None, optional=True),
)
register(
    Op(
        name="clip",
        aliases=("_npi_clip",),
        compute=_clip,
        attrs=_CLIP_ATTRS,
        infer_shape=same_shape,
        np_name="clip",
        elementwise=True,
        save_outputs=False,
        gradient=lambda node, g: [F._backward_clip(g[0], node.inputs[0], **node.attrs)],
        doc="Limit values to ``[a_min, a_max]``.",
    )
)
register(
    Op(
        name="_backward_clip",
        compute=_backward_clip,
        num_inputs=2,
        input_names=("grad", "data"),
        attrs=_CLIP_ATTRS,
        infer_shape=_pass_shape(1),
        hidden=True,
        gradient=lambda node, g: [F._backward_clip(g[0], node.inputs[1], **node.attrs), None],
        doc="Gradient of ``clip``: passes where the input was inside the bounds.",
    )
)
