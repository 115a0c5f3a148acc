"""NumPy ops ``mx.np`` users reach for that need kernels of their own: ``tril``/``triu``,
``einsum`` (with ``...``), ``pad``, the integer ops (``bitwise_and/or/xor``, shifts, ``gcd``,
``lcm``) and ``npx.constraint_check``.

The rest of ``mx.np``'s extras are compositions of existing ops (``mxlab.numpy.extras``) or
NumPy fallbacks (``mxlab.numpy.fallback``).

Example
-------
>>> import mxlab as mx
>>> mx.np.einsum("ij,jk->ik", mx.np.ones((2, 3)), mx.np.ones((3, 2))).asnumpy()
array([[3., 3.],
       [3., 3.]], dtype=float32)
"""
import string

import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .elemwise import binary
from .registry import F, Op, register

__all__ = []


# -- tril / triu: masks are their own adjoints -----------------------------------------------------
def _triangle(xp, x, k, lower):
    """NumPy's tril/triu: a vector ``x`` is the ``(n, n)`` matrix with ``x`` in every row."""
    if x.ndim == 0:
        raise MXNetValueError(f"{'tril' if lower else 'triu'}: needs at least 1 axis, got a "
                              f"0-d array")
    return xp.tril(x, k) if lower else xp.triu(x, k)


def _triangle_shape(attrs, shapes):
    s = shapes[0]
    return [s + s if s is not None and len(s) == 1 else s]


def _triangle_grad(node, g):
    """The mask again, summed over the rows a vector input was repeated into."""
    return [F._reduce_sum_like(F._npi_tril(g[0], **node.attrs), node.inputs[0])]


register(Op(name="_npi_tril", np_name="tril", nd_names=(),
            compute=lambda xp, i, a: _triangle(xp, i[0], a["k"], a["lower"]),
            attrs=(Attr("k", "int", 0, doc="diagonal offset"),
                   Attr("lower", "bool", True, doc="keep the lower (else upper) triangle")),
            infer_shape=_triangle_shape, save_outputs=False,
            gradient=_triangle_grad,
            doc="Lower (``lower=True``) or upper triangle of the last two axes (of the "
                "``(n, n)`` matrix whose rows are a vector input)."))


# -- einsum ----------------------------------------------------------------------------------------
def _parse_subscripts(subscripts, shapes):
    """``(input terms, output term)`` of an explicit or implicit subscript string; an ellipsis
    becomes letters the string does not use, one per broadcast dim (right-aligned)."""
    subscripts = subscripts.replace(" ", "")
    lhs, _, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise MXNetValueError(f"einsum: {len(terms)} operand terms in {subscripts!r}, "
                              f"{len(shapes)} operands given")
    spare = ""
    if "..." in subscripts:
        counts = [len(shape) - (len(t) - 3) if "..." in t else 0 for t, shape in zip(terms, shapes)]
        if min(counts) < 0:
            raise MXNetValueError(f"einsum: operand shapes {list(shapes)} have fewer axes than "
                                  f"the subscripts {subscripts!r} name")
        spare = "".join(c for c in string.ascii_letters if c not in subscripts)[:max(counts)]
        terms = [t.replace("...", spare[len(spare) - k:]) for t, k in zip(terms, counts)]
        rhs = rhs.replace("...", spare)
    if "->" not in subscripts:
        letters = "".join(terms)
        rhs = spare + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                     and c not in spare))
    return terms, rhs


def _letter_sizes(terms, shapes):
    """Each letter's size; a size-1 dim broadcasts against the others (ellipsis dims)."""
    sizes = {}
    for term, shape in zip(terms, shapes):
        for c, d in zip(term, shape):
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]
    return sizes


def _einsum(xp, inputs, attrs):
    return xp.einsum(attrs["subscripts"], *inputs, optimize=attrs["optimize"])


def _einsum_backward(xp, inputs, attrs):
    """Gradient of operand ``i``: einsum of the head gradient with the other operands, summed
    over letters only ``i`` has (then broadcast back where ``i`` repeats a letter: diagonals).
    Operands are first broadcast on their ellipsis dims; their gradients summed back."""
    g, originals = inputs[0], inputs[1:]
    terms, out = _parse_subscripts(attrs["subscripts"], [o.shape for o in originals])
    sizes = _letter_sizes(terms, [o.shape for o in originals])
    operands = [xp.broadcast_to(o, tuple(sizes[c] for c in t)) for o, t in zip(originals, terms)]
    grads = []
    for i, term in enumerate(terms):
        others = [t for j, t in enumerate(terms) if j != i]
        unique = "".join(dict.fromkeys(term))
        present = set(out + "".join(others))
        kept = "".join(c for c in unique if c in present)
        spec = ",".join([out] + others) + "->" + kept
        partial = xp.einsum(spec, g, *[o for j, o in enumerate(operands) if j != i])
        if kept != unique:      # letters only this operand has (a trace): constant along them
            partial = xp.broadcast_to(
                partial.reshape([sizes[c] if c in kept else 1 for c in unique]),
                tuple(sizes[c] for c in unique))
        if unique != term:       # repeated letters (a diagonal): place values on it
            eye = {c: xp.arange(operands[i].shape[term.index(c)]) for c in unique}
            grad = xp.zeros(operands[i].shape, dtype=g.dtype)
            index = tuple(eye[c].reshape([-1 if d == c else 1 for d in unique]) for c in term)
            grad[index] = partial
            partial = grad
        shape = originals[i].shape
        axes = tuple(k for k, d in enumerate(shape) if d == 1 and partial.shape[k] != 1)
        if axes:
            partial = partial.sum(axis=axes, keepdims=True)
        grads.append(partial.astype(originals[i].dtype))
    return tuple(grads)


def _einsum_shape(attrs, shapes):
    if any(s is None for s in shapes):
        return [None]
    terms, out = _parse_subscripts(attrs["subscripts"], shapes)
    sizes = _letter_sizes(terms, shapes)
    return [tuple(sizes[c] for c in out)]


_EINSUM_ATTRS = (Attr("subscripts", "str", doc="NumPy subscripts, e.g. 'ij,jk->ik'"),
                 Attr("optimize", "any", False, doc="NumPy's contraction-order optimisation"),
                 Attr("num_args", "int", 1, doc="number of operands"))


def _einsum_grad(node, g):
    grads = F._backward_npi_einsum(g[0], *node.inputs, **node.attrs)
    return grads if isinstance(grads, list) else [grads]


register(Op(name="_npi_einsum", compute=_einsum, attrs=_EINSUM_ATTRS, nd_names=(),
            num_inputs=lambda a: a["num_args"], input_names=("data",),
            infer_shape=_einsum_shape, gradient=_einsum_grad, save_outputs=False,
            doc="Einstein summation over the operands (an ellipsis broadcasts)."))
register(Op(name="_backward_npi_einsum", compute=_einsum_backward, attrs=_EINSUM_ATTRS,
            nd_names=(), hidden=True, num_inputs=lambda a: a["num_args"] + 1,
            num_outputs=lambda a: a["num_args"], input_names=("data",),
            infer_shape=lambda a, s: s[1:], doc="Gradients of ``einsum`` w.r.t. each operand."))


# -- pad -------------------------------------------------------------------------------------------
def _pad(xp, inputs, attrs):
    kwargs = {"constant_values": attrs["constant_value"]} if attrs["mode"] == "constant" else {}
    return xp.pad(inputs[0], attrs["pad_width"], mode=attrs["mode"], **kwargs)


def _pad_shape(attrs, shapes):
    shape = shapes[0]
    if shape is None:
        return [None]
    widths = _pad_widths(attrs["pad_width"], len(shape))
    return [tuple(None if d is None else d + lo + hi for d, (lo, hi) in zip(shape, widths))]


def _pad_widths(pad_width, ndim):
    """``(before, after)`` per axis, broadcast as NumPy's ``pad`` does (``1``, ``(1, 2)``,
    ``((1, 2),)`` apply to every axis)."""
    try:
        return numpy.broadcast_to(numpy.asarray(pad_width, dtype=numpy.int64), (ndim, 2)).tolist()
    except (TypeError, ValueError):
        raise MXNetValueError(f"pad: pad_width {pad_width} does not fit an array of dimension "
                              f"{ndim}") from None


def _pad_backward(xp, inputs, attrs):
    g = inputs[0]
    widths = _pad_widths(attrs["pad_width"], g.ndim)
    index = tuple(slice(lo, n - hi) for n, (lo, hi) in zip(g.shape, widths))
    return g[index].copy()


def _pad_grad(node, g):
    if node.attrs["mode"] != "constant":
        raise NotImplementedError(f"pad: the gradient of mode={node.attrs['mode']!r} is not "
                                  "built (MXNet differentiates 'constant' only)")
    return [F._backward_npi_pad(g[0], **node.attrs)]


_PAD_ATTRS = (Attr("pad_width", "any", doc="((before, after), ...) per axis"),
              Attr("mode", "str", "constant", choices=("constant", "edge", "reflect",
                                                       "symmetric", "maximum", "minimum")),
              Attr("constant_value", "float", 0.0))
register(Op(name="_npi_pad", compute=_pad, attrs=_PAD_ATTRS, infer_shape=_pad_shape,
            gradient=_pad_grad, save_inputs=False, save_outputs=False, nd_names=(),
            doc="NumPy's ``pad`` (gradient for mode='constant')."))
def _pad_backward_shape(attrs, shapes):
    """The head gradient's shape less the padding."""
    shape = shapes[0]
    if shape is None:
        return [None]
    widths = _pad_widths(attrs["pad_width"], len(shape))
    return [tuple(None if d is None else d - lo - hi for d, (lo, hi) in zip(shape, widths))]


register(Op(name="_backward_npi_pad", compute=_pad_backward, attrs=_PAD_ATTRS, hidden=True,
            infer_shape=_pad_backward_shape,
            nd_names=(), doc="The unpadded part of the head gradient."))


# -- integer ops (no gradient) ---------------------------------------------------------------------
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd",
              "lcm"):
    binary(f"_npi_{_name}", _name, grad=lambda node, g: [None, None], nd_names=(),
           doc=f"NumPy's ``{_name}`` on integer (or bool) arrays.")


# -- unravel_index / ravel_multi_index (MXNet's: no bounds check, the first axis is not wrapped) ---
def _unravel(xp, inputs, a):
    flat, shape = inputs[0], tuple(a["shape"])
    rest = flat.astype(numpy.int64)
    out = []
    for size in reversed(shape[1:]):
        out.append(rest % size)
        rest = rest // size
    return xp.stack([rest] + out[::-1]).astype(flat.dtype)


def _ravel(xp, inputs, a):
    coords, shape = inputs[0], tuple(a["shape"])
    if coords.shape[:1] != (len(shape),):
        raise MXNetValueError(f"ravel_multi_index: data of shape {coords.shape} needs a first "
                              f"axis of {len(shape)}, one row per axis of shape {shape}")
    strides = numpy.cumprod((1,) + shape[:0:-1])[::-1].reshape((-1,) + (1,) * (coords.ndim - 1))
    return (coords.astype(numpy.int64) * xp.asarray(strides)).sum(axis=0).astype(coords.dtype)


_SHAPE = (Attr("shape", "shape", None, doc="the array shape the indices refer to"),)
register(Op(name="_unravel_index", aliases=("unravel_index", "_npi_unravel_index"), attrs=_SHAPE,
            compute=_unravel, infer_shape=lambda a, s: [None if s[0] is None else
                                                        (len(a["shape"]),) + tuple(s[0])],
            save_inputs=False, save_outputs=False, gradient=lambda node, g: [None],
            doc="Coordinates (one row per axis of ``shape``) of flat indices."))
register(Op(name="_ravel_multi_index", aliases=("ravel_multi_index", "_npi_ravel_multi_index"),
            attrs=_SHAPE, compute=_ravel, infer_shape=lambda a, s: [None if s[0] is None else
                                                                      tuple(s[0])[1:]],
            save_inputs=False, save_outputs=False, gradient=lambda node, g: [None],
            doc="Flat indices of coordinates (one row per axis of ``shape``)."))


def _constraint_check(xp, inputs, attrs):
    """``True`` (a 0-d bool) when every element of the condition holds, else ``ValueError``."""
    if not bool(xp.all(inputs[0])):
        raise MXNetValueError(attrs["msg"])
    return xp.asarray(True)


register(Op(name="_npx_constraint_check", npx_name="constraint_check",
            compute=_constraint_check, input_names=("input",),
            attrs=(Attr("msg", "str", "Constraint violated."),),
            infer_shape=lambda attrs, s: [()], infer_type=lambda attrs, d: ["bool"],
            gradient=lambda node, g: [None], save_inputs=False, save_outputs=False,
            doc="Raise ValueError(msg) unless every element of a boolean array is true (MXNet "
                "multiplies a value by the result so that the check stays in the graph)."))
