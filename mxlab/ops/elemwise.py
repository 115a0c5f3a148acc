"""Elementwise ops: unary maps, broadcasting binary ops, scalar variants, comparisons, ``*_like``.

Each op is one :class:`~mxlab.ops.registry.Op` entry built by a small factory from a table row;
the gradient is written with ops from :data:`~mxlab.ops.registry.F` so it works on arrays and
symbols and can be differentiated again.

Dtype rules (one place, :func:`promote`): equal dtypes stay; an integer/bool array meeting a float
array takes the float's dtype (MXNet's rule, not NumPy's float64 upcast); otherwise NumPy's
``result_type``. Float-valued maps (``exp``, ``sin``, ``true_divide`` of integers, ...) give
float32 for integer inputs (MXNet's default dtype).

Comparisons and logical ops exist twice, as in MXNet: the legacy op (``broadcast_equal``,
``_equal_scalar``) returns 0/1 in the promoted input dtype (``mx.nd``), the NumPy op
(``_npi_equal``, ``_npi_equal_scalar``) returns bool (``mx.np``). One table row registers both,
so a Symbol's JSON names the op that really ran and no extra cast op sits on the hot path.

Example
-------
>>> import mxlab as mx
>>> (mx.np.array([1, 2]) > 1).dtype, (mx.nd.array([1, 2]) > 1).dtype
(dtype('bool'), <class 'numpy.float32'>)
"""
import functools
import math

import numpy

from .attrs import Attr
from .infer import broadcast_shapes, same_shape
from .registry import F, Op, register

__all__ = ["unary", "binary", "scalar_op", "promote", "scalar_result_dtype", "float_result",
           "as_array", "zero_grads", "COMPARISONS", "legacy_stem"]

_FLOAT32 = numpy.dtype("float32")
_BOOL = numpy.dtype("bool")


# -- dtype rules ---------------------------------------------------------------------------------
_PROMOTED = {}


def promote(a, b):
    """Result dtype of a binary op on dtypes ``a`` and ``b`` (see module doc); cached per pair.

    >>> promote(numpy.dtype("int32"), numpy.dtype("float32"))
    dtype('float32')
    """
    key = (a, b)
    dtype = _PROMOTED.get(key)
    if dtype is None:
        a, b = numpy.dtype(a), numpy.dtype(b)
        if a.kind in "fc" and b.kind not in "fc":
            dtype = a
        elif b.kind in "fc" and a.kind not in "fc":
            dtype = b
        else:
            dtype = numpy.result_type(a, b)
        _PROMOTED[key] = dtype
    return dtype


def float_result(dtype):
    """Dtype of a float-valued map of ``dtype``: floats stay, integers and bool become float32."""
    return dtype if dtype.kind in "fc" else _FLOAT32


def scalar_result_dtype(dtype, scalar):
    """Dtype of ``array op scalar``: the array's, but int/bool with a float scalar -> float32."""
    if isinstance(scalar, float) and dtype.kind not in "fc":
        return _FLOAT32
    return dtype


def _float_scalar_dtype(dtype, scalar):
    return float_result(dtype)


def _bool_scalar_dtype(dtype, scalar):
    return _BOOL


def as_array(xp, result):
    """``result`` as an array: NumPy ufuncs and reductions return scalars for 0-d results."""
    return xp.asarray(result) if result.ndim == 0 and xp is numpy else result


def _pair_type(rule):
    """``infer_type`` from a rule on two dtypes; an unknown input takes the other's (MXNet's
    ``ElemwiseType``)."""
    def infer_type(attrs, dtypes):
        a, b = (None if d is None else numpy.dtype(d) for d in dtypes)
        if a is None or b is None:
            known = a if b is None else b
            return [None] if known is None else \
                ([known.name] * 2, [numpy.dtype(rule(known, known)).name])
        return [numpy.dtype(rule(a, b)).name]
    return infer_type


# -- factories -----------------------------------------------------------------------------------
def _xp_fn(xp, ufunc):
    """``xp.<ufunc>`` for a ufunc name; a kernel function ``ufunc(xp, *args, out=, dtype=)`` (one
    that is not a single ufunc for every dtype, e.g. :func:`.division.c_divide`) bound to
    ``xp``."""
    return functools.partial(ufunc, xp) if callable(ufunc) else getattr(xp, ufunc)


def _ufunc_name(ufunc):
    """What ``Op.ufunc`` says: the ufunc a kernel function is for floats (its ``float_ufunc``)."""
    return getattr(ufunc, "float_ufunc", None) if callable(ufunc) else ufunc


def _into(ufunc):
    def compute_into(xp, inputs, attrs, outs):
        _xp_fn(xp, ufunc)(*inputs, out=outs[0])
    return compute_into


def _unary_into(ufunc, kind):
    """A unary map into a buffer, exactly as its compute (see :func:`unary`): "round" copies
    integer inputs (NumPy would round them in float64, which an integer buffer refuses); "float"
    computes integer inputs in float32 (not in float64 and then cast)."""
    if kind not in ("round", "float"):
        return _into(ufunc)

    def compute_into(xp, inputs, attrs, outs):
        x = inputs[0]
        if x.dtype.kind in "biu":
            if kind == "round":
                xp.copyto(outs[0], x)
                return
            x = x.astype(_FLOAT32)
        getattr(xp, ufunc)(x, out=outs[0])
    return compute_into


def _unary_compute(ufunc, kind):
    """Kernel of a unary map; ``kind``: "float", "round", "mask" or "same" (see :func:`unary`)."""
    named = not callable(ufunc)

    def fn(xp, x):   # NOTE: the ufunc looked up here, one frame below compute (the hot path)
        result = getattr(xp, ufunc)(x) if named else ufunc(xp, x)
        return result if result.ndim else as_array(xp, result)

    if kind == "float":
        def compute(xp, inputs, attrs):
            x = inputs[0]
            if x.dtype.kind not in "fc":
                x = x.astype(_FLOAT32)
            return fn(xp, x)
    elif kind == "round":
        def compute(xp, inputs, attrs):
            x = inputs[0]
            return x.copy() if x.dtype.kind in "biu" else fn(xp, x)
    elif kind == "mask":
        def compute(xp, inputs, attrs):
            x = inputs[0]
            return fn(xp, x).astype(x.dtype, copy=False)
    else:
        def compute(xp, inputs, attrs):
            return fn(xp, inputs[0])
    return compute


def _unary_type(kind):
    if kind == "float":
        return lambda attrs, d: [None if d[0] is None else float_result(numpy.dtype(d[0])).name]
    if kind == "bool":
        return lambda attrs, d: ["bool"]
    return lambda attrs, d: [d[0]]


def unary(name, ufunc, grad=None, aliases=(), np_name=None, npx_name=None, numexpr=None,
          nd_names=None, kind="same", uses="x", doc=""):
    """Register a unary elementwise op computed by ``xp.<ufunc>`` (or ``ufunc(xp, x)``).

    ``kind``: "same" keeps the dtype, "float" maps integer inputs to float32, "round" returns
    integer inputs unchanged, "bool" returns bool, "mask" returns 0/1 in the input dtype (MXNet's
    legacy logic ops). ``uses``: what the gradient reads, "x" (input), "y" (output) or "".
    """
    compute = _unary_compute(ufunc, "same" if kind == "bool" else kind)
    compute_into = None if callable(ufunc) or kind == "mask" else _unary_into(ufunc, kind)
    return register(Op(name=name, compute=compute, compute_into=compute_into,
                       aliases=tuple(aliases), infer_shape=same_shape,
                       infer_type=_unary_type(kind), gradient=grad, inplace=((0, 0),),
                       elementwise=True, numexpr=numexpr, np_name=np_name, npx_name=npx_name,
                       ufunc=None if compute_into is None else ufunc,
                       nd_names=nd_names, save_inputs="x" in uses, save_outputs="y" in uses,
                       doc=doc))


def _broadcast_infer(attrs, in_shapes, out_shapes=None):
    a, b = in_shapes
    # NOTE: an operand of unknown shape leaves the output unknown (MXNet's BinaryBroadcastShape:
    #   it may be any shape broadcasting with the other); the same-shape ``elemwise_*`` ops fill it
    if a is None or b is None or None in a or None in b:
        if a is not None and b is not None and len(a) == len(b):
            return _broadcast_partial(a, b, (out_shapes or [None])[0])
        return in_shapes, [None]
    return in_shapes, [broadcast_shapes("broadcast", a, b)]


def _broadcast_dim(x, y, out):
    """One dim of ``x op y`` with unknown (None) dims: ``(x, y, out)`` filled where they can be.

    An unknown dim facing a known ``n > 1`` gives ``n`` (it is 1 or ``n``, the result is ``n``
    either way) and is taken to be ``n`` itself, as MXNet's ``elemwise_*`` (what ``a + b`` on
    symbols builds) infers; one facing a 1 takes the output's dim when that is known.
    """
    if x is not None and y is not None:
        return x, y, broadcast_shapes("broadcast", (x,), (y,))[0]
    known_dim = x if x is not None else y
    if known_dim is not None and known_dim != 1:
        return known_dim, known_dim, known_dim
    fill = out
    return (fill if x is None else x), (fill if y is None else y), out


def _broadcast_partial(a, b, out):
    """Partly known operands of the same rank (bidirectional, like MXNet's elementwise ops)."""
    out = out if out is not None and len(out) == len(a) else (None,) * len(a)
    dims = [_broadcast_dim(x, y, o) for x, y, o in zip(a, b, out)]
    return [tuple(d[0] for d in dims), tuple(d[1] for d in dims)], [tuple(d[2] for d in dims)]


def _binary_compute(ufunc, dtype_rule, cast_rule):
    """Kernel of a binary op: ``dtype_rule`` picks the loop dtype, ``cast_rule`` the result's."""
    def compute(xp, inputs, attrs):
        a, b = inputs
        fn = _xp_fn(xp, ufunc)
        if cast_rule is not None:
            return as_array(xp, fn(a, b)).astype(cast_rule(a.dtype, b.dtype), copy=False)
        if a.dtype == b.dtype and (dtype_rule is promote or a.dtype.kind in "fc"):
            return as_array(xp, fn(a, b))
        return as_array(xp, fn(a, b, dtype=dtype_rule(a.dtype, b.dtype)))
    return compute


def binary(name, ufunc, grad=None, aliases=(), numexpr=None, np_name=None, nd_names=None,
           dtype_rule=promote, cast_rule=None, doc="", infer_shape=None, infer_type=None,
           checked=None):
    """Register a broadcasting binary op computed by ``xp.<ufunc>``.

    ``dtype_rule(a, b)`` gives the loop (= result) dtype; ``cast_rule(a, b)``, when given,
    instead casts the natural result (legacy comparisons: bool -> 0/1 in the input dtype).
    ``infer_shape``/``infer_type`` replace the broadcasting rules and ``checked(compute)`` wraps
    the kernel (the same-shape ops of ``mxlab.ops.elemwise_same``).
    """
    rule = cast_rule or dtype_rule
    compute = _binary_compute(ufunc, dtype_rule, cast_rule)
    return register(Op(name=name, compute=checked(compute) if checked else compute,
                       compute_into=None if cast_rule else _into(ufunc), num_inputs=2,
                       input_names=("lhs", "rhs"), aliases=tuple(aliases),
                       infer_shape=infer_shape or _broadcast_infer,
                       infer_type=infer_type or _pair_type(rule), gradient=grad,
                       inplace=((0, 0), (1, 0)), elementwise=True, numexpr=numexpr,
                       ufunc=None if cast_rule else _ufunc_name(ufunc), np_name=np_name,
                       nd_names=nd_names, doc=doc))


def _scalar_for(dtype, attrs):
    """The scalar an op with ``attrs`` applies to an array of ``dtype``: MXNet's
    ``NumpyBinaryScalarParam``: with ``is_int`` (the default, and what every legacy ``mx.nd`` /
    ``mx.sym`` call passes) an integer array gets the scalar cast to its dtype as C casts,
    truncating (``int_array + 2.5`` adds 2); ``mx.np`` passes ``is_int=False`` for a float."""
    scalar = attrs["scalar"]
    if dtype.kind in "iu" and type(scalar) is float and attrs.get("is_int", True):
        return int(scalar)
    return scalar


def _given_scalar(dtype, attrs):
    return attrs["scalar"]


def _scalar_kernels(ufunc, reflected, scalar_for):
    """``(apply(xp, x, s), compute_into)`` applying ``ufunc`` (see :func:`_xp_fn`) to ``(x, s)``
    or ``(s, x)``; ``compute_into`` takes the scalar from ``scalar_for(dtype, attrs)``. One
    frame between an op's kernel and the ufunc: imperative per-op cost is mostly such frames."""
    named = not callable(ufunc)

    def apply(xp, x, s, out=None):
        a, b = (s, x) if reflected else (x, s)
        return getattr(xp, ufunc)(a, b, out=out) if named else ufunc(xp, a, b, out=out)

    def compute_into(xp, inputs, attrs, outs):
        apply(xp, inputs[0], scalar_for(inputs[0].dtype, attrs), out=outs[0])
    return apply, compute_into


def scalar_op(name, ufunc, grad=None, aliases=(), numexpr=None, out_dtype=scalar_result_dtype,
              reflected=False, keeps_dtype=None, truncates=True, doc=""):
    """Register ``op(data, scalar=s)`` computing ``xp.<ufunc>(x, s)`` (``(s, x)`` if reflected).

    ``out_dtype(dtype, s)`` is the result dtype (``keeps_dtype``: it keeps a float input's,
    so the op is exactly the ufunc on floats; default: known from ``out_dtype``). Writing into a
    given buffer (``x += 1``) runs the ufunc with ``out=``, so in-place updates make no
    temporary. ``truncates``: an integer input takes the scalar cast to its dtype under
    ``is_int`` (see :func:`_scalar_for`); False for ops whose result is a float anyway.
    """
    scalar_for = _scalar_for if truncates else _given_scalar
    apply, compute_into = _scalar_kernels(ufunc, reflected, scalar_for)
    keeps_float = out_dtype is scalar_result_dtype
    # NOTE: a float input keeps its dtype, so for same-dtype floats the op is exactly the ufunc.
    if keeps_dtype is None:
        keeps_dtype = out_dtype in (scalar_result_dtype, _float_scalar_dtype)

    on_numpy = getattr(numpy, ufunc) if not callable(ufunc) else None

    def compute(xp, inputs, attrs):
        x = inputs[0]
        if on_numpy is not None and keeps_float and xp is numpy and x.dtype.kind == "f" and \
                x.ndim:   # NOTE: the imperative hot path, the ufunc one frame below
            scalar = attrs["scalar"]
            result = on_numpy(scalar, x) if reflected else on_numpy(x, scalar)
            if result.dtype.kind == "f":
                return result
        scalar = scalar_for(x.dtype, attrs)
        result = apply(xp, x, scalar)
        if x.ndim == 0:
            result = as_array(xp, result)
        if keeps_float and x.dtype.kind == "f" and result.dtype.kind == "f":
            return result   # NOTE: hot path: float array op Python scalar keeps the array's dtype.
        dtype = out_dtype(x.dtype, scalar)
        return result if result.dtype == dtype else result.astype(dtype)

    def infer_type(attrs, dtypes):
        if dtypes[0] is None:
            return [None]
        dtype = numpy.dtype(dtypes[0])
        return [numpy.dtype(out_dtype(dtype, scalar_for(dtype, attrs))).name]
    return register(Op(name=name, compute=compute, compute_into=compute_into,
                       aliases=tuple(aliases),
                       attrs=(Attr("scalar", "scalar", 1.0), Attr("is_int", "bool", True)),
                       infer_shape=same_shape, infer_type=infer_type, gradient=grad,
                       inplace=((0, 0),), elementwise=True, numexpr=numexpr, doc=doc,
                       ufunc=_ufunc_name(ufunc) if keeps_dtype else None,
                       ufunc_scalar="lhs" if reflected else "rhs"))


def _sum_like(g, x):
    return F._reduce_sum_like(g, x)


def _mul(*factors):
    result = factors[0]
    for f in factors[1:]:
        result = F.broadcast_mul(result, f)
    return result


def zero_grads(node, g):
    """Piecewise-constant ops (rounding, floor_divide): zero gradient, as in MXNet."""
    return [F.zeros_like(x) for x in node.inputs]


def _no_grads(node, g):
    """Comparisons and logical ops: no gradient flows to any input."""
    return [None] * len(node.inputs)


# -- copies and helpers used by every gradient ---------------------------------------------------
register(Op(name="_copy", aliases=("identity", "_copyto"),
            compute=lambda xp, inputs, attrs: inputs[0].copy(),
            compute_into=lambda xp, inputs, attrs, outs: xp.copyto(outs[0], inputs[0],
                                                                   casting="unsafe"),
            infer_shape=same_shape, gradient=lambda node, g: [g[0]], inplace=((0, 0),),
            elementwise=True, numexpr="{0}", doc="Copy the input (also ``identity``)."))


def _reduce_sum_like(xp, inputs, attrs):
    """Sum a broadcast gradient back down to the shape of ``like`` (undoes broadcasting)."""
    g, like = inputs
    shape = like.shape
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                      if d == 1 and g.shape[i + lead] != 1)
    return as_array(xp, g.sum(axis=axes).reshape(shape) if axes else g.reshape(shape))


def _like_shape(attrs, shapes):
    return [shapes[1]]


def _first_type(attrs, dtypes):
    return [dtypes[0]]


register(Op(name="_reduce_sum_like", compute=_reduce_sum_like, num_inputs=2,
            input_names=("data", "like"), infer_shape=_like_shape, infer_type=_first_type,
            ignore_inputs=(1,), save_inputs=(0,), inplace=((0, 0),),
            gradient=lambda node, g: [F.broadcast_like(g[0], node.inputs[0]), None],
            doc="Sum ``data`` over broadcast axes so it has the shape of ``like``."))
for _fill in ("zeros", "ones"):
    register(Op(name=f"{_fill}_like", aliases=(f"_{_fill}_like",),
                compute=lambda xp, inputs, attrs, f=_fill: getattr(xp, f"{f}_like")(inputs[0]),
                infer_shape=same_shape, gradient=lambda node, g: [None], ignore_inputs=(0,),
                save_inputs=False, np_name=f"{_fill}_like",
                doc=f"{_fill.capitalize()} with the shape and dtype of the input."))

# -- binary broadcasting arithmetic --------------------------------------------------------------
binary("broadcast_add", "add", numexpr="({0} + {1})",
       aliases=("_npi_add", "broadcast_plus"),
       grad=lambda node, g: [_sum_like(g[0], node.inputs[0]), _sum_like(g[0], node.inputs[1])])
binary("broadcast_sub", "subtract", numexpr="({0} - {1})",
       aliases=("_npi_subtract", "broadcast_minus"),
       grad=lambda node, g: [_sum_like(g[0], node.inputs[0]),
                             _sum_like(F.negative(g[0]), node.inputs[1])])
binary("broadcast_mul", "multiply", numexpr="({0} * {1})",
       aliases=("_npi_multiply",),
       grad=lambda node, g: [_sum_like(F.broadcast_mul(g[0], node.inputs[1]), node.inputs[0]),
                             _sum_like(F.broadcast_mul(g[0], node.inputs[0]), node.inputs[1])])


def _power_grad(node, g):
    a, b = node.inputs
    ga = _mul(g[0], b, F.broadcast_power(a, F._minus_scalar(b, scalar=1)))
    gb = _mul(g[0], node.outputs[0], F.log(a))
    return [_sum_like(ga, a), _sum_like(gb, b)]


def _mod_grad(node, g):
    a, b = node.inputs
    ga, gb = F._backward_mod(g[0], a, b)    # see mxlab.ops.division
    return [_sum_like(ga, a), _sum_like(gb, b)]


def _select_grad(lhs_mask, rhs_mask):
    """maximum/minimum: the gradient goes to the chosen side (ties to the left, as in MXNet).

    ``lhs_mask``/``rhs_mask`` name the legacy comparison ops giving 0/1 masks.
    """
    def grad(node, g):
        a, b = node.inputs
        lhs, rhs = getattr(F, lhs_mask)(a, b), getattr(F, rhs_mask)(a, b)
        return [_sum_like(_mul(g[0], lhs), a), _sum_like(_mul(g[0], rhs), b)]
    return grad


def _hypot_grad(node, g):
    a, b = node.inputs
    scaled = F.broadcast_div(g[0], node.outputs[0])
    return [_sum_like(_mul(scaled, a), a), _sum_like(_mul(scaled, b), b)]


def _arctan2_grad(node, g):
    a, b = node.inputs
    scaled = F.broadcast_div(g[0], F.broadcast_add(F.square(a), F.square(b)))
    return [_sum_like(_mul(scaled, b), a), _sum_like(F.negative(_mul(scaled, a)), b)]


def _scalar_of(node):
    return node.attrs["scalar"]


def _power_scalar_grad(node, g):
    s = _scalar_of(node)
    return [_mul(g[0], F._mul_scalar(F._power_scalar(node.inputs[0], scalar=s - 1), scalar=s))]


def _rpower_scalar_grad(node, g):
    return [_mul(g[0], F._mul_scalar(node.outputs[0], scalar=math.log(_scalar_of(node))))]


def _rmod_scalar_grad(node, g):
    quotient = F._npi_rfloor_divide_scalar(node.inputs[0], scalar=_scalar_of(node))
    return [F.negative(_mul(g[0], quotient))]


def _compare_scalar_grad(op_name):
    """maximum/minimum with a scalar: the gradient passes where ``x`` was chosen."""
    def grad(node, g):
        return [_mul(g[0], getattr(F, op_name)(node.inputs[0], scalar=_scalar_of(node)))]
    return grad


def _hypot_scalar_grad(node, g):
    return [_mul(g[0], F.broadcast_div(node.inputs[0], node.outputs[0]))]


def _arctan2_scalar_grad(sign):
    """d/dx arctan2(x, s) = s / (x^2 + s^2); the reflected arctan2(s, x) has the opposite sign."""
    def grad(node, g):
        s = _scalar_of(node)
        denominator = F._plus_scalar(F.square(node.inputs[0]), scalar=float(s) * s)
        return [_mul(g[0], F._rdiv_scalar(denominator, scalar=sign * s))]
    return grad


# stem, legacy (has broadcast_* names), numexpr, tensor grad, scalar grad, reflected scalar grad
# (reflected "same": the op is symmetric, ``s op x == x op s``). The ufunc is NumPy's ``stem``.
_ARITHMETIC = (
    ("power", True, "({0} ** {1})", _power_grad, _power_scalar_grad, _rpower_scalar_grad),
    ("mod", True, None, _mod_grad, lambda node, g: [g[0]], _rmod_scalar_grad),
    ("maximum", True, None,
     _select_grad("broadcast_greater_equal", "broadcast_lesser"),
     _compare_scalar_grad("_greater_equal_scalar"), "same"),
    ("minimum", True, None,
     _select_grad("broadcast_lesser_equal", "broadcast_greater"),
     _compare_scalar_grad("_lesser_equal_scalar"), "same"),
    ("hypot", True, None, _hypot_grad, _hypot_scalar_grad, "same"),
    ("arctan2", False, "arctan2({0}, {1})", _arctan2_grad, _arctan2_scalar_grad(1.0),
     _arctan2_scalar_grad(-1.0)),
    ("floor_divide", False, None, zero_grads, zero_grads, zero_grads),
)


def _register_arithmetic(stem, legacy, numexpr, grad, scalar_grad, rscalar_grad):
    """One table row: the tensor op, its scalar variant and (unless symmetric) the reflected one.

    Legacy rows are ``broadcast_<stem>`` / ``_<stem>_scalar`` with ``_npi_`` aliases; the others
    exist only under their ``_npi_`` names, as in MXNet.
    """
    prefix = "_" if legacy else "_npi_"
    binary(f"broadcast_{stem}" if legacy else f"_npi_{stem}", stem, grad=grad, numexpr=numexpr,
           aliases=(f"_{stem}", f"_npi_{stem}") if legacy else ())
    truncates = stem not in ("hypot", "arctan2")     # NOTE: float results: no int scalar
    scalar_op(f"{prefix}{stem}_scalar", stem, grad=scalar_grad, truncates=truncates,
              aliases=(f"_npi_{stem}_scalar",) if legacy else ())
    if rscalar_grad != "same":
        scalar_op(f"{prefix}r{stem}_scalar", stem, grad=rscalar_grad, reflected=True,
                  truncates=truncates, aliases=(f"_npi_r{stem}_scalar",) if legacy else ())


for _row in _ARITHMETIC:
    _register_arithmetic(*_row)

# -- scalar arithmetic ---------------------------------------------------------------------------
scalar_op("_plus_scalar", "add", aliases=("_PlusScalar", "_npi_add_scalar"),
          numexpr="({0} + {s})", grad=lambda node, g: [g[0]])
scalar_op("_minus_scalar", "subtract", aliases=("_MinusScalar", "_npi_subtract_scalar"),
          numexpr="({0} - {s})", grad=lambda node, g: [g[0]])
scalar_op("_rminus_scalar", "subtract", reflected=True,
          aliases=("_RMinusScalar", "_npi_rsubtract_scalar"), numexpr="({s} - {0})",
          grad=lambda node, g: [F.negative(g[0])])
scalar_op("_mul_scalar", "multiply", aliases=("_MulScalar", "_npi_multiply_scalar"),
          numexpr="({0} * {s})",
          grad=lambda node, g: [F._mul_scalar(g[0], scalar=_scalar_of(node))])


# -- comparisons and logical ops: a legacy (0/1, input dtype) and a NumPy (bool) op per row ------
# ufunc, the op ``scalar <op> x`` becomes (``2 < x`` is ``x > 2``), numexpr operator
COMPARISONS = (
    ("equal", "equal", "=="), ("not_equal", "not_equal", "!="),
    ("greater", "less", ">"), ("greater_equal", "less_equal", ">="),
    ("less", "greater", "<"), ("less_equal", "greater_equal", "<="),
    # NOTE: no numexpr template: its ``&``/``|`` need bool operands, these ops take any dtype.
    ("logical_and", "logical_and", None), ("logical_or", "logical_or", None),
    ("logical_xor", "logical_xor", None),
)


def legacy_stem(ufunc):
    """MXNet's legacy ops say "lesser" where NumPy says "less"."""
    return ufunc.replace("less", "lesser")


def _register_comparison(ufunc, numexpr_op):
    """``broadcast_<stem>`` (+ ``_<stem>``), ``_<stem>_scalar`` and their ``_npi_`` bool twins."""
    stem = legacy_stem(ufunc)
    template = scalar_template = None
    if numexpr_op is not None:
        template, scalar_template = (f"({{0}} {numexpr_op} {{{rhs}}})" for rhs in ("1", "s"))
    binary(f"broadcast_{stem}", ufunc, grad=_no_grads, aliases=(f"_{stem}",), cast_rule=promote)
    binary(f"_npi_{ufunc}", ufunc, grad=_no_grads, cast_rule=lambda a, b: _BOOL,
           numexpr=template)
    scalar_op(f"_{stem}_scalar", ufunc, grad=_no_grads)
    scalar_op(f"_npi_{ufunc}_scalar", ufunc, grad=_no_grads,
              out_dtype=_bool_scalar_dtype, numexpr=scalar_template)


for _ufunc, _reflected, _nx in COMPARISONS:
    _register_comparison(_ufunc, _nx)

unary("logical_not", "logical_not", grad=_no_grads, uses="", kind="mask",
      doc="Logical NOT; 0/1 in the input dtype (MXNet legacy).")
unary("_npi_logical_not", "logical_not", grad=_no_grads, np_name="logical_not", kind="bool",
      uses="")
unary("_npi_bitwise_not", "invert", grad=_no_grads, np_name="bitwise_not",
      aliases=("bitwise_not",), uses="",
      doc="Bitwise NOT of integers, logical NOT of booleans (Python's ``~``).")
