"""Shape ops: reshape (MXNet codes and NumPy rules), transpose, expand/squeeze, flatten and
axis moves, and the helpers the other shape families share (:mod:`.join`: concat/stack/split;
:mod:`.broadcast`: tile/repeat, broadcasting, flips).

Every op has an explicit ``infer_shape`` (cheap: no kernel runs) and a gradient written with ops
from :data:`~mxlab.ops.registry.F`. Outputs are fresh arrays, never views of the input, so a later
in-place write to an output cannot change its input behind the engine's back.

Example
-------
>>> import mxlab as mx
>>> mx.nd.reshape(mx.nd.zeros((2, 3, 4)), shape=(-3, 0)).shape
(6, 4)
"""

import math
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
    "norm_axes",
    "size_of",
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
    # NOTE: a list, not a generator: an error raised through a generator expression leaves a
    # frame/generator cycle holding every caller's arrays (MXNet's tests count them as leaks).
    result = tuple([norm_axis(op_name, a, ndim, arg) for a in axes])
    if len(set(result)) != len(result):
        raise MXNetValueError(f"{op_name}: repeated axis in {arg}={axes}")
    return result


def any_unknown(in_shapes):
    """True when some input shape is not fully known (rules then return unknown outputs)."""
    return not all(known(s) for s in in_shapes)


def shape_op(name, compute, infer, grad, attrs=(), keeps_size=False, invert=None, **kwargs):
    """Register a one-input shape op whose rule ``infer(attrs, shape)`` maps a known input shape to
    the output. ``keeps_size`` (reshapes): an input with one unknown dim and a known output get
    that dim from the output's size, as MXNet's backward shape inference does; ``invert(attrs,
    out_shape)`` (permutations) gives the input shape of a known output."""

    def infer_shape(attrs_, in_shapes, out_shapes=None):
        if any_unknown(in_shapes) and invert is not None and out_shapes and known(out_shapes[0]):
            return [tuple(invert(attrs_, tuple(out_shapes[0])))], [tuple(out_shapes[0])]
        if any_unknown(in_shapes):
            filled = _fill_from_size(in_shapes[0], out_shapes) if keeps_size else None
            if filled is None or tuple(infer(attrs_, filled)) != tuple(out_shapes[0]):
                return [None]
            return [filled], [tuple(out_shapes[0])]
        return [tuple(infer(attrs_, tuple(in_shapes[0])))]

    return register(Op(name=name, compute=compute, attrs=tuple(attrs), infer_shape=infer_shape,
                       gradient=grad, **kwargs))


def _fill_from_size(shape, out_shapes):
    """``shape`` with its one unknown (None) dim set so that it holds as many elements as the
    known output; None when that cannot be told."""
    out = out_shapes[0] if out_shapes else None
    if shape is None or out is None or any_unknown([out]):
        return None
    unknown = [i for i, d in enumerate(shape) if d is None]
    rest = size_of([d for d in shape if d is not None])
    if len(unknown) != 1 or rest == 0 or size_of(out) % rest:
        return None
    filled = list(shape)
    filled[unknown[0]] = size_of(out) // rest
    return tuple(filled)


def size_of(shape):
    """The number of elements of a known shape."""
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
    if size_of(src) != size_of(dst):
        raise ReshapeSizeError(op_name, src, dst)
    return tuple(dst)


def _fill_minus_one(op_name, src, out, inferred):
    """Replace the one inferred dim (index ``inferred`` or None) so sizes match."""
    if inferred is not None:
        rest = size_of([d for i, d in enumerate(out) if i != inferred])
        if rest == 0 or size_of(src) % rest:
            raise MXNetValueError(
                f"{op_name}: cannot infer a dim to reshape {tuple(src)} into {tuple(out)}"
            )
        out[inferred] = size_of(src) // rest
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
        keeps_size=True,
        save_outputs=False,
        **kwargs,
    )


def _legacy_rule(attrs, src):
    if attrs["shape"]:
        return mx_reshape_shape(src, attrs["shape"], attrs["reverse"])
    target = attrs["target_shape"]
    if not target:
        if None not in src and math.prod(src) == 1:
            return ()   # NOTE: MXNet 1.9 reshapes a one-element array to () for shape=()
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
    """MXNet's axis range: negative indices count from the end (``-1`` is the last axis)."""
    begin = 0 if begin is None else begin + ndim if begin < 0 else begin
    end = ndim if end is None else end + ndim if end < 0 else end
    if not 0 <= begin <= end <= ndim:
        raise MXNetValueError(f"reshape_like: axis range [{begin}, {end}) is outside the "
                              f"{ndim} axes of the input")
    return begin, end


def _reshape_like_infer(attrs, in_shapes):
    lhs, rhs = in_shapes
    if not any_unknown(in_shapes):
        return [_reshape_like_shape(attrs, tuple(lhs), tuple(rhs))]
    # NOTE: rhs's dims are known even when lhs's are not, as in MXNet (GluonNLP: np.unique's).
    if any_unknown([rhs]) or lhs is None and {attrs["lhs_begin"], attrs["lhs_end"]} != {None}:
        return [None]
    lb, le = _range_of(attrs["lhs_begin"], attrs["lhs_end"], 1 if lhs is None else len(lhs))
    rb, re = _range_of(attrs["rhs_begin"], attrs["rhs_end"], len(rhs))
    return [tuple(lhs or ())[:lb] + tuple(rhs[rb:re]) + tuple(lhs or ())[le:]]


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
# NOTE: asarray(order="C"), not ascontiguousarray, which turns a 0-d result into shape (1,).
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
    # NOTE: negative axes count from the end: argsort of (-1, 1, 0) is not the inverse permutation
    inverse = tuple(int(i) for i in numpy.argsort([a % len(axes) for a in axes])) if axes \
        else None
    return [F.transpose(g[0], axes=inverse)]


shape_op(
    "transpose",
    lambda xp, inputs, a: xp.asarray(
        xp.transpose(inputs[0], _perm("transpose", a["axes"], inputs[0].ndim)), order="C"
    ),
    lambda a, s: tuple(s[i] for i in _perm("transpose", a["axes"], len(s))),
    _transpose_grad,
    invert=lambda a, out: tuple(out[i] for i in numpy.argsort(
        _perm("transpose", a["axes"], len(out)))),
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
        lambda xp, inputs, a: xp.asarray(
            xp.transpose(inputs[0], rule(a, inputs[0].shape)), order="C"
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
    lambda xp, inputs, a: xp.asarray(
        xp.transpose(inputs[0], _moveaxis_perm(a, inputs[0].ndim)), order="C"
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
    if axes is None or (not s and axes in (0, -1, (0,), (-1,))):   # NumPy: a scalar's axis 0
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
    return (s[0], size_of(s[1:])) if s else (1, 1)


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


def _no_gradient(node, g):
    return [None]


for _name, _fn, _rule, _more in (
        ("shape_array", lambda x: x.shape, lambda a, s: (len(s),),
         {"aliases": ("_npx_shape_array",), "npx_name": "shape_array"}),
        ("size_array", lambda x: (x.size,), lambda a, s: (1,), {})):
    shape_op(_name, lambda xp, inputs, a, fn=_fn: xp.asarray(fn(inputs[0]), dtype=numpy.int64),
             _rule, _no_gradient, infer_type=lambda a, d: ["int64"], ignore_inputs=(0,),
             save_inputs=False, save_outputs=False, **_more,
             doc=f"``{_name}(x)``: the input's {_name.split('_')[0]} as a 1-D int64 array.")


def _block_rule(name, to_depth):
    """The output shape of ``depth_to_space`` / ``space_to_depth`` on NCHW input."""
    def rule(a, s):
        block = a["block_size"]
        if len(s) != 4:
            raise MXNetValueError(f"{name}: the input must be 4-D (NCHW), got {tuple(s)}")
        n, c, h, w = s
        if to_depth:
            if h % block or w % block:
                raise MXNetValueError(f"{name}: height {h} and width {w} must be multiples of "
                                      f"block_size {block}")
            return (n, c * block * block, h // block, w // block)
        if c % (block * block):
            raise MXNetValueError(f"{name}: channels {c} must be a multiple of block_size^2 "
                                  f"({block * block})")
        return (n, c // (block * block), h * block, w * block)
    return rule


def _depth_to_space(xp, inputs, a):
    """MXNet's DCR order: ``(N, b, b, C/b^2, H, W) -> (N, C/b^2, H, b, W, b)``."""
    x, b = inputs[0], a["block_size"]
    shape = _block_rule("depth_to_space", False)(a, x.shape)
    n, c, h, w = x.shape
    out = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return xp.ascontiguousarray(out).reshape(shape)


def _space_to_depth(xp, inputs, a):
    x, b = inputs[0], a["block_size"]
    shape = _block_rule("space_to_depth", True)(a, x.shape)
    n, c, h, w = x.shape
    out = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return xp.ascontiguousarray(out).reshape(shape)


_BLOCK_ATTRS = (Attr("block_size", "int", check=(lambda b: b > 0, "must be positive")),)
shape_op("depth_to_space", _depth_to_space, _block_rule("depth_to_space", False),
         lambda node, g: [F.space_to_depth(g[0], **node.attrs)], attrs=_BLOCK_ATTRS,
         save_inputs=False, save_outputs=False,
         doc="Move depth blocks into spatial blocks (NCHW, DCR order).")
shape_op("space_to_depth", _space_to_depth, _block_rule("space_to_depth", True),
         lambda node, g: [F.depth_to_space(g[0], **node.attrs)], attrs=_BLOCK_ATTRS,
         save_inputs=False, save_outputs=False,
         doc="Move spatial blocks into depth (the inverse of ``depth_to_space``).")
