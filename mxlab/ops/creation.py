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


from ..base import MXNetValueError
from ..imperative import invoke
from ..ndarray.ndarray import NDArray, ndarray
from .attrs import Attr
from .infer import same_shape
from .registry import F, Op, get_op, register, register_frontend

__all__ = ["create"]

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


_shape_only = lambda a, s: [tuple(a["shape"])]
_source_op(
    "_npi_zeros",
    _fill(lambda a: 0),
    (_SHAPE, _DTYPE),
    _shape_only,
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
    aliases=("_npi_full",),
    doc="An array filled with ``value``.",
)
_source_op(
    "_empty",
    _fill(lambda a: 0),
    (_SHAPE, _DTYPE),
    _shape_only,
    aliases=("_npi_empty",),
    np_name="empty",
    nd_names=("empty", "_empty"),
    doc="An array whose values are unspecified (mxlab fills zeros, so results stay reproducible).",
)


def _arange_length(a):
    start, stop, step = a["start"], a["stop"], a["step"]
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        raise MXNetValueError("arange: attribute 'step' must not be 0")
    return max(int(math.ceil((stop - start) / step)), 0) * a.get("repeat", 1), start


def _arange_compute(xp, inputs, a):
    _, start = _arange_length(a)
    stop = a["start"] if a["stop"] is None else a["stop"]
    values = xp.arange(start, stop, a["step"], dtype="float64").astype(_dtype(a))
    return xp.repeat(values, a.get("repeat", 1)) if a.get("repeat", 1) > 1 else values


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
    _RANGE + (_DTYPE,),
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


def _eye_compute(xp, inputs, a):
    return xp.eye(a["N"], a["M"] or a["N"], k=a["k"], dtype=_dtype(a))


_source_op(
    "_eye",
    _eye_compute,
    (Attr("N", "int"), Attr("M", "int", 0), Attr("k", "int", 0), _DTYPE),
    lambda a, s: [(a["N"], a["M"] or a["N"])],
    aliases=("_npi_eye",),
    np_name="eye",
    nd_names=("eye", "_eye"),
    doc="A 2-D array with ones on the ``k``-th diagonal.",
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
register(
    Op(
        name="Cast",
        aliases=("cast", "_npi_astype", "amp_cast"),
        attrs=(Attr("dtype", "dtype"),),
        compute=lambda xp, inputs, a: inputs[0].astype(a["dtype"]),
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


# -- hand-written frontends (NumPy/MXNet call signatures) ------------------------------------------
def create(op_name, cls, device=None, **attrs):
    """Run the creation op ``op_name`` with ``attrs``; the result is a ``cls`` on ``device``."""
    op = get_op(op_name)
    return invoke(op, [], op.parse_attrs(attrs), cls=cls, device=device)[0]


_RENAMES = {"val": "value", "fill_value": "value"}


def _creator(op_name, cls, params):
    """A frontend taking MXNet's/NumPy's positional order ``params`` (which names ``ctx``/``device``
    too)."""

    def frontend(*args, out=None, **kwargs):
        if len(args) > len(params):
            raise MXNetValueError(
                f"{op_name}: takes at most {len(params)} positional arguments "
                f"({', '.join(params)}), got {len(args)}"
            )
        kwargs.update(zip(params, args))
        device = kwargs.pop("device", None) or kwargs.pop("ctx", None)
        kwargs.pop("ctx", None)
        attrs = {_RENAMES.get(k, k): v for k, v in kwargs.items()}
        if (
            attrs.get("value") is not None
            and attrs.get("dtype") is None
            and isinstance(attrs["value"], bool)
        ):
            attrs["dtype"] = "bool"
        result = create(op_name, cls, device, **attrs)
        return result if out is None else result.copyto(out)

    frontend.__name__ = op_name.lstrip("_")
    frontend.__doc__ = (
        f"Create an array with ``{op_name}``; arguments in the order {', '.join(params)}."
    )
    return frontend


_CREATORS = {
    "np": {
        "zeros": ("_npi_zeros", ("shape", "dtype", "order", "ctx", "device")),
        "ones": ("_ones", ("shape", "dtype", "order", "ctx", "device")),
        "empty": ("_empty", ("shape", "dtype", "order", "ctx", "device")),
        "full": ("_full", ("shape", "fill_value", "dtype", "order", "ctx", "device")),
        "arange": ("_npi_arange", ("start", "stop", "step", "dtype", "ctx", "device")),
        "eye": ("_eye", ("N", "M", "k", "dtype", "ctx", "device")),
    },
    "nd": {
        "zeros": ("_npi_zeros", ("shape", "ctx", "dtype")),
        "ones": ("_ones", ("shape", "ctx", "dtype")),
        "empty": ("_empty", ("shape", "ctx", "dtype")),
        "full": ("_full", ("shape", "val", "ctx", "dtype")),
        "arange": ("_arange", ("start", "stop", "step", "repeat", "infer_range", "ctx", "dtype")),
        "eye": ("_eye", ("N", "M", "k", "ctx", "dtype")),
    },
}


def _linspace_np(
    start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None, device=None
):
    """NumPy ``linspace``; ``retstep=True`` also returns the spacing."""
    if axis != 0:
        raise MXNetValueError("linspace: only axis=0 is supported")
    result = create(
        "_linspace",
        ndarray,
        device or ctx,
        start=start,
        stop=stop,
        num=num,
        endpoint=endpoint,
        dtype=dtype or "float32",
    )
    if not retstep:
        return result
    return result, (stop - start) / max(num - int(endpoint), 1)


def _astype_np(a, dtype, copy=True):
    return a.astype(dtype, copy=copy)


def _copy_frontend(a, out=None):
    """A new array with the same values (``a.copy()``)."""
    return invoke(get_op("_copy"), [a], {}, out=None if out is None else [out])[0]


for _flavour, _table in _CREATORS.items():
    for _public, (_op_name, _params) in _table.items():
        register_frontend(_flavour, name=_public)(
            _creator(_op_name, ndarray if _flavour == "np" else NDArray, _params)
        )
register_frontend("np", name="linspace")(_linspace_np)
register_frontend("np", name="astype")(_astype_np)
register_frontend("np", "nd", name="copy")(_copy_frontend)
for _flavour, _op in (("np", "_npi_astype"), ("nd", "Cast")):
    register_frontend(_flavour, name="cast")(
        lambda data, dtype, out=None, _op=_op: invoke(
            get_op(_op),
            [data],
            get_op(_op).parse_attrs({"dtype": dtype}),
            out=None if out is None else [out],
        )[0]
    )
