"""Gather ops and their scatter gradients: ``gather_nd``/``scatter_nd``, ``take``, ``pick``,
and ``one_hot``.

The gradient of a gather is the matching scatter into zeros and the gradient of that scatter is
the gather again, so gradients can be differentiated again.

Example
-------
>>> import mxlab as mx
>>> mx.nd.take(mx.nd.arange(6).reshape((3, 2)), mx.nd.array([2, 0])).asnumpy().tolist()
[[4.0, 5.0], [0.0, 1.0]]
"""
import functools

import numpy

from ..base import MXNetIndexError
from .attrs import Attr
from .indexing import _pass_shape
from .registry import F, Op, register
from .shape import any_unknown, norm_axis

__all__ = []

# -- gather_nd / scatter_nd (index tuples stacked on the first axis of ``indices``) ---------------
def _nd_key(indices):
    """``data[key]`` key of MXNet's gather_nd: row ``i`` of ``indices`` indexes axis ``i``."""
    return tuple(indices.astype(numpy.int64))


def _gather_nd(xp, inputs, a):
    data, indices = inputs
    if indices.shape[0] > data.ndim:
        raise MXNetIndexError(
            f"gather_nd: indices.shape[0]={indices.shape[0]} exceeds the data dimension {data.ndim}"
        )
    return xp.array(data[_nd_key(indices)])


def _scatter_nd_compute(accumulate):
    def compute(xp, inputs, a):
        values, indices = inputs[0], inputs[1]
        shape = a["shape"] if len(inputs) == 2 else inputs[2].shape
        out = xp.zeros(shape, dtype=values.dtype)
        key = _nd_key(indices)
        if not accumulate:
            out[key] = values
        elif xp is numpy:
            numpy.add.at(out, key, values)
        else:
            import cupyx

            cupyx.scatter_add(out, key, values)
        return out

    return compute


def _gather_nd_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    data, indices = tuple(in_shapes[0]), tuple(in_shapes[1])
    return [indices[1:] + data[indices[0] :]]


register(
    Op(
        name="gather_nd",
        aliases=("_npi_gather_nd", "_npx_gather_nd"),
        compute=_gather_nd,
        npx_name="gather_nd",
        num_inputs=2,
        input_names=("data", "indices"),
        infer_shape=_gather_nd_infer,
        infer_type=lambda a, d: [d[0]],
        save_outputs=False,
        gradient=lambda node, g: [
            F._backward_gather_nd(g[0], node.inputs[1], node.inputs[0]),
            None,
        ],
        doc="``data[indices[0], indices[1], ...]``: each column of ``indices`` picks one element "
        "(or sub-array).",
    )
)
register(
    Op(
        name="_backward_gather_nd",
        compute=_scatter_nd_compute(True),
        num_inputs=3,
        input_names=("data", "indices", "like"),
        infer_shape=_pass_shape(2),
        infer_type=lambda a, d: [d[0]],
        ignore_inputs=(2,),
        hidden=True,
        gradient=lambda node, g: [F.gather_nd(g[0], node.inputs[1]), None, None],
        doc="Gradient of ``gather_nd``: accumulate ``data`` into zeros shaped like ``like``.",
    )
)
register(
    Op(
        name="scatter_nd",
        compute=_scatter_nd_compute(False),
        num_inputs=2,
        input_names=("data", "indices"),
        attrs=(Attr("shape", "shape"),),
        infer_shape=lambda a, s: [tuple(a["shape"])],
        infer_type=lambda a, d: [d[0]],
        save_inputs=(1,),
        save_outputs=False,
        gradient=lambda node, g: [F.gather_nd(g[0], node.inputs[1]), None],
        doc="Zeros of ``shape`` with ``data`` written at ``indices`` (the inverse of "
        "``gather_nd``).",
    )
)


def _register_gather(name, compute, backward, input_names, attrs, infer_shape, doc, backward_doc,
                     backward_into=None, **public):
    """A gather op ``name(data, index)`` and its hidden ``_backward_<name>(grad, data, index)``
    scatter: each one's gradient is the other, so gradients can be differentiated again."""
    register(Op(name=name, compute=compute, num_inputs=2, input_names=input_names, attrs=attrs,
                infer_shape=infer_shape, save_outputs=False, doc=doc,
                gradient=lambda node, g: [getattr(F, f"_backward_{name}")(g[0], *node.inputs,
                                                                          **node.attrs), None],
                **public))
    register(Op(name=f"_backward_{name}", compute=backward, compute_into=backward_into,
                num_inputs=3,
                input_names=("grad",) + tuple(input_names), attrs=attrs,
                infer_shape=_pass_shape(1), infer_type=lambda a, d: [d[0]], ignore_inputs=(1,),
                hidden=True, doc=backward_doc,
                gradient=lambda node, g: [getattr(F, name)(g[0], node.inputs[2], **node.attrs),
                                          None, None]))


# -- take / pick / one_hot -------------------------------------------------------------------------
def _wrap_indices(xp, op_name, idx, n, mode):
    idx = idx.astype(numpy.int64)   # NOTE: a copy, so clipped in place below
    if mode == "clip":   # NOTE: two ufuncs: xp.clip's Python wrapper costs more on small arrays
        xp.maximum(idx, 0, out=idx)
        return xp.minimum(idx, n - 1, out=idx)
    if mode == "wrap":
        return idx % n
    # NOTE: raise mode accepts [0, n) only, negative indices too raise (MXNet 1.9.1 and 2.0's
    #   CheckIndexOutOfBound(idx, 0, n - 1); NumPy would wrap them)
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < 0):
        raise MXNetIndexError(f"{op_name}: index out of range for an axis of size {n}")
    return idx


def _take(xp, inputs, a):
    data, idx = inputs
    axis = norm_axis("take", a["axis"], data.ndim)
    return xp.asarray(
        xp.take(data, _wrap_indices(xp, "take", idx, data.shape[axis], a["mode"]), axis=axis)
    )


def _take_infer(a, in_shapes):
    if any_unknown(in_shapes):
        return [None]
    data, idx = tuple(in_shapes[0]), tuple(in_shapes[1])
    axis = norm_axis("take", a["axis"], len(data))
    return [data[:axis] + idx + data[axis + 1 :]]


def _backward_take(xp, inputs, a):
    g, data, idx = inputs
    axis = norm_axis("take", a["axis"], data.ndim)
    idx = _wrap_indices(xp, "take", idx, data.shape[axis], a["mode"]).reshape(-1)
    out = xp.zeros((data.shape[axis],) + data.shape[:axis] + data.shape[axis + 1 :], dtype=g.dtype)
    moved = xp.moveaxis(
        g.reshape(data.shape[:axis] + (idx.size,) + data.shape[axis + 1 :]), axis, 0
    )
    if xp is numpy:
        numpy.add.at(out, idx, moved)
    else:
        import cupyx

        cupyx.scatter_add(out, idx, moved)
    return xp.ascontiguousarray(xp.moveaxis(out, 0, axis))


_TAKE_ATTRS = (
    Attr("axis", "int", 0),
    Attr("mode", "str", "clip", choices=("clip", "wrap", "raise")),
)
_register_gather("take", _take, _backward_take, ("a", "indices"), _TAKE_ATTRS, _take_infer,
                 "Elements of ``a`` at ``indices`` along ``axis`` (out-of-range: clip or wrap).",
                 "Gradient of ``take``: accumulate rows of the gradient at the indices.",
                 aliases=("_npi_take",), np_name="take")


def _pick_parts(xp, a, data, idx):
    axis = norm_axis("pick", -1 if a["axis"] is None else a["axis"], data.ndim)
    idx = _wrap_indices(xp, "pick", idx, data.shape[axis], a["mode"])
    idx = idx.reshape(data.shape[:axis] + (1,) + data.shape[axis + 1 :])
    return axis, idx


def _last_axis_rows(data, axis, idx):
    """Whether ``pick`` along ``axis`` is one element per row of a (rows, n) matrix: the last
    axis of a non-empty array (then one fancy index replaces take_along_axis's index grids)."""
    return axis == data.ndim - 1 and data.shape[axis] > 0 and idx.size > 0


@functools.lru_cache(maxsize=64)
def _row_starts(rows, width):
    """``arange(rows) * width``, read-only: the flat position of each row's first element."""
    starts = numpy.arange(rows, dtype=numpy.int64) * width
    starts.flags.writeable = False
    return starts


def _flat_picks(xp, data, axis, idx):
    """On NumPy, for one pick per row of the last axis: each picked element's position in the
    flattened data (one ``take``/store instead of a fancy index and its ``arange``), else None.
    ``idx`` is the wrapped copy from :func:`_pick_parts`, so it is offset in place."""
    if xp is not numpy or not _last_axis_rows(data, axis, idx):
        return None
    flat = idx.reshape(-1)
    flat += _row_starts(flat.size, data.shape[axis])
    return flat


def _pick(xp, inputs, a):
    data, idx = inputs
    axis, idx = _pick_parts(xp, a, data, idx)
    flat = _flat_picks(xp, data, axis, idx)
    if flat is not None:
        out = data.reshape(-1).take(flat).reshape(idx.shape)
    elif _last_axis_rows(data, axis, idx):
        rows = data.reshape(-1, data.shape[axis])
        out = rows[xp.arange(idx.size), idx.reshape(-1)].reshape(idx.shape)
    else:
        out = xp.take_along_axis(data, idx, axis=axis)
    return out if a["keepdims"] else out.reshape(out.shape[:axis] + out.shape[axis + 1 :])


def _pick_into(xp, inputs, a, outs):
    """Planned execution: the picked elements taken straight into the output buffer."""
    data, idx = inputs
    out = outs[0]
    axis, idx = _pick_parts(xp, a, data, idx)
    flat = _flat_picks(xp, data, axis, idx)
    if flat is not None and out.flags.c_contiguous and out.dtype == data.dtype:
        data.reshape(-1).take(flat, out=out.reshape(-1))
        return
    xp.copyto(out, _pick(xp, inputs, a), casting="unsafe")


def _backward_pick_into(xp, inputs, a, outs):
    """The gradient at each picked position, zero elsewhere: one store per row along the last
    axis (flat positions on NumPy, a fancy index on CuPy), else a masked copy (no temporaries
    of ``where`` and ``astype``)."""
    g, data, idx = inputs
    axis, idx = _pick_parts(xp, a, data, idx)
    out = outs[0]
    out.fill(0)
    if _last_axis_rows(data, axis, idx) and out.flags.c_contiguous:
        flat = _flat_picks(xp, data, axis, idx)
        if flat is not None:
            out.reshape(-1)[flat] = g.reshape(-1)
            return
        rows = out.reshape(-1, data.shape[axis])   # NOTE: a view (contiguous), written through
        rows[xp.arange(idx.size), idx.reshape(-1)] = g.reshape(-1)
        return
    positions = xp.arange(data.shape[axis]).reshape((-1,) + (1,) * (data.ndim - axis - 1))
    xp.copyto(out, g.reshape(idx.shape), where=positions == idx)


def _backward_pick(xp, inputs, a):
    out = xp.empty(inputs[1].shape, inputs[0].dtype)
    _backward_pick_into(xp, inputs, a, [out])
    return out


def _pick_infer(a, in_shapes):
    if any_unknown(in_shapes[:1]):
        return [None]
    s = tuple(in_shapes[0])
    axis = norm_axis("pick", -1 if a["axis"] is None else a["axis"], len(s))
    return [s[:axis] + ((1,) if a["keepdims"] else ()) + s[axis + 1 :]]


_PICK_ATTRS = (
    Attr("axis", "int", -1, optional=True),
    Attr("keepdims", "bool", False),
    Attr("mode", "str", "clip", choices=("clip", "wrap")),
)
_register_gather("pick", _pick, _backward_pick, ("data", "index"), _PICK_ATTRS, _pick_infer,
                 "One element per position along ``axis``, chosen by ``index``.",
                 "Gradient of ``pick``.", backward_into=_backward_pick_into,
                 aliases=("_npx_pick", "choose_element_0index"), npx_name="pick",
                 compute_into=_pick_into)


def _one_hot(xp, inputs, a):
    idx = inputs[0].astype(numpy.int64)
    hot = idx[..., None] == xp.arange(a["depth"])
    return xp.where(hot, a["on_value"], a["off_value"]).astype(a["dtype"])


register(
    Op(
        name="one_hot",
        aliases=("_npx_one_hot",),
        compute=_one_hot,
        input_names=("indices",),
        attrs=(
            Attr("depth", "int", check=(lambda n: n >= 0, "must not be negative")),
            Attr("on_value", "float", 1.0),
            Attr("off_value", "float", 0.0),
            Attr("dtype", "dtype", "float32"),
        ),
        infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0]) + (a["depth"],)],
        infer_type=lambda a, d: [a["dtype"]],
        gradient=lambda node, g: [None],
        npx_name="one_hot",
        save_inputs=False,
        save_outputs=False,
        doc="One-hot vectors of length ``depth`` for each index.",
    )
)


def _batch_take(xp, inputs, a):
    data, idx = inputs
    rows = idx.size
    if rows == 0 or data.size % rows:
        raise MXNetIndexError(f"batch_take: {data.shape} does not split into {rows} rows, one per "
                              "index")
    table = data.reshape(rows, -1)
    picks = xp.clip(idx.reshape(-1).astype(numpy.int64), 0, table.shape[1] - 1)
    return table[xp.arange(rows), picks].reshape(idx.shape)


register(
    Op(
        name="batch_take",
        compute=_batch_take,
        num_inputs=2,
        input_names=("a", "indices"),
        infer_shape=lambda a, s: [None if s[1] is None else tuple(s[1])],
        infer_type=lambda a, d: [d[0]],
        save_outputs=False,
        doc="``a[i, indices[i]]`` for each row ``i`` of ``a`` (indices clipped to the row, as "
            "MXNet; no gradient, as MXNet's).",
    )
)


def _fill_element_0index(xp, inputs, a):
    lhs, mhs, rhs = inputs
    out = lhs.copy()
    rows = xp.arange(lhs.shape[0])
    out[rows, _wrap_indices(xp, "fill_element_0index", rhs, lhs.shape[1], "clip")] = mhs
    return out


register(
    Op(
        name="fill_element_0index",
        compute=_fill_element_0index,
        num_inputs=3,
        input_names=("lhs", "mhs", "rhs"),
        infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0])],
        infer_type=lambda a, d: [d[0]],
        save_outputs=False,
        gradient=lambda node, g: [
            F.fill_element_0index(g[0], F.zeros_like(node.inputs[1]), node.inputs[2]),
            F.pick(g[0], node.inputs[2], axis=1), None],
        doc="``lhs`` with ``lhs[i, rhs[i]] = mhs[i]`` for each row ``i`` (MXNet 1.x).",
    )
)
