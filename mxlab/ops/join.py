"""Joining and splitting ops: concat, stack, split (MXNet's ``SliceChannel`` and NumPy's
``split``/``array_split``) and their gradients.

Example
-------
>>> import mxlab as mx
>>> mx.nd.concat(mx.nd.ones((1, 2)), mx.nd.zeros((1, 2)), dim=0).shape
(2, 2)
"""

import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .infer import known
from .registry import F, Op, register
from .shape import any_unknown, norm_axis, size_of

__all__ = []

# -- joining and splitting -------------------------------------------------------------------------
def _num_args(a):
    return a["num_args"]


def _concat_backward(axis, in_shapes, out):
    """Concat's inputs from its known output: every dim but the axis, and the axis of the one
    input whose axis is still unknown (MXNet's backward inference)."""
    if not known(out) or any(s is None or len(s) != len(out) for s in in_shapes):
        return in_shapes
    axis = axis % len(out)
    filled = [tuple(o if i != axis and d is None else d for i, (d, o) in enumerate(zip(s, out)))
              for s in in_shapes]
    unknown = [k for k, s in enumerate(filled) if s[axis] is None]
    if len(unknown) == 1:
        rest = sum(s[axis] for k, s in enumerate(filled) if k != unknown[0])
        k = unknown[0]
        filled[k] = filled[k][:axis] + (out[axis] - rest,) + filled[k][axis + 1:]
    return filled


def _join_infer(op_name, axis_key, stack):
    def infer(attrs, in_shapes, out_shapes=None):
        if stack:
            # NOTE: stacked inputs share one shape; a known one fills the unknown ones (as MXNet).
            shape = next((tuple(s) for s in in_shapes if known(s)), None)
            in_shapes = [shape if not known(s) else tuple(s) for s in in_shapes]
        elif any_unknown(in_shapes) and attrs[axis_key] is not None and out_shapes:
            in_shapes = _concat_backward(attrs[axis_key], in_shapes, out_shapes[0])
        if any_unknown(in_shapes):
            return in_shapes, [None]
        return in_shapes, [_join_shape(op_name, attrs[axis_key], list(in_shapes), stack)]

    return infer


def _join_shape(op_name, axis, shapes, stack):
    first = shapes[0]
    if axis is None:
        return (sum(size_of(s) for s in shapes),)
    axis = norm_axis(op_name, axis, len(first), extra=int(stack))
    for i, s in enumerate(shapes):
        same = (
            s == first
            if stack
            else (
                len(s) == len(first)
                and s[:axis] + s[axis + 1 :] == first[:axis] + first[axis + 1 :]
            )
        )
        if not same:
            raise MXNetValueError(
                f"{op_name}: input {i} has shape {s}, incompatible with input 0 {first} "
                f"along axis {axis}"
            )
    if stack:
        return first[:axis] + (len(shapes),) + first[axis:]
    return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1 :]


def _concat_compute(op_name, axis_key):
    def compute(xp, inputs, a):
        axis = a[axis_key]
        _join_shape(op_name, axis, [x.shape for x in inputs], False)
        if axis is None:
            return xp.concatenate([x.reshape(-1) for x in inputs])
        return xp.concatenate(inputs, axis=axis)

    return compute


def _concat_grad(axis_key):
    def gradient(node, g):
        axis = node.attrs[axis_key]
        pieces = F._split_like(
            g[0],
            *node.inputs,
            axis=0 if axis is None else axis,
            num_args=len(node.inputs),
            flat=axis is None,
        )
        return _as_list(pieces)

    return gradient


def _register_concat(name, axis_key, default, optional, **kwargs):
    register(
        Op(
            name=name,
            num_inputs=_num_args,
            input_names=("data",),
            compute=_concat_compute(name, axis_key),
            attrs=(Attr("num_args", "int", 1), Attr(axis_key, "int", default, optional=optional)),
            infer_shape=_join_infer(name, axis_key, False),
            gradient=_concat_grad(axis_key),
            save_outputs=False,
            doc="Join arrays along an existing axis.",
            **kwargs,
        )
    )


_register_concat("Concat", "dim", 1, False, aliases=("concat",), never_mirror=True)
_register_concat(
    "_npi_concatenate", "axis", 0, True, np_name="concatenate", aliases=("_np_concatenate",)
)


def _split_like_compute(xp, inputs, a):
    g, likes = inputs[0], inputs[1:]
    if a["flat"]:
        g = g.reshape(-1)
    axis = a["axis"] % g.ndim
    bounds = numpy.cumsum([x.size if a["flat"] else x.shape[axis] for x in likes])[:-1]
    parts = xp.split(g, [int(b) for b in bounds], axis=axis)
    return tuple(p.reshape(x.shape).copy() for p, x in zip(parts, likes))


register(
    Op(
        name="_split_like",
        num_inputs=lambda a: a["num_args"] + 1,
        num_outputs=_num_args,
        input_names=lambda a: ("data",) + tuple(f"like{i}" for i in range(a["num_args"])),
        attrs=(Attr("num_args", "int", 1), Attr("axis", "int", 0), Attr("flat", "bool", False)),
        compute=_split_like_compute,
        hidden=True,
        infer_shape=lambda a, s: [
            None if s[i + 1] is None else tuple(s[i + 1]) for i in range(a["num_args"])
        ],
        save_inputs=False,
        gradient=lambda node, g: [
            F._npi_concatenate(
                *_fill_none(node, g),
                axis=None if node.attrs["flat"] else node.attrs["axis"],
                num_args=len(g),
            )
        ]
        + [None] * node.attrs["num_args"],
        doc="Split ``data`` into pieces shaped like the other inputs (the gradient of "
        "concatenation).",
    )
)


def _stack_compute(xp, inputs, a):
    return xp.stack(inputs, axis=a["axis"])


register(
    Op(
        name="stack",
        aliases=("_npi_stack",),
        num_inputs=_num_args,
        compute=_stack_compute,
        attrs=(Attr("axis", "int", 0), Attr("num_args", "int", 1)),
        np_name="stack",
        infer_shape=_join_infer("stack", "axis", True),
        save_inputs=False,
        save_outputs=False,
        gradient=lambda node, g: _as_list(
            F.SliceChannel(
                g[0], num_outputs=node.attrs["num_args"], axis=node.attrs["axis"], squeeze_axis=True
            )
        ),
        doc="Join arrays along a new axis.",
    )
)


def _as_list(x):
    """``F``'s result as a list of outputs. NOTE: by exact type: a single graph entry is itself
    a (named) tuple, and ``list()`` of it would give its fields."""
    return list(x) if type(x) in (list, tuple) else [x]


def _slice_channel_compute(xp, inputs, a):
    x = inputs[0]
    axis = norm_axis("SliceChannel", a["axis"], x.ndim)
    n = a["num_outputs"]
    if x.shape[axis] % n:
        raise MXNetValueError(
            f"SliceChannel: axis {axis} of size {x.shape[axis]} cannot be split evenly into "
            f"num_outputs={n} pieces"
        )
    parts = xp.split(x, n, axis=axis)
    if a["squeeze_axis"]:
        return tuple(xp.squeeze(p, axis=axis).copy() for p in parts)
    return tuple(p.copy() for p in parts)


def _slice_channel_backward(a, in_shape, out_shapes):
    """The input from a known piece (MXNet infers shapes both ways): the pieces' dims, the split
    axis times ``num_outputs``; unknown dims of ``in_shape`` only."""
    piece = next((tuple(o) for o in out_shapes or () if known(o)), None)
    if piece is None or in_shape is None:
        return in_shape
    axis = norm_axis("SliceChannel", a["axis"], len(in_shape))
    n = a["num_outputs"]
    full = (piece[:axis] + (n,) + piece[axis:]) if a["squeeze_axis"] else \
        piece[:axis] + (piece[axis] * n,) + piece[axis + 1:]
    if len(full) != len(in_shape):
        return in_shape
    return tuple(f if d is None else d for d, f in zip(in_shape, full))


def _slice_channel_infer(a, in_shapes, out_shapes=None):
    n = a["num_outputs"]
    if any_unknown(in_shapes):
        filled = _slice_channel_backward(a, in_shapes[0], out_shapes)
        if not known(filled):
            return [filled], [None] * n
        in_shapes = [filled]
    s = tuple(in_shapes[0])
    axis = norm_axis("SliceChannel", a["axis"], len(s))
    if s[axis] % n:
        raise MXNetValueError(
            f"SliceChannel: axis {axis} of size {s[axis]} cannot be split evenly into "
            f"num_outputs={n} pieces"
        )
    piece = s[:axis] + (() if a["squeeze_axis"] else (s[axis] // n,)) + s[axis + 1 :]
    return [s], [piece] * n


def _slice_channel_grad(node, g):
    grads = _fill_none(node, g)
    if node.attrs["squeeze_axis"]:
        return [F.stack(*grads, axis=node.attrs["axis"], num_args=len(grads))]
    return [F.Concat(*grads, dim=node.attrs["axis"], num_args=len(grads))]


def _fill_none(node, g):
    """Output gradients with ``None`` (unused outputs) replaced by zeros."""
    return [F.zeros_like(o) if gi is None else gi for gi, o in zip(g, node.outputs)]


register(
    Op(
        name="SliceChannel",
        aliases=("split",),
        compute=_slice_channel_compute,
        input_names=("data",),   # NOTE: declared: the monitor names it data
        num_outputs=lambda a: a["num_outputs"],
        attrs=(
            Attr("num_outputs", "int", check=(lambda n: n > 0, "must be positive")),
            Attr("axis", "int", 1),
            Attr("squeeze_axis", "bool", False),
        ),
        infer_shape=_slice_channel_infer,
        gradient=_slice_channel_grad,
        save_inputs=False,
        doc="Split into ``num_outputs`` equal pieces along ``axis`` (legacy split).",
    )
)


def _np_split_points(op_name, a, size):
    """Split points along the axis. NOTE: as in MXNet, ``indices`` holds each piece's start, so it
    begins
    with 0 (``np.split(x, (3, 5))`` runs ``_npi_split`` with ``indices=(0, 3, 5)``)."""
    if a["sections"]:
        n = a["sections"]
        if op_name == "_npi_split" and size % n:
            raise MXNetValueError(
                f"{op_name}: array split does not result in an equal division "
                f"({size} into {n} sections)"
            )
        base, extra = divmod(size, n)
        return [int(b) for b in numpy.cumsum([base + 1] * extra + [base] * (n - extra))[:-1]]
    return list(a["indices"][1:])


def _np_split_count(a):
    return a["sections"] or len(a["indices"])


def _register_np_split(name, np_name, squeeze="squeeze"):
    def compute(xp, inputs, a):
        x = inputs[0]
        axis = norm_axis(name, a["axis"], x.ndim)
        parts = xp.split(x, _np_split_points(name, a, x.shape[axis]), axis=axis)
        return tuple((xp.squeeze(p, axis=axis) if a[squeeze] else p).copy() for p in parts)

    def infer(a, in_shapes):
        if any_unknown(in_shapes):
            return [None] * _np_split_count(a)
        s = tuple(in_shapes[0])
        axis = norm_axis(name, a["axis"], len(s))
        points = (
            [0] + [min(max(p, 0), s[axis]) for p in _np_split_points(name, a, s[axis])] + [s[axis]]
        )
        sizes = [max(end - begin, 0) for begin, end in zip(points[:-1], points[1:])]
        return [s[:axis] + (() if a[squeeze] else (n,)) + s[axis + 1 :] for n in sizes]

    def gradient(node, g):
        grads = _fill_none(node, g)
        if node.attrs[squeeze]:
            return [F.stack(*grads, axis=node.attrs["axis"], num_args=len(grads))]
        return [F._npi_concatenate(*grads, axis=node.attrs["axis"], num_args=len(grads))]

    register(
        Op(
            name=name,
            compute=compute,
            num_outputs=_np_split_count,
            infer_shape=infer,
            gradient=gradient,
            attrs=(
                Attr("indices", "shape", ()),
                Attr("axis", "int", 0),
                Attr(squeeze, "bool", False),
                Attr("sections", "int", 0),
            ),
            save_inputs=False,
            doc=f"``np.{np_name}``: split at ``indices`` or into ``sections`` pieces.",
        )
    )


_register_np_split("_npi_split", "split")
_register_np_split("_npi_array_split", "array_split")
_register_np_split("_split_v2", "split_v2", squeeze="squeeze_axis")
