"""Shape ops: reshape (MXNet codes and NumPy rules), transpose, expand/squeeze, flatten,
concat/stack/split, tile/repeat, broadcasting, flips and axis moves.

Every op has an explicit ``infer_shape`` (cheap: no kernel runs) and a gradient written with ops
from :data:`~mxlab.ops.registry.F`. Outputs are fresh arrays, never views of the input, so a later
in-place write to an output cannot change its input behind the engine's back.

Example
-------
>>> import mxlab as mx
>>> mx.nd.reshape(mx.nd.zeros((2, 3, 4)), shape=(-3, 0)).shape
(6, 4)
"""

import numpy

from ..base import MXNetAxisError, MXNetValueError
from .attrs import Attr
from .infer import known
from .registry import F, Op, register

__all__ = [
    "norm_axis",
    "mx_reshape_shape",
    "npx_reshape_shape",
    "np_reshape_shape",
    "shape_op",
    "any_unknown",
]


# -- shared helpers --------------------------------------------------------------------------------
def norm_axis(op_name, axis, ndim, arg="axis", extra=0):
    """``axis`` made non-negative for an array of ``ndim`` dims (``extra`` allows positions past the
    end)."""
    limit = ndim + extra
    if not -limit <= axis < limit:
        raise MXNetAxisError(
            f"{op_name}: {arg} {axis} is out of bounds for an array of dimension {ndim}"
        )
    return axis % limit if limit else 0


def norm_axes(op_name, axes, ndim, arg="axis"):
    """A tuple of distinct non-negative axes (``None`` means every axis)."""
    if axes is None:
        return tuple(range(ndim))
    axes = (axes,) if isinstance(axes, int) else axes
    result = tuple(norm_axis(op_name, a, ndim, arg) for a in axes)
    if len(set(result)) != len(result):
        raise MXNetValueError(f"{op_name}: repeated axis in {arg}={axes}")
    return result


def any_unknown(in_shapes):
    """True when some input shape is not fully known (rules then return unknown outputs)."""
    return not all(known(s) for s in in_shapes)


def shape_op(name, compute, infer, grad, attrs=(), **kwargs):
    """Register a one-input shape op whose rule ``infer(attrs, shape)`` maps a known input shape to
    the output."""

    def infer_shape(attrs_, in_shapes):
        if any_unknown(in_shapes):
            return [None]
        return [tuple(infer(attrs_, tuple(in_shapes[0])))]

    return register(
        Op(
            name=name,
            compute=compute,
            attrs=tuple(attrs),
            infer_shape=infer_shape,
            gradient=grad,
            **kwargs,
        )
    )


def _size(shape):
    return int(numpy.prod(shape, dtype=numpy.int64))


class ReshapeSizeError(MXNetValueError):
    """A reshape target whose size differs from the input's (``NDArray.reshape`` words it as
    MXNet does while recording or tracing)."""

    def __init__(self, op_name, src, dst):
        super().__init__(
            f"{op_name}: cannot reshape array of shape {tuple(src)} into shape {tuple(dst)}"
        )
        self.op_name, self.src, self.dst = op_name, tuple(src), tuple(dst)


def _check_size(op_name, src, dst):
    if _size(src) != _size(dst):
        raise ReshapeSizeError(op_name, src, dst)
    return tuple(dst)


def _fill_minus_one(op_name, src, out, inferred):
    """Replace the one inferred dim (index ``inferred`` or None) so sizes match."""
    if inferred is not None:
        rest = _size([d for i, d in enumerate(out) if i != inferred])
        if rest == 0 or _size(src) % rest:
            raise MXNetValueError(
                f"{op_name}: cannot infer a dim to reshape {tuple(src)} into {tuple(out)}"
            )
        out[inferred] = _size(src) // rest
    return _check_size(op_name, src, out)


# -- reshape: three rule sets ----------------------------------------------------------------------
def mx_reshape_shape(src, codes, reverse=False, op_name="Reshape"):
    """MXNet's legacy reshape codes: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one
    in two.

    Examples
    --------
    >>> mx_reshape_shape((2, 3, 4), (-4, 1, 2, -2))
    (1, 2, 3, 4)
    """
    src, codes = list(src), list(codes)
    if reverse:
        src, codes = src[::-1], codes[::-1]
    out, i, k, inferred = [], 0, 0, None

    def take():
        nonlocal k
        if k >= len(src):
            raise MXNetValueError(
                f"{op_name}: shape {tuple(codes)} uses more dims than the input {tuple(src)}"
            )
        k += 1
        return src[k - 1]

    while i < len(codes):
        code = codes[i]
        if code == 0:
            out.append(take())
        elif code == -1:
            if inferred is not None:
                raise MXNetValueError(f"{op_name}: only one dim of shape can be -1")
            inferred = len(out)
            out.append(1)
            k += 1
        elif code == -2:
            out.extend(src[k:])
            k = len(src)
        elif code == -3:
            out.append(take() * take())
        elif code == -4:
            if i + 2 >= len(codes):
                raise MXNetValueError(
                    f"{op_name}: -4 must be followed by two dims in shape {tuple(codes)}"
                )
            whole, d1, d2 = take(), codes[i + 1], codes[i + 2]
            d1 = whole // d2 if d1 == -1 else d1
            d2 = whole // d1 if d2 == -1 else d2
            if d1 * d2 != whole:
                raise MXNetValueError(
                    f"{op_name}: split dims {d1}, {d2} do not divide the dim {whole}"
                )
            out.extend([d1, d2])
            i += 2
        elif code > 0:
            out.append(code)
            k += 1
        else:
            raise MXNetValueError(f"{op_name}: invalid shape code {code} in {tuple(codes)}")
        i += 1
    if reverse:
        src, out = src[::-1], out[::-1]
        inferred = None if inferred is None else len(out) - 1 - inferred
    return _fill_minus_one(op_name, src, out, inferred)


def npx_reshape_shape(src, codes, reverse=False, op_name="_npx_reshape"):
    """``npx.reshape`` codes: -1 infer, -2 copy, -3 drop a size-1 dim, -4 copy the rest, -5 merge
    two, -6 split."""
    src, codes = list(src), list(codes)
    if reverse:
        src, codes = src[::-1], codes[::-1]
    out, i, k, inferred = [], 0, 0, None
    while i < len(codes):
        code = codes[i]
        if code == -1:
            if inferred is not None:
                raise MXNetValueError(f"{op_name}: only one dim of newshape can be -1")
            inferred = len(out)
            out.append(1)
            k += 1
        elif code == -2:
            out.append(src[k])
            k += 1
        elif code == -3:
            if src[k] != 1:
                raise MXNetValueError(
                    f"{op_name}: -3 drops a dim of size 1, but the dim is {src[k]}"
                )
            k += 1
        elif code == -4:
            out.extend(src[k:])
            k = len(src)
        elif code == -5:
            out.append(src[k] * src[k + 1])
            k += 2
        elif code == -6:
            whole, d1, d2 = src[k], codes[i + 1], codes[i + 2]
            d1 = whole // d2 if d1 == -1 else d1
            d2 = whole // d1 if d2 == -1 else d2
            out.extend([d1, d2])
            k += 1
            i += 2
        elif code >= 0:
            out.append(code)
            k += 1
        else:
            raise MXNetValueError(f"{op_name}: invalid newshape code {code} in {tuple(codes)}")
        i += 1
    if reverse:
        src, out = src[::-1], out[::-1]
        inferred = None if inferred is None else len(out) - 1 - inferred
    return _fill_minus_one(op_name, src, out, inferred)


def np_reshape_shape(src, newshape, op_name="_np_reshape"):
    """NumPy reshape: one -1 may be inferred; every other dim is literal."""
    out = list(newshape)
    minus = [i for i, d in enumerate(out) if d == -1]
    if len(minus) > 1 or any(d < -1 for d in out):
        raise MXNetValueError(f"{op_name}: invalid newshape {tuple(newshape)}")
    return _fill_minus_one(op_name, src, out, minus[0] if minus else None)


def _reshape_grad(node, g):
    return [F.reshape_like(g[0], node.inputs[0])]


def _reshape_op(name, rule, attrs, **kwargs):
    return shape_op(
        name,
        lambda xp, inputs, a: inputs[0].reshape(rule(a, inputs[0].shape)).copy(),
        rule,
        _reshape_grad,
        attrs=attrs,
        save_outputs=False,
        **kwargs,
    )


def _legacy_rule(attrs, src):
    if attrs["shape"]:
        return mx_reshape_shape(src, attrs["shape"], attrs["reverse"])
    target = attrs["target_shape"]
    if not target:
        raise MXNetValueError("Reshape: attribute 'shape' is required")
    target = list(target)
    if attrs["keep_highest"]:
        target[0] = src[0]
    zeros = [i for i, d in enumerate(target) if d == 0]
    return _fill_minus_one("Reshape", src, target, zeros[0] if zeros else None)


_reshape_op(
    "Reshape",
    _legacy_rule,
    aliases=("reshape",),
    attrs=(
        Attr("shape", "shape", (), doc="target shape with MXNet's codes 0, -1, -2, -3, -4"),
        Attr("reverse", "bool", False, doc="apply the codes right to left"),
        Attr("target_shape", "shape", (), doc="deprecated: use shape"),
        Attr("keep_highest", "bool", False, doc="deprecated: keep the first dim with target_shape"),
    ),
    doc="Reshape with MXNet's special codes (``mx.nd.reshape``).",
)
_reshape_op(
    "_np_reshape",
    lambda a, s: np_reshape_shape(s, a["newshape"]),
    np_name="reshape",
    aliases=("_npi_reshape",),
    attrs=(Attr("newshape", "shape"), Attr("order", "str", "C", choices=("C",))),
    doc="NumPy reshape (one -1 may be inferred).",
)
_reshape_op(
    "_npx_reshape",
    lambda a, s: npx_reshape_shape(s, a["newshape"], a["reverse"]),
    npx_name="reshape",
    attrs=(
        Attr("newshape", "shape"),
        Attr("reverse", "bool", False),
        Attr("order", "str", "C", choices=("C",)),
    ),
    doc="``npx.reshape`` with codes -1 (infer) -2 (copy) -3 (drop 1) -4 (rest) -5 (merge) -6 "
    "(split).",
)


def _reshape_like_shape(attrs, lhs, rhs):
    lb, le = _range_of(attrs["lhs_begin"], attrs["lhs_end"], len(lhs))
    rb, re = _range_of(attrs["rhs_begin"], attrs["rhs_end"], len(rhs))
    return _check_size("reshape_like", lhs, tuple(lhs[:lb]) + tuple(rhs[rb:re]) + tuple(lhs[le:]))


def _range_of(begin, end, ndim):
    begin = 0 if begin is None else begin % (ndim + 1) if begin < 0 else begin
    end = ndim if end is None else end % (ndim + 1) if end < 0 else end
    return begin, end


def _reshape_like_infer(attrs, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    return [_reshape_like_shape(attrs, tuple(in_shapes[0]), tuple(in_shapes[1]))]


register(
    Op(
        name="reshape_like",
        aliases=("_npx_reshape_like",),
        num_inputs=2,
        input_names=("lhs", "rhs"),
        attrs=tuple(
            Attr(n, "int", None, optional=True)
            for n in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")
        ),
        compute=lambda xp, inputs, a: inputs[0]
        .reshape(_reshape_like_shape(a, inputs[0].shape, inputs[1].shape))
        .copy(),
        infer_shape=_reshape_like_infer,
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        gradient=lambda node, g: [F.reshape_like(g[0], node.inputs[0]), None],
        save_inputs=(0,),
        npx_name="reshape_like",
        doc="Reshape ``lhs`` to the shape of ``rhs`` (or a range of its dims).",
    )
)


# -- transpose family ------------------------------------------------------------------------------
def _perm(op_name, axes, ndim):
    if not axes:
        return tuple(range(ndim))[::-1]
    if len(axes) != ndim:
        raise MXNetValueError(
            f"{op_name}: axes {tuple(axes)} do not match an array of dimension {ndim}"
        )
    return norm_axes(op_name, axes, ndim, "axes")


def _transpose_grad(node, g):
    axes = node.attrs["axes"]
    inverse = tuple(int(i) for i in numpy.argsort(axes)) if axes else None
    return [F.transpose(g[0], axes=inverse)]


shape_op(
    "transpose",
    lambda xp, inputs, a: xp.ascontiguousarray(
        xp.transpose(inputs[0], _perm("transpose", a["axes"], inputs[0].ndim))
    ),
    lambda a, s: tuple(s[i] for i in _perm("transpose", a["axes"], len(s))),
    _transpose_grad,
    attrs=(Attr("axes", "shape", None, optional=True),),
    aliases=("_npi_transpose",),
    np_name="transpose",
    save_inputs=False,
    save_outputs=False,
    doc="Permute the axes (reverse them by default).",
)


def _swap_rule(names):
    first, second = names

    def rule(a, s):
        perm = list(range(len(s)))
        i, j = norm_axis("swapaxes", a[first], len(s), first), norm_axis(
            "swapaxes", a[second], len(s), second
        )
        perm[i], perm[j] = perm[j], perm[i]
        return perm

    return rule


def _register_swap(name, names, np_name=None, aliases=()):
    rule = _swap_rule(names)
    shape_op(
        name,
        lambda xp, inputs, a: xp.ascontiguousarray(
            xp.transpose(inputs[0], rule(a, inputs[0].shape))
        ),
        lambda a, s: tuple(s[i] for i in rule(a, s)),
        lambda node, g: [getattr(F, name)(g[0], **node.attrs)],
        attrs=(Attr(names[0], "int", 0), Attr(names[1], "int", 0)),
        np_name=np_name,
        aliases=aliases,
        save_inputs=False,
        save_outputs=False,
        doc="Swap two axes.",
    )


_register_swap("SwapAxis", ("dim1", "dim2"), aliases=("swapaxes",))
_register_swap("_npi_swapaxes", ("axis1", "axis2"), np_name="swapaxes")


def _moveaxis_perm(a, ndim):
    src = norm_axes("moveaxis", a["source"], ndim, "source")
    dst = norm_axes("moveaxis", a["destination"], ndim, "destination")
    if len(src) != len(dst):
        raise MXNetValueError("moveaxis: source and destination must have the same number of axes")
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return order


shape_op(
    "_np_moveaxis",
    lambda xp, inputs, a: xp.ascontiguousarray(
        xp.transpose(inputs[0], _moveaxis_perm(a, inputs[0].ndim))
    ),
    lambda a, s: tuple(s[i] for i in _moveaxis_perm(a, len(s))),
    lambda node, g: [
        F._np_moveaxis(g[0], source=node.attrs["destination"], destination=node.attrs["source"])
    ],
    attrs=(Attr("source", "axis"), Attr("destination", "axis")),
    np_name="moveaxis",
    aliases=("_npi_moveaxis",),
    save_inputs=False,
    save_outputs=False,
    doc="Move axes to new positions.",
)


# -- adding and removing axes ----------------------------------------------------------------------
def _expand_rule(a, s):
    axis = norm_axis("expand_dims", a["axis"], len(s), extra=1)
    return s[:axis] + (1,) + s[axis:]


shape_op(
    "expand_dims",
    lambda xp, inputs, a: inputs[0].reshape(_expand_rule(a, inputs[0].shape)).copy(),
    _expand_rule,
    _reshape_grad,
    attrs=(Attr("axis", "int"),),
    aliases=("_npi_expand_dims",),
    np_name="expand_dims",
    save_outputs=False,
    doc="Insert a size-1 axis at ``axis``.",
)


def _squeeze_rule(a, s):
    axes = a["axis"]
    if axes is None:
        return tuple(d for d in s if d != 1)
    axes = norm_axes("squeeze", axes, len(s))
    for i in axes:
        if s[i] != 1:
            raise MXNetValueError(
                f"squeeze: cannot select an axis to squeeze out which has size not equal to "
                f"one (axis {i} of shape {s})"
            )
    return tuple(d for i, d in enumerate(s) if i not in axes)


shape_op(
    "squeeze",
    lambda xp, inputs, a: inputs[0].reshape(_squeeze_rule(a, inputs[0].shape)).copy(),
    _squeeze_rule,
    _reshape_grad,
    attrs=(Attr("axis", "axis", None, optional=True),),
    aliases=("_npi_squeeze", "_np_squeeze"),
    np_name="squeeze",
    save_outputs=False,
    doc="Remove size-1 axes (all, or those in ``axis``).",
)


def _flatten_rule(a, s):
    return (s[0], _size(s[1:])) if s else (1, 1)


shape_op(
    "Flatten",
    lambda xp, inputs, a: inputs[0].reshape(_flatten_rule(a, inputs[0].shape)).copy(),
    _flatten_rule,
    _reshape_grad,
    aliases=("flatten",),
    npx_name="batch_flatten",
    save_outputs=False,
    doc="Collapse every axis but the first: ``(N, d1, d2, ...) -> (N, d1*d2*...)``.",
)


# -- joining and splitting -------------------------------------------------------------------------
def _num_args(a):
    return a["num_args"]


def _join_infer(op_name, axis_key, stack):
    def infer(attrs, in_shapes):
        if stack:
            # NOTE: stacked inputs share one shape; a known one fills the unknown ones (as MXNet).
            shape = next((tuple(s) for s in in_shapes if known(s)), None)
            in_shapes = [shape if not known(s) else tuple(s) for s in in_shapes]
        if any_unknown(in_shapes):
            return in_shapes, [None]
        return in_shapes, [_join_shape(op_name, attrs[axis_key], list(in_shapes), stack)]

    return infer


def _join_shape(op_name, axis, shapes, stack):
    first = shapes[0]
    if axis is None:
        return (sum(_size(s) for s in shapes),)
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
        return list(pieces) if isinstance(pieces, (list, tuple)) else [pieces]

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


_register_concat("Concat", "dim", 1, False, aliases=("concat",))
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
    return list(x) if isinstance(x, (list, tuple)) else [x]


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


def _slice_channel_infer(a, in_shapes):
    n = a["num_outputs"]
    if any_unknown(in_shapes):
        return [None] * n
    s = tuple(in_shapes[0])
    axis = norm_axis("SliceChannel", a["axis"], len(s))
    if s[axis] % n:
        raise MXNetValueError(
            f"SliceChannel: axis {axis} of size {s[axis]} cannot be split evenly into "
            f"num_outputs={n} pieces"
        )
    piece = s[:axis] + (() if a["squeeze_axis"] else (s[axis] // n,)) + s[axis + 1 :]
    return [piece] * n


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


def _register_np_split(name, np_name):
    def compute(xp, inputs, a):
        x = inputs[0]
        axis = norm_axis(name, a["axis"], x.ndim)
        parts = xp.split(x, _np_split_points(name, a, x.shape[axis]), axis=axis)
        return tuple((xp.squeeze(p, axis=axis) if a["squeeze"] else p).copy() for p in parts)

    def infer(a, in_shapes):
        if any_unknown(in_shapes):
            return [None] * _np_split_count(a)
        s = tuple(in_shapes[0])
        axis = norm_axis(name, a["axis"], len(s))
        points = (
            [0] + [min(max(p, 0), s[axis]) for p in _np_split_points(name, a, s[axis])] + [s[axis]]
        )
        sizes = [max(end - begin, 0) for begin, end in zip(points[:-1], points[1:])]
        return [s[:axis] + (() if a["squeeze"] else (n,)) + s[axis + 1 :] for n in sizes]

    def gradient(node, g):
        grads = _fill_none(node, g)
        if node.attrs["squeeze"]:
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
                Attr("squeeze", "bool", False),
                Attr("sections", "int", 0),
            ),
            save_inputs=False,
            doc=f"``np.{np_name}``: split at ``indices`` or into ``sections`` pieces.",
        )
    )


_register_np_split("_npi_split", "split")
_register_np_split("_npi_array_split", "array_split")


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
        return (_size(s) * a["repeats"],)
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


def _broadcast_to_rule(a, s):
    target = tuple(a["shape"])
    lead = len(target) - len(s)
    if lead < 0:
        raise MXNetValueError(
            f"broadcast_to: cannot broadcast shape {s} to the shorter shape {target}"
        )
    # NOTE: MXNet's 0 keeps the input dim; NumPy has no 0 code here but 0 with a size-0 input is the
    # same.
    full = tuple(s[i - lead] if d == 0 and i >= lead else d for i, d in enumerate(target))
    for i, d in enumerate(s):
        if d != 1 and d != full[i + lead]:
            raise MXNetValueError(
                f"broadcast_to: operands could not be broadcast together, shape {s} vs "
                f"target {target}"
            )
    return full


def _sum_like_grad(node, g):
    return [F._reduce_sum_like(g[0], node.inputs[0])]


shape_op(
    "broadcast_to",
    lambda xp, inputs, a: xp.broadcast_to(inputs[0], _broadcast_to_rule(a, inputs[0].shape)).copy(),
    _broadcast_to_rule,
    _sum_like_grad,
    attrs=(Attr("shape", "shape"),),
    aliases=("_npi_broadcast_to",),
    np_name="broadcast_to",
    save_outputs=False,
    doc="Broadcast to ``shape`` (MXNet: 0 keeps the input dim).",
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
