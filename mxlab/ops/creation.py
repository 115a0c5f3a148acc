"""Creation ops (``zeros``, ``ones``, ``full``, ``arange``, ``linspace``, ``eye``, ``full_like``)
and ``Cast``.

Ops without inputs take their device from the call (``ctx=``/``device=``) and their dtype from the
``dtype`` attribute (float32 by default, as in MXNet). Their shape and dtype rules read the
attributes only, so graphs can plan them before anything runs.

Example
-------
>>> import mxlab as mx
>>> mx.nd.arange(0, 3, repeat=2).asnumpy().tolist()
[0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
"""

import math

import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from .attrs import Attr
from .infer import same_shape
from .registry import F, Op, register

__all__ = []

_SHAPE = Attr("shape", "shape", ())
_DTYPE = Attr("dtype", "dtype", "float32", optional=True)
_IGNORED = ("ctx", "order", "device")


def _no_grad(node, g):
    return [None] * len(node.inputs)


def _source_op(name, compute, attrs, infer_shape, **kwargs):
    """Register an op with no inputs whose output dtype is its ``dtype`` attribute."""
    return register(
        Op(
            name=name,
            compute=compute,
            num_inputs=0,
            input_names=(),
            attrs=attrs,
            infer_shape=infer_shape,
            infer_type=lambda a, d: [_dtype(a)],
            gradient=_no_grad,
            ignored_attrs=_IGNORED,
            save_inputs=False,
            save_outputs=False,
            **kwargs,
        )
    )


def _dtype(a):
    """The ``dtype`` attribute, with MXNet's float32 default for ``None``."""
    return a["dtype"] or "float32"


def _fill(value_of):
    return lambda xp, inputs, a: xp.full(a["shape"], value_of(a), dtype=_dtype(a))


def _fill_into(value_of):
    """Planned execution: fill the buffer, whose shape the graph inferred (a ``-1`` in the
    ``shape`` attribute is filled from the consumers, MXNet's ``sym.ones(shape=(-1, -1))``)."""
    def fill(xp, inputs, a, outs):
        outs[0][...] = value_of(a)
    return fill


def _shape_only(a, s, out_shapes=None):
    """The ``shape`` attribute; its negative dims are unknown, taken from the output shape the
    graph already knows (backward inference)."""
    shape = tuple(None if d < 0 else d for d in a["shape"])
    known = out_shapes[0] if out_shapes and out_shapes[0] is not None else None
    if None in shape and known is not None and len(known) == len(shape):
        shape = tuple(k if d is None else d for d, k in zip(shape, known))
    return [shape]


_source_op(
    "_npi_zeros",
    _fill(lambda a: 0),
    (_SHAPE, _DTYPE),
    _shape_only,
    compute_into=_fill_into(lambda a: 0),
    zero_dims_unknown=True,
    aliases=("_zeros",),
    np_name="zeros",
    nd_names=("_npi_zeros",),
    doc="An array of zeros.",
)
_source_op(
    "_ones",
    _fill(lambda a: 1),
    (_SHAPE, _DTYPE),
    _shape_only,
    compute_into=_fill_into(lambda a: 1),
    zero_dims_unknown=True,
    aliases=("_npi_ones",),
    np_name="ones",
    nd_names=("ones", "_ones"),
    doc="An array of ones.",
)
_source_op(
    "_full",
    _fill(lambda a: a["value"]),
    (_SHAPE, Attr("value", "scalar"), _DTYPE),
    _shape_only,
    compute_into=_fill_into(lambda a: a["value"]),
    zero_dims_unknown=True,
    aliases=("_npi_full",),
    doc="An array filled with ``value``.",
)
_source_op(
    "_empty",
    _fill(lambda a: 0),
    (_SHAPE, _DTYPE),
    _shape_only,
    compute_into=_fill_into(lambda a: 0),
    zero_dims_unknown=True,
    aliases=("_npi_empty",),
    np_name="empty",
    nd_names=("empty", "_empty"),
    doc="An array whose values are unspecified (mxlab fills zeros, so results stay reproducible).",
)


def _arange_length(a):
    start, stop, step = a["start"], a["stop"], a["step"] or 1.0
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise MXNetValueError("arange: attribute 'step' must not be 0")
    return max(int(math.ceil((stop - start) / step)), 0) * a.get("repeat", 1), start


def _arange_compute(xp, inputs, a):
    """MXNet's kernel: ``DType(start) + i * DType(step)`` in the output dtype (an integer arange
    of 0.5 step 1.5 is 0, 1, 2; float32 rounds as float32 arithmetic does)."""
    count, start = _arange_length(a)
    repeat = a.get("repeat", 1)
    dtype = numpy.dtype(_dtype(a))
    step = a["step"] or 1.0
    if dtype.kind in "iub":   # NOTE: int64 arithmetic, then the cast wraps as C's does
        values = (xp.arange(count // repeat, dtype="int64") * int(step) + int(start)).astype(dtype)
    else:
        values = xp.arange(count // repeat, dtype=dtype) * dtype.type(step) + dtype.type(start)
    return xp.repeat(values, repeat) if repeat > 1 else values


_RANGE = (
    Attr("start", "float"),
    Attr("stop", "float", None, optional=True),
    Attr("step", "float", 1.0, check=(lambda v: v != 0, "must not be 0")),
)
_source_op(
    "_arange",
    _arange_compute,
    _RANGE + (Attr("repeat", "int", 1), Attr("infer_range", "bool", False), _DTYPE),
    lambda a, s: [(_arange_length(a)[0],)],
    nd_names=("arange", "_arange"),
    doc="Evenly spaced values in ``[start, stop)`` (each repeated ``repeat`` times).",
)
_source_op(
    "_npi_arange",
    _arange_compute,
    _RANGE[:2] + (Attr("step", "float", 1.0, optional=True,     # NOTE: mx.np reads None as 1
                       check=(lambda v: v != 0, "must not be 0")), _DTYPE),
    lambda a, s: [(_arange_length(a)[0],)],
    np_name="arange",
    doc="NumPy ``arange`` (float32 by default, as in MXNet).",
)


def _linspace_compute(xp, inputs, a):
    return xp.linspace(a["start"], a["stop"], a["num"], endpoint=a["endpoint"]).astype(_dtype(a))


_source_op(
    "_linspace",
    _linspace_compute,
    (
        Attr("start", "float"),
        Attr("stop", "float"),
        Attr("num", "int", 50),
        Attr("endpoint", "bool", True),
        _DTYPE,
    ),
    lambda a, s: [(a["num"],)],
    aliases=("_npi_linspace",),
    nd_names=("linspace", "_linspace"),
    doc="``num`` evenly spaced values from ``start`` to ``stop``.",
)


def _columns(a):
    """``M``: ``mx.nd.eye`` reads 0 as N (MXNet 1.x), ``mx.np.eye`` only None (NumPy)."""
    return a["N"] if a["M"] is None or (a["M"] == 0 and not a["np"]) else a["M"]


def _eye_compute(xp, inputs, a):
    return xp.eye(a["N"], _columns(a), k=a["k"], dtype=_dtype(a))


for _name, _np_flavour in (("_eye", False), ("_npi_eye", True)):
    _source_op(
        _name,
        _eye_compute,
        (Attr("N", "int"), Attr("M", "int", None if _np_flavour else 0, optional=True),
         Attr("k", "int", 0), _DTYPE, Attr("np", "bool", _np_flavour, doc="NumPy's M")),
        lambda a, s: [(a["N"], _columns(a))],
        np_name="eye" if _np_flavour else None,
        nd_names=() if _np_flavour else ("eye", "_eye"),
        doc="A 2-D array with ones on the ``k``-th diagonal (``M`` columns).",
    )


def _full_like_compute(xp, inputs, a):
    x = inputs[0]
    return xp.full(x.shape, a["fill_value"], dtype=a["dtype"] or x.dtype)


register(
    Op(
        name="_npi_full_like",
        aliases=("full_like",),
        compute=_full_like_compute,
        infer_shape=same_shape,
        np_name="full_like",
        attrs=(Attr("fill_value", "scalar"), Attr("dtype", "dtype", None, optional=True)),
        infer_type=lambda a, d: [a["dtype"] or d[0]],
        gradient=_no_grad,
        ignore_inputs=(0,),
        ignored_attrs=_IGNORED,
        save_inputs=False,
        save_outputs=False,
        doc="``fill_value`` shaped like the input.",
    )
)


# -- casts -----------------------------------------------------------------------------------------
def _cast(xp, inputs, a):
    if a["dtype"] == "bfloat16":
        raise MXNetNotImplementedError("Cast: bfloat16 arrays are not built in mxlab (NumPy and "
                                       "CuPy have no bfloat16 dtype)")
    return inputs[0].astype(a["dtype"])


register(
    Op(
        name="Cast",
        aliases=("cast", "_npi_astype", "amp_cast"),
        attrs=(Attr("dtype", "dtype"),),
        compute=_cast,
        infer_shape=same_shape,
        infer_type=lambda a, d: [a["dtype"]],
        ignored_attrs=("copy",),
        save_outputs=False,
        gradient=lambda node, g: [F._cast_like(g[0], node.inputs[0])],
        doc="Convert to ``dtype``; the gradient is cast back to the input's dtype.",
    )
)
register(
    Op(
        name="_cast_like",
        num_inputs=2,
        input_names=("data", "like"),
        hidden=True,
        compute=lambda xp, inputs, a: inputs[0].astype(inputs[1].dtype),
        infer_shape=lambda a, s: [s[0]],
        infer_type=lambda a, d: [d[1]],
        ignore_inputs=(1,),
        gradient=lambda node, g: [F._cast_like(g[0], node.inputs[0]), None],
        doc="Cast ``data`` to the dtype of ``like``.",
    )
)


def _multicast_target(attrs, dtypes):
    """MXNet's ``AMPMultiCastType``: float32 if any input is (float16 with ``cast_narrow``),
    else the first input's (``cast_narrow``: float32)."""
    names = [None if d is None else numpy.dtype(d).name for d in dtypes]
    if attrs["cast_narrow"]:
        return "float16" if "float16" in names else "float32"
    return "float32" if "float32" in names else names[0]


_AMP_FLOATS = ("float16", "float32")


def _multicast(xp, inputs, attrs):
    target = _multicast_target(attrs, [x.dtype for x in inputs])
    return tuple(x.astype(target) if x.dtype.name in _AMP_FLOATS else x.copy() for x in inputs)


def _multicast_type(attrs, dtypes):
    if any(d is None for d in dtypes):
        return [None] * len(dtypes)
    target = _multicast_target(attrs, dtypes)
    return [target if numpy.dtype(d).name in _AMP_FLOATS else d for d in dtypes]


register(Op(name="amp_multicast", compute=_multicast, num_inputs=lambda a: a["num_outputs"],
            num_outputs=lambda a: a["num_outputs"],
            attrs=(Attr("num_outputs", "int"), Attr("cast_narrow", "bool", False)),
            infer_shape=lambda a, s: list(s), infer_type=_multicast_type, save_outputs=False,
            gradient=lambda node, g: [F._cast_like(gi, x) for gi, x in zip(g, node.inputs)],
            doc="Cast the float16/float32 inputs to one type: the widest (float32 when any "
                "input is), or with ``cast_narrow`` the narrowest (MXNet's AMP op)."))
