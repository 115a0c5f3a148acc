"""Matrix products: ``dot`` (legacy, with transposes), ``np.dot``/``np.matmul``, ``batch_dot`` and
``FullyConnected``.

Gradients of the 2-D/3-D forms are written with the same product ops (so they can be differentiated
again); N-D ``dot`` and broadcasting ``matmul`` use one backward op each that computes both input
gradients.

Example
-------
>>> import mxlab as mx
>>> mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), transpose_b=True).shape
(2, 4)
"""

import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .infer import check_one_dtype, known, one_dtype
from .registry import F, Op, register
from .shape import any_unknown

__all__ = []

_TRANSPOSES = (Attr("transpose_a", "bool", False), Attr("transpose_b", "bool", False))
_IGNORED = ("forward_stype",)


def _ndim_of(x):
    """Number of dims of an array (or a symbol with a known shape); ``None`` when unknown."""
    shape = getattr(x, "shape", None)
    return len(shape) if isinstance(shape, tuple) else None


def _product_grads(product, a, b, g, ta, tb):
    """Gradients of ``C = op(A) @ op(B)`` written with ``product(x, y, transpose_a,
    transpose_b)``."""
    if not ta and not tb:
        return [product(g, b, False, True), product(a, g, True, False)]
    if ta and not tb:
        return [product(b, g, False, True), product(a, g, False, False)]
    if not ta and tb:
        return [product(g, b, False, False), product(g, a, True, False)]
    return [product(b, g, True, True), product(g, a, True, True)]


# -- legacy dot ------------------------------------------------------------------------------------
def _dot_operands(xp, inputs, a):
    lhs, rhs = inputs
    return (lhs.T if a["transpose_a"] else lhs), (rhs.T if a["transpose_b"] else rhs)


def _dot_compute(xp, inputs, a):
    check_one_dtype("dot", ("lhs", "rhs"), [x.dtype for x in inputs])
    lhs, rhs = _dot_operands(xp, inputs, a)
    if lhs.shape[-1] != rhs.shape[0]:
        raise MXNetValueError(
            f"dot: shapes {inputs[0].shape} and {inputs[1].shape} are not aligned "
            f"(transpose_a={a['transpose_a']}, transpose_b={a['transpose_b']})"
        )
    # NOTE: matrices go straight to BLAS (xp.dot); tensordot's reshapes cost ~25% on small ones.
    out = xp.dot(lhs, rhs) if lhs.ndim <= 2 and rhs.ndim <= 2 else xp.tensordot(lhs, rhs, axes=1)
    out = xp.asarray(out)
    return out.reshape(1) if out.ndim == 0 else out


def _dot_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    lhs, rhs = (tuple(s) for s in in_shapes)
    lhs = lhs[::-1] if a["transpose_a"] else lhs
    rhs = rhs[::-1] if a["transpose_b"] else rhs
    if not lhs or not rhs or lhs[-1] != rhs[0]:
        raise MXNetValueError(
            f"dot: shapes {in_shapes[0]} and {in_shapes[1]} are not aligned "
            f"(transpose_a={a['transpose_a']}, transpose_b={a['transpose_b']})"
        )
    return [lhs[:-1] + rhs[1:] or (1,)]


def _dot_grad(node, g):
    a, b = node.inputs
    ta, tb = node.attrs["transpose_a"], node.attrs["transpose_b"]
    if _ndim_of(a) == 2 and _ndim_of(b) == 2:
        return _product_grads(
            lambda x, y, t1, t2: F.dot(x, y, transpose_a=t1, transpose_b=t2), a, b, g[0], ta, tb
        )
    return list(F._backward_dot(g[0], a, b, transpose_a=ta, transpose_b=tb))


def _backward_dot(xp, inputs, a):
    """Both gradients of N-D ``dot`` by tensor contractions."""
    g, lhs, rhs = inputs
    x, y = _dot_operands(xp, [lhs, rhs], a)
    g = g.reshape(x.shape[:-1] + y.shape[1:])
    nx, ny = x.ndim - 1, y.ndim - 1
    gx = xp.tensordot(g, y, axes=(list(range(nx, nx + ny)), list(range(1, ny + 1))))
    gy = xp.tensordot(x, g, axes=(list(range(nx)), list(range(nx))))
    gx, gy = (gx.T if a["transpose_a"] else gx), (gy.T if a["transpose_b"] else gy)
    return xp.ascontiguousarray(gx), xp.ascontiguousarray(gy)


register(
    Op(
        name="dot",
        compute=_dot_compute,
        num_inputs=2,
        input_names=("lhs", "rhs"),
        attrs=_TRANSPOSES,
        ignored_attrs=_IGNORED,
        infer_shape=_dot_infer,
        infer_type=one_dtype("dot", ("lhs", "rhs")),
        gradient=_dot_grad,
        save_outputs=False,
        doc="Legacy ``dot``: contract the last axis of ``lhs`` with the first of ``rhs`` (1-D . "
        "1-D -> (1,)).",
    )
)
register(
    Op(
        name="_backward_dot",
        compute=_backward_dot,
        num_inputs=3,
        num_outputs=2,
        attrs=_TRANSPOSES,
        input_names=("grad", "lhs", "rhs"),
        ignored_attrs=_IGNORED,
        hidden=True,
        infer_shape=lambda a, s: [
            None if s[1] is None else tuple(s[1]),
            None if s[2] is None else tuple(s[2]),
        ],
        infer_type=lambda a, d: [d[0], d[0]],
        doc="Gradients of ``dot`` for any ranks.",
    )
)


# -- numpy dot / matmul ----------------------------------------------------------------------------
def _matmul_shape(a, b):
    """``matmul``'s output shape (1-D operands promoted, batch dims broadcast); None when the
    operands do not fit."""
    if not a or not b:
        return None
    a2, b2 = ((1,) + a if len(a) == 1 else a), (b + (1,) if len(b) == 1 else b)
    if a2[-1] != b2[-2]:
        return None
    try:
        batch = tuple(numpy.broadcast_shapes(a2[:-2], b2[:-2]))
    except ValueError:
        return None
    return batch + a2[-2:-1] * (len(a) > 1) + b2[-1:] * (len(b) > 1)


def _dot_shape(a, b):
    """``numpy.dot``'s output shape (a 0-d operand scales the other); None when the operands do
    not fit."""
    if not a or not b:
        return b if not a else a
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    return a[:-1] + b[:-2] + b[-1:] if a[-1] == b[-2] else None


def _np_binary_infer(fn, shape_fn):
    """A shape rule from ``shape_fn``; operands that do not fit go to the kernel on zero-strided
    dummies only for its error message (NumPy checks shapes before allocating the output)."""
    def infer(a, in_shapes):
        if any_unknown(in_shapes):
            return [None]
        shape = shape_fn(*(tuple(s) for s in in_shapes))
        if shape is None:
            dummies = [numpy.broadcast_to(numpy.zeros((), numpy.float32), s) for s in in_shapes]
            fn(numpy, dummies)
            raise MXNetValueError(f"operands of shapes {in_shapes[0]} and {in_shapes[1]} do not "
                                  "fit")
        return [shape]

    return infer


def _matmul(xp, inputs):
    return xp.matmul(inputs[0], inputs[1])


def _np_dot(xp, inputs):
    return xp.asarray(xp.dot(inputs[0], inputs[1]))


def _backward_np_dot(xp, inputs, a):
    """Both gradients of ``np.dot``: a contraction of x's last axis with y's second-to-last (or
    only) axis."""
    g, x, y = inputs
    if x.ndim == 0 or y.ndim == 0:
        return _sum_to(xp, g * y, x.shape), _sum_to(xp, g * x, y.shape)
    ky = max(y.ndim - 2, 0)
    rest = [d for d in range(y.ndim) if d != ky]
    gx = xp.tensordot(g, y, axes=(list(range(x.ndim - 1, g.ndim)), rest))
    gy = xp.tensordot(x, g, axes=(list(range(x.ndim - 1)), list(range(x.ndim - 1))))
    return xp.ascontiguousarray(gx), xp.ascontiguousarray(xp.moveaxis(gy, 0, ky))


def _backward_np_matmul(xp, inputs, a):
    """Both gradients of ``np.matmul`` (1-D promotion and batch broadcasting included)."""
    g, x, y = inputs
    x2 = x[None, :] if x.ndim == 1 else x
    y2 = y[:, None] if y.ndim == 1 else y
    batch = numpy.broadcast_shapes(x2.shape[:-2], y2.shape[:-2])
    g2 = g.reshape(batch + (x2.shape[-2], y2.shape[-1]))
    gx = g2 @ xp.swapaxes(y2, -1, -2)
    gy = xp.swapaxes(x2, -1, -2) @ g2
    return _sum_to(xp, gx, x2.shape).reshape(x.shape), _sum_to(xp, gy, y2.shape).reshape(y.shape)


def _sum_to(xp, g, shape):
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1
    )
    return xp.asarray(g.sum(axis=axes).reshape(shape)) if axes else g


def _register_np_product(name, fn, backward_fn, np_name, shape_fn, aliases=()):
    backward = f"_backward{name}"

    def compute(xp, inputs, a):
        check_one_dtype(np_name, ("a", "b"), [x.dtype for x in inputs])
        return fn(xp, inputs)

    register(
        Op(
            name=name,
            compute=compute,
            num_inputs=2,
            input_names=("a", "b"),
            infer_shape=_np_binary_infer(fn, shape_fn),
            infer_type=one_dtype(np_name, ("a", "b")),
            np_name=np_name,
            aliases=aliases,
            save_outputs=False,
            gradient=lambda node, g: list(getattr(F, backward)(g[0], *node.inputs)),
            doc=f"NumPy ``{np_name}``.",
        )
    )
    register(
        Op(
            name=backward,
            compute=backward_fn,
            num_inputs=3,
            num_outputs=2,
            input_names=("grad", "a", "b"),
            hidden=True,
            infer_type=lambda a, d: [d[1], d[2]],
            infer_shape=lambda a, s: [
                None if s[1] is None else tuple(s[1]),
                None if s[2] is None else tuple(s[2]),
            ],
            doc=f"Gradients of NumPy ``{np_name}``.",
        )
    )


_register_np_product("_np_dot", _np_dot, _backward_np_dot, "dot", _dot_shape,
                     aliases=("_npi_dot",))
_register_np_product("_npi_matmul", _matmul, _backward_np_matmul, "matmul", _matmul_shape,
                     aliases=("matmul", "_np_matmul"))


# -- batch_dot -------------------------------------------------------------------------------------
def _batch_operands(xp, inputs, a):
    lhs, rhs = inputs
    lhs = xp.swapaxes(lhs, -1, -2) if a["transpose_a"] else lhs
    rhs = xp.swapaxes(rhs, -1, -2) if a["transpose_b"] else rhs
    return lhs, rhs


def _batch_dot_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    lhs, rhs = (list(s) for s in in_shapes)
    if len(lhs) < 3 or len(lhs) != len(rhs):
        raise MXNetValueError(
            f"batch_dot: inputs must have the same rank >= 3, got {in_shapes[0]} and "
            f"{in_shapes[1]}"
        )
    if a["transpose_a"]:
        lhs[-1], lhs[-2] = lhs[-2], lhs[-1]
    if a["transpose_b"]:
        rhs[-1], rhs[-2] = rhs[-2], rhs[-1]
    if lhs[:-2] != rhs[:-2] or lhs[-1] != rhs[-2]:
        raise MXNetValueError(
            f"batch_dot: shapes {in_shapes[0]} and {in_shapes[1]} are not aligned "
            f"(transpose_a={a['transpose_a']}, transpose_b={a['transpose_b']})"
        )
    return [tuple(lhs[:-1]) + (rhs[-1],)]


def _batch_dot_compute(xp, inputs, a):
    _batch_dot_infer(a, [x.shape for x in inputs])
    lhs, rhs = _batch_operands(xp, inputs, a)
    return xp.matmul(lhs, rhs)


register(
    Op(
        name="batch_dot",
        compute=_batch_dot_compute,
        num_inputs=2,
        input_names=("lhs", "rhs"),
        attrs=_TRANSPOSES,
        ignored_attrs=_IGNORED,
        infer_shape=_batch_dot_infer,
        save_outputs=False,
        gradient=lambda node, g: _product_grads(
            lambda x, y, t1, t2: F.batch_dot(x, y, transpose_a=t1, transpose_b=t2),
            node.inputs[0],
            node.inputs[1],
            g[0],
            node.attrs["transpose_a"],
            node.attrs["transpose_b"],
        ),
        npx_name="batch_dot",
        doc="Batched matrix product over the leading axes (rank >= 3).",
    )
)


# -- FullyConnected --------------------------------------------------------------------------------
_FC_NAMES = ("data", "weight", "bias")


def _fc_inputs(a):
    return ("data", "weight") if a["no_bias"] else ("data", "weight", "bias")


def _fc_compute(xp, inputs, a):
    check_one_dtype("FullyConnected", _FC_NAMES, [x.dtype for x in inputs])
    x, w = inputs[0], inputs[1]
    x2 = x.reshape(x.shape[0], -1) if a["flatten"] else x
    if x2.shape[-1] != w.shape[-1] or w.shape[0] != a["num_hidden"]:
        raise MXNetValueError(
            f"FullyConnected: weight shape {w.shape} does not match data {x.shape} with "
            f"num_hidden={a['num_hidden']} (expected ({a['num_hidden']}, {x2.shape[-1]}))"
        )
    if x2.ndim == 2:
        out = xp.empty((x2.shape[0], w.shape[0]), x2.dtype)
        _product_into(xp, x2, w, out)
    else:
        out = x2 @ w.T
    if not a["no_bias"]:
        out += _bias(inputs[2])
    return out


#: Below this many multiply-adds the product is too small for its orientation to matter.
_ORIENTATION_MIN_MACS = 1 << 20


def _weight_first(xp, x2, w):
    """Whether ``x2 @ w.T`` runs faster as ``(w @ x2.T).T``: on NumPy's OpenBLAS, measured for
    fewer rows than outputs (``python -m benchmarks.fc_orientation``: (64, 784) x 256 1.16x,
    (8, 512) x 1000 1.9x faster; more rows than outputs, or a tiny product, is slower). The two
    orientations agree to rounding (bit for bit on some processors' OpenBLAS kernels, not on
    all); every path of one shape takes the same one, so paths agree bit for bit."""
    rows, width = x2.shape
    return (xp is numpy and x2.dtype in _BLAS_FLOATS and rows < w.shape[0]
            and rows * width * w.shape[0] >= _ORIENTATION_MIN_MACS)


_BLAS_FLOATS = (numpy.dtype("float32"), numpy.dtype("float64"))


def _product_into(xp, x2, w, out):
    """``x2 @ w.T`` into the 2-D ``out``, in the faster orientation (:func:`_weight_first`)."""
    if _weight_first(xp, x2, w):
        xp.copyto(out, xp.matmul(w, x2.T).T)
    else:
        xp.matmul(x2, w.T, out=out)


def _bias(b):
    """MXNet accepts a ``(num_hidden, 1)`` bias as well as ``(num_hidden,)``."""
    return b.reshape(-1) if b.ndim == 2 else b


def _fc_infer(a, in_shapes, out_shapes=None):
    """Fill weight/bias shapes from data + num_hidden; recover data's last dim from weight and
    its batch from a known output (as MXNet does)."""
    hidden = a["num_hidden"]
    shapes = list(in_shapes)
    data, weight = shapes[0], shapes[1]
    out_known = (out_shapes or [None])[0]
    if data is not None and data and data[0] is None and out_known is not None and a["flatten"]:
        data = shapes[0] = (out_known[0],) + tuple(data[1:])
    if data is not None and known(data):
        k = int(numpy.prod(data[1:], dtype=numpy.int64)) if a["flatten"] else data[-1]
        expected = (hidden, k)
        if weight is not None and known(weight) and tuple(weight) != expected:
            raise MXNetValueError(
                f"FullyConnected: weight shape {tuple(weight)} does not match data "
                f"{tuple(data)} with num_hidden={hidden} (expected {expected})"
            )
        shapes[1] = expected
        out = (data[0], hidden) if a["flatten"] else tuple(data[:-1]) + (hidden,)
    else:
        if (
            data is not None
            and weight is not None
            and known(weight)
            and not a["flatten"]
            and len(data)
        ):
            shapes[0] = tuple(data[:-1]) + (weight[1],)
        out = None
    if not a["no_bias"] and tuple(shapes[2] or ()) != (hidden, 1):
        shapes[2] = (hidden,)
    return shapes, [out]


def _fc_grad(node, g):
    """All gradients in one ``_backward_FullyConnected`` node (see :mod:`.fc_backward`)."""
    a = node.attrs
    grads = F._backward_FullyConnected(g[0], node.inputs[0], node.inputs[1],
                                       num_hidden=a["num_hidden"], no_bias=a["no_bias"],
                                       flatten=a["flatten"])
    grads = list(grads)
    if not a["no_bias"] and len(getattr(node.inputs[2], "shape", None) or ()) == 2:
        grads[2] = F.reshape_like(grads[2], node.inputs[2])   # NOTE: a (num_hidden, 1) bias
    return grads


def _fc_into(xp, inputs, a, outs):
    """Planned execution: the product straight into the output buffer, then the bias."""
    x, w, out = inputs[0], inputs[1], outs[0]
    if a["flatten"] or x.ndim == 2:
        _product_into(xp, x.reshape(x.shape[0], -1), w, out)
    else:
        xp.matmul(x, w.T, out=out)
    if not a["no_bias"]:
        out += _bias(inputs[2])


register(
    Op(
        name="FullyConnected",
        aliases=("_npx_fully_connected",),
        compute=_fc_compute,
        compute_into=_fc_into,
        num_inputs=lambda a: 2 if a["no_bias"] else 3,
        input_names=_fc_inputs,
        attrs=(
            Attr("num_hidden", "int", check=(lambda n: n > 0, "must be positive")),
            Attr("no_bias", "bool", False),
            Attr("flatten", "bool", True),
        ),
        infer_shape=_fc_infer,
        infer_type=one_dtype("FullyConnected", _FC_NAMES),
        gradient=_fc_grad,
        save_outputs=False,
        never_mirror=True,
        npx_name="fully_connected",
        doc="``out = data @ weight.T + bias`` (``data`` flattened to 2-D unless "
        "``flatten=False``).",
    )
)
