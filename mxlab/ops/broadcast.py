"""Repetition and broadcasting ops (tile, repeat, broadcast_to/like/axis) and flips.

Example
-------
>>> import mxlab as mx
>>> mx.nd.tile(mx.nd.ones((1, 2)), reps=(2, 1)).shape
(2, 2)
"""

from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register
from .shape import norm_axes, norm_axis, shape_op, size_of

__all__ = []

# -- repetition and broadcasting -------------------------------------------------------------------
def _tile_reps(a, ndim):
    reps = tuple(a["reps"])
    n = max(len(reps), ndim)
    return (1,) * (n - len(reps)) + reps, n


def _tile_rule(a, s):
    reps, n = _tile_reps(a, len(s))
    s = (1,) * (n - len(s)) + tuple(s)
    return tuple(d * r for d, r in zip(s, reps))


def _backward_tile(xp, inputs, a):
    g, x = inputs
    reps, n = _tile_reps(a, x.ndim)
    base = (1,) * (n - x.ndim) + x.shape
    split = [v for pair in zip(reps, base) for v in pair]
    return (
        g.reshape(split)
        .sum(axis=tuple(range(0, 2 * n, 2)))
        .reshape(x.shape)
        .astype(g.dtype, copy=False)
    )


shape_op(
    "tile",
    lambda xp, inputs, a: xp.tile(inputs[0], a["reps"]),
    _tile_rule,
    lambda node, g: [F._backward_tile(g[0], node.inputs[0], **node.attrs)],
    attrs=(Attr("reps", "shape"),),
    aliases=("_npi_tile",),
    np_name="tile",
    save_outputs=False,
    doc="Repeat the whole array ``reps`` times per axis.",
)
register(
    Op(
        name="_backward_tile",
        compute=_backward_tile,
        num_inputs=2,
        input_names=("grad", "data"),
        attrs=(Attr("reps", "shape"),),
        infer_shape=lambda a, s: [s[1]],
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        hidden=True,
        gradient=lambda node, g: [F.tile(g[0], **node.attrs), None],
        doc="Sum the tiles of a gradient back to the input shape.",
    )
)


def _repeat_rule(a, s):
    if a["axis"] is None:
        return (size_of(s) * a["repeats"],)
    axis = norm_axis("repeat", a["axis"], len(s))
    return s[:axis] + (s[axis] * a["repeats"],) + s[axis + 1 :]


def _backward_repeat(xp, inputs, a):
    g, x = inputs
    r = a["repeats"]
    if a["axis"] is None:
        return g.reshape(-1, r).sum(axis=1).reshape(x.shape).astype(g.dtype, copy=False)
    axis = a["axis"] % x.ndim
    split = x.shape[:axis] + (x.shape[axis], r) + x.shape[axis + 1 :]
    return g.reshape(split).sum(axis=axis + 1).astype(g.dtype, copy=False)


shape_op(
    "repeat",
    lambda xp, inputs, a: xp.repeat(inputs[0], a["repeats"], axis=a["axis"]),
    _repeat_rule,
    lambda node, g: [F._backward_repeat(g[0], node.inputs[0], **node.attrs)],
    attrs=(
        Attr("repeats", "int", check=(lambda n: n >= 0, "must be non-negative")),
        Attr("axis", "int", None, optional=True),
    ),
    aliases=("_npi_repeat", "_np_repeat"),
    np_name="repeat",
    save_outputs=False,
    doc="Repeat each element ``repeats`` times along ``axis``.",
)
register(
    Op(
        name="_backward_repeat",
        compute=_backward_repeat,
        num_inputs=2,
        input_names=("grad", "data"),
        attrs=(Attr("repeats", "int"), Attr("axis", "int", None, optional=True)),
        infer_shape=lambda a, s: [s[1]],
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        hidden=True,
        gradient=lambda node, g: [F.repeat(g[0], **node.attrs), None],
        doc="Sum the repeats of a gradient back to the input shape.",
    )
)


def _broadcast_to_rule(a, s, keep=(0, -2)):
    target = tuple(a["shape"])
    lead = len(target) - len(s)
    if lead < 0:
        raise MXNetValueError(
            f"broadcast_to: cannot broadcast shape {s} to the shorter shape {target}"
        )
    # NOTE: MXNet's 0 (and mx.np's -2) keeps the input dim; mx.np's 0 is a size (``keep``).
    full = tuple(s[i - lead] if d in keep and i >= lead else d for i, d in enumerate(target))
    for i, d in enumerate(s):
        if d != 1 and d != full[i + lead]:
            raise MXNetValueError(
                f"broadcast_to: operands could not be broadcast together, shape {s} vs "
                f"target {target}"
            )
    return full


def _np_broadcast_to_rule(a, s):
    return _broadcast_to_rule(a, s, keep=(-2,))


def _sum_like_grad(node, g):
    return [F._reduce_sum_like(g[0], node.inputs[0])]


for _name, _rule, _np_name in (("broadcast_to", _broadcast_to_rule, None),
                               ("_npi_broadcast_to", _np_broadcast_to_rule, "broadcast_to")):
    shape_op(
        _name,
        lambda xp, inputs, a, _rule=_rule: xp.broadcast_to(
            inputs[0], _rule(a, inputs[0].shape)).copy(),
        _rule,
        _sum_like_grad,
        attrs=(Attr("shape", "shape"),),
        np_name=_np_name,
        nd_names=None if _np_name is None else (),
        save_outputs=False,
        doc="Broadcast to ``shape`` (MXNet: 0 keeps the input dim)." if _np_name is None else
            "Broadcast to ``shape`` (NumPy's rule; -2 keeps the input dim).",
    )


def _broadcast_axis_rule(a, s):
    axes, sizes = a["axis"], a["size"]
    axes = (axes,) if isinstance(axes, int) else tuple(axes or ())
    if len(axes) != len(sizes):
        raise MXNetValueError(
            f"broadcast_axis: axis {axes} and size {sizes} must have the same length"
        )
    out = list(s)
    for ax, n in zip(axes, sizes):
        ax = norm_axis("broadcast_axis", ax, len(s))
        if s[ax] != 1:
            raise MXNetValueError(
                f"broadcast_axis: axis {ax} has size {s[ax]}, only size-1 axes broadcast"
            )
        out[ax] = n
    return tuple(out)


shape_op(
    "broadcast_axis",
    lambda xp, inputs, a: xp.broadcast_to(
        inputs[0], _broadcast_axis_rule(a, inputs[0].shape)
    ).copy(),
    _broadcast_axis_rule,
    _sum_like_grad,
    attrs=(Attr("axis", "axis", ()), Attr("size", "shape", ())),
    aliases=("broadcast_axes",),
    save_outputs=False,
    doc="Broadcast size-1 axes ``axis`` to sizes ``size``.",
)


# -- flips -----------------------------------------------------------------------------------------
def _flip_compute(op_name):
    def compute(xp, inputs, a):
        x = inputs[0]
        return xp.flip(x, axis=norm_axes(op_name, a["axis"], x.ndim)).copy()

    return compute


def _register_flip(name, axis_attr, **kwargs):
    register(
        Op(
            name=name,
            compute=_flip_compute(name),
            attrs=(axis_attr,),
            infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0])],
            gradient=lambda node, g: [getattr(F, name)(g[0], **node.attrs)],
            save_inputs=False,
            save_outputs=False,
            doc="Reverse the order of elements along ``axis``.",
            **kwargs,
        )
    )


_register_flip("reverse", Attr("axis", "axis"), aliases=("flip",))
_register_flip("_npi_flip", Attr("axis", "axis", None, optional=True), np_name="flip")


def _broadcast_like_shape(attrs, lhs, rhs):
    """``rhs``'s shape, or with ``lhs_axes``/``rhs_axes`` ``lhs``'s with those axes taken from
    ``rhs``."""
    lhs_axes, rhs_axes = attrs["lhs_axes"], attrs["rhs_axes"]
    if lhs_axes is None and rhs_axes is None:
        return tuple(rhs)
    if not lhs_axes or len(lhs_axes) != len(rhs_axes or ()):
        raise MXNetValueError(f"broadcast_like: lhs_axes {lhs_axes} and rhs_axes {rhs_axes} "
                              "must be non-empty and of one length")
    shape = list(lhs)
    for i, j in zip(lhs_axes, rhs_axes):
        shape[i] = rhs[j]
    return tuple(shape)


register(Op(name="broadcast_like", num_inputs=2, input_names=("lhs", "rhs"),
            compute=lambda xp, inputs, attrs: xp.broadcast_to(
                inputs[0], _broadcast_like_shape(attrs, inputs[0].shape, inputs[1].shape)).copy(),
            attrs=(Attr("lhs_axes", "shape", None, optional=True),
                   Attr("rhs_axes", "shape", None, optional=True)),
            infer_shape=lambda attrs, s: [
                s[1] if attrs["lhs_axes"] is None and attrs["rhs_axes"] is None else
                None if s[0] is None or s[1] is None else _broadcast_like_shape(attrs, s[0], s[1])],
            infer_type=lambda attrs, dtypes: [dtypes[0]], ignore_inputs=(1,),
            npx_name="broadcast_like",
            gradient=lambda node, g: [F._reduce_sum_like(g[0], node.inputs[0]), None],
            doc="Broadcast ``lhs`` to the shape of ``rhs``."))
