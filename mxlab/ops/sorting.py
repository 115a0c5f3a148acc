"""Sorting and selection ops: ``sort``, ``argsort``, ``topk`` (all return types), ``nonzero`` /
``flatnonzero`` (dynamic output shapes) and ``diag``, each with a gradient written with ops.

Example
-------
>>> import mxlab as mx
>>> mx.np.sort(mx.np.array([3.0, 1.0, 2.0])).tolist()
[1.0, 2.0, 3.0]
"""

import numpy

from .attrs import Attr
from .indexing import _pass_shape
from .registry import F, Op, register
from .shape import any_unknown, norm_axis

# -- sorting ---------------------------------------------------------------------------------------
def _sort_axis(a, x):
    return None if a["axis"] is None else norm_axis("sort", a["axis"], x.ndim)


def _order(xp, x, axis, ascend):
    """Stable ordering indices along ``axis`` (descending keeps ties in their original order
    too)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    if ascend:
        return xp.argsort(x, axis=axis, kind="stable"), x, axis
    flipped = xp.flip(x, axis=axis)
    idx = xp.flip(xp.argsort(flipped, axis=axis, kind="stable"), axis=axis)
    return x.shape[axis] - 1 - idx, x, axis


def _ascending(a):
    """Legacy ops say ``is_ascend``; mx.np's (MXNet 2.0) say ``descending``, where MXNet 1.9.1's
    ``np.sort(a, axis, kind)`` has NumPy's algorithm name (ignored: sorting is stable)."""
    descending = a.get("descending", False)
    return a["is_ascend"] and not (descending and not isinstance(descending, str))


def _sort(xp, inputs, a):
    idx, x, axis = _order(xp, inputs[0], _sort_axis(a, inputs[0]), _ascending(a))
    return xp.take_along_axis(x, idx, axis=axis)


def _argsort(xp, inputs, a):
    return _order(xp, inputs[0], _sort_axis(a, inputs[0]), _ascending(a))[0].astype(a["dtype"])


def _flat_or_same(a, s):
    if s[0] is None:
        return [None]
    return [(int(numpy.prod(s[0])),)] if a["axis"] is None else [tuple(s[0])]


def _sorted_grad(node, g):
    """Sort-like gradients: scatter the output gradient back to where each value came from."""
    x, axis = node.inputs[0], node.attrs["axis"]
    idx = F.argsort(x, dtype="int64", axis=axis, is_ascend=_ascending(node.attrs))
    return [F._scatter_along_axis(g[0], x, idx, axis=axis)]


_SORT_ATTRS = (Attr("axis", "int", -1, optional=True), Attr("is_ascend", "bool", True))
# NOTE: MXNet 2.0's np.sort / np.argsort(a, axis, descending, stable); is_ascend stays for
# callers of the 1.x internal ops. Sorting is always stable.
_SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _descending_ok(value):
    return value is None or isinstance(value, (bool, int, numpy.bool_, numpy.integer)) or \
        value in _SORT_KINDS


_NP_SORT_ATTRS = (Attr("axis", "int", -1, optional=True),
                  Attr("descending", "any", False, optional=True,
                       check=(_descending_ok, "must be a bool (MXNet 1.9.1: or a sort kind)")),
                  Attr("stable", "bool", True), Attr("is_ascend", "bool", True))
for _name, _np, _attrs in (("sort", None, _SORT_ATTRS), ("_npi_sort", "sort", _NP_SORT_ATTRS)):
    register(
        Op(
            name=_name,
            compute=_sort,
            attrs=_attrs,
            infer_shape=_flat_or_same,
            gradient=_sorted_grad,
            np_name=_np,
            ignored_attrs=("kind", "order"),
            save_outputs=False,
            doc="Sorted copy along ``axis`` (``None``: flattened).",
        )
    )
for _name, _dtype, _np, _attrs in (("argsort", "float32", None, _SORT_ATTRS),
                                   ("_npi_argsort", "int64", "argsort", _NP_SORT_ATTRS)):
    register(
        Op(
            name=_name,
            compute=_argsort,
            attrs=_attrs + (Attr("dtype", "dtype", _dtype),),
            infer_shape=_flat_or_same,
            infer_type=lambda a, d: [a["dtype"]],
            np_name=_np,
            gradient=lambda node, g: [None],
            ignored_attrs=("kind", "order"),
            save_inputs=False,
            save_outputs=False,
            doc="Indices that sort the input along ``axis``.",
        )
    )


def _scatter_along(xp, inputs, a):
    g, like, idx = inputs
    axis = -1 if a["axis"] is None else a["axis"]
    flat = a["axis"] is None
    shape = (like.size,) if flat else like.shape
    out = xp.zeros(shape, dtype=g.dtype)
    idx = idx.astype(numpy.int64)
    if hasattr(xp, "put_along_axis"):
        xp.put_along_axis(out, idx, g, axis=axis)
    else:  # NOTE: CuPy versions without put_along_axis: one masked add per selected position.
        positions = xp.arange(shape[axis]).reshape(
            (-1,) + (1,) * (len(shape) - axis % len(shape) - 1)
        )
        for k in range(idx.shape[axis]):
            pick = xp.take(idx, [k], axis=axis)
            out += xp.where(positions == pick, xp.take(g, [k], axis=axis), 0)
    return out.reshape(like.shape)


register(
    Op(
        name="_scatter_along_axis",
        compute=_scatter_along,
        num_inputs=3,
        input_names=("grad", "like", "index"),
        attrs=(Attr("axis", "int", -1, optional=True),),
        infer_shape=_pass_shape(1),
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        hidden=True,
        gradient=lambda node, g: [
            F._gather_along_axis(g[0], node.inputs[2], **node.attrs),
            None,
            None,
        ],
        doc="Zeros shaped like ``like`` with ``grad`` placed at ``index`` along ``axis``.",
    )
)
register(
    Op(
        name="_gather_along_axis",
        num_inputs=2,
        input_names=("data", "index"),
        hidden=True,
        attrs=(Attr("axis", "int", -1, optional=True),),
        infer_shape=_pass_shape(1),
        compute=lambda xp, inputs, a: xp.take_along_axis(
            inputs[0] if a["axis"] is not None else inputs[0].reshape(-1),
            inputs[1].astype(numpy.int64),
            axis=-1 if a["axis"] is None else a["axis"],
        ),
        infer_type=lambda a, d: [d[0]],
        gradient=lambda node, g: [F._scatter_along_axis(g[0], *node.inputs, **node.attrs), None],
        doc="``take_along_axis`` (the gradient of ``_scatter_along_axis``).",
    )
)


def _topk_outputs(a):
    return 2 if a["ret_typ"] == "both" else 1


def _topk(xp, inputs, a):
    x = inputs[0]
    idx, flat, axis = _order(xp, x, _sort_axis(a, x), a["is_ascend"])
    k = a["k"] if a["k"] > 0 else flat.shape[axis]
    idx = xp.take(idx, xp.arange(k), axis=axis)
    values = xp.take_along_axis(flat, idx, axis=axis)
    if a["ret_typ"] == "mask":
        ones = xp.ones(idx.shape, dtype=x.dtype)
        return _scatter_along(xp, [ones, x, idx], {"axis": a["axis"]})
    indices = idx.astype(a["dtype"])
    return {"value": values, "indices": indices, "both": (values, indices)}[a["ret_typ"]]


def _topk_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None] * _topk_outputs(a)
    s = tuple(in_shapes[0])
    if a["ret_typ"] == "mask":
        return [s]
    if a["axis"] is None:
        s = (int(numpy.prod(s)),)
    axis = norm_axis("topk", -1 if a["axis"] is None else a["axis"], len(s))
    k = a["k"] if a["k"] > 0 else s[axis]
    out = s[:axis] + (k,) + s[axis + 1 :]
    return [out] * _topk_outputs(a)


def _topk_type(a, in_dtypes):
    """Values and masks keep the input dtype; indices take ``dtype`` (a rule, not the registry's
    first-input guess, which a subgraph's inner inference would fall back on)."""
    data = in_dtypes[0]
    return {"value": [data], "mask": [data], "indices": [a["dtype"]],
            "both": [data, a["dtype"]]}[a["ret_typ"]]


def _topk_grad(node, g):
    if node.attrs["ret_typ"] not in ("value", "both"):
        return [None]
    attrs = dict(node.attrs, ret_typ="indices", dtype="int64")
    idx = F.topk(node.inputs[0], **attrs)
    return [F._scatter_along_axis(g[0], node.inputs[0], idx, axis=node.attrs["axis"])]


register(
    Op(
        name="topk",
        aliases=("_npx_topk",),
        compute=_topk,
        num_outputs=_topk_outputs,
        attrs=(
            Attr("axis", "int", -1, optional=True),
            Attr("k", "int", 1),
            Attr("ret_typ", "str", "indices", choices=("value", "indices", "mask", "both")),
            Attr("is_ascend", "bool", False),
            Attr("dtype", "dtype", "float32"),
        ),
        infer_shape=_topk_infer,
        infer_type=_topk_type,
        gradient=_topk_grad,
        npx_name="topk",
        save_outputs=False,
        doc="The ``k`` largest (or smallest) entries along ``axis``: values, indices, a mask, or "
        "both.",
    )
)


# -- nonzero / diag --------------------------------------------------------------------------------
def _nonzero(xp, inputs, a):
    x = inputs[0]
    x = x.reshape(1) if x.ndim == 0 else x
    return xp.stack(xp.nonzero(x), axis=1).astype(numpy.int64)


register(
    Op(
        name="_npi_nonzero",
        aliases=("_npx_nonzero",),
        compute=_nonzero,
        npx_name="nonzero",
        dynamic_shape=True,
        infer_shape=lambda a, s: [None if s[0] is None else (None, max(len(s[0]), 1))],
        infer_type=lambda a, d: ["int64"],
        gradient=lambda node, g: [None],
        save_inputs=False,
        save_outputs=False,
        doc="Indices of non-zero entries as an ``(N, ndim)`` int64 array.",
    )
)
register(
    Op(
        name="_npi_flatnonzero",
        compute=lambda xp, inputs, a: xp.flatnonzero(inputs[0]).astype(numpy.int64),
        dynamic_shape=True,
        infer_shape=lambda a, s: [(None,)],
        infer_type=lambda a, d: ["int64"],
        gradient=lambda node, g: [None],
        np_name="flatnonzero",
        save_inputs=False,
        save_outputs=False,
        doc="Indices of non-zero entries of the flattened input.",
    )
)


def _diag(xp, inputs, a):
    x = inputs[0]
    if x.ndim == 1:
        return xp.diag(x, a["k"])
    return xp.diagonal(x, a["k"], a["axis1"], a["axis2"]).copy()


def _backward_diag(xp, inputs, a):
    g, x = inputs
    if x.ndim == 1:
        return xp.diagonal(g, a["k"]).copy()
    out = xp.zeros(x.shape, dtype=g.dtype)
    view = xp.moveaxis(out, (a["axis1"], a["axis2"]), (-2, -1))
    n = g.shape[-1]
    rows = xp.arange(n) + max(-a["k"], 0)
    view[..., rows, rows + a["k"]] = g
    return out


def _diag_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    s, k = tuple(in_shapes[0]), a["k"]
    if len(s) == 1:
        return [(s[0] + abs(k),) * 2]
    i, j = norm_axis("diag", a["axis1"], len(s), "axis1"), norm_axis(
        "diag", a["axis2"], len(s), "axis2"
    )
    length = max(min(s[i] + min(k, 0), s[j] - max(k, 0)), 0)
    return [tuple(d for n, d in enumerate(s) if n not in (i, j)) + (length,)]


_DIAG_ATTRS = (Attr("k", "int", 0), Attr("axis1", "int", 0), Attr("axis2", "int", 1))
register(
    Op(
        name="diag",
        aliases=("_np_diag", "_npi_diag"),
        compute=_diag,
        attrs=_DIAG_ATTRS,
        np_name="diag",
        infer_shape=_diag_infer,
        save_outputs=False,
        gradient=lambda node, g: [F._backward_diag(g[0], node.inputs[0], **node.attrs)],
        doc="1-D input: a matrix with it on the ``k``-th diagonal; N-D input: that diagonal.",
    )
)
register(
    Op(
        name="_backward_diag",
        compute=_backward_diag,
        num_inputs=2,
        input_names=("grad", "data"),
        attrs=_DIAG_ATTRS,
        infer_shape=_pass_shape(1),
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(1,),
        hidden=True,
        gradient=lambda node, g: [F.diag(g[0], **node.attrs), None],
        doc="Gradient of ``diag``.",
    )
)
