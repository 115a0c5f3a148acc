"""``npx.index_add`` and ``npx.index_update``: ``a[ind] += val`` and ``a[ind] = val`` as ops that
return a new array (MXNet 2.0's ``_npx_index_add``/``_npx_index_update``); and MXNet's
``_npi_boolean_mask_assign_scalar``/``_tensor`` (``a[mask] = value``, no gradient, as MXNet).

``ind`` holds one column of indices per position, shape ``(k, n)`` (a vector is ``(1, n)``, a
scalar ``(1, 1)``): position ``i`` is ``a[ind[0, i], ..., ind[k-1, i]]``. ``val`` broadcasts
(right-aligned) to ``(n,) + a.shape[k:]``; repeated positions add up in ``index_add``. The
gradient of ``a`` is the head (zeroed at the updated positions for ``index_update``), that of
``val`` the head gathered at the positions and summed back to ``val``'s shape.

Example
-------
>>> import mxlab as mx
>>> a = mx.np.zeros((2, 3))
>>> mx.npx.index_add(a, mx.np.array([[0, 0], [1, 1]], dtype="int32"), mx.np.array(2.0))
array([[0., 4., 0.],
       [0., 0., 0.]])
"""
import numpy

from ..base import MXNetIndexError, MXNetTypeError, MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = []


def _positions(name, a, ind):
    """``(key, n)``: the index tuple of the ``n`` positions ``ind`` names in ``a``."""
    if ind.dtype.kind not in "iu":
        raise MXNetTypeError(f"{name}: 'ind' must be an integer array, got {ind.dtype}")
    if ind.size == 0:
        raise MXNetValueError(f"{name}: 'ind' is empty; use 'add' instead")
    if ind.ndim > 2:
        raise MXNetValueError(f"{name}: 'ind' has at most 2 dims, got shape {ind.shape}")
    ind = ind.reshape(1, -1) if ind.ndim < 2 else ind
    if ind.shape[0] > a.ndim:
        raise MXNetIndexError(f"{name}: too many indices ({ind.shape[0]}) for an array of "
                              f"dimension {a.ndim}")
    for axis, row in enumerate(ind):
        bad = (row < 0) | (row >= a.shape[axis])
        if bad.any():
            raise MXNetIndexError(f"{name}: index {int(row[bad][0])} is out of bounds for axis "
                                  f"{axis} with size {a.shape[axis]}")
    return tuple(row.astype(numpy.int64) for row in ind), ind.shape[1]


def _spread(name, xp, a, ind, val):
    key, n = _positions(name, a, ind)
    if a.ndim == 0:
        raise MXNetValueError(f"{name}: the first input is a scalar; use '+' or '=' instead")
    if val.dtype != a.dtype:
        raise MXNetTypeError(f"{name}: only supports a.dtype == val.dtype, got {a.dtype} and "
                             f"{val.dtype}")
    target = (n,) + a.shape[len(key):]
    try:
        return key, xp.broadcast_to(val, target)
    except ValueError:
        raise MXNetValueError(f"{name}: cannot broadcast 'val' of shape {val.shape} to "
                              f"{target}") from None


def _index_add(xp, inputs, attrs):
    a, ind, val = inputs
    key, spread = _spread("index_add", xp, a, ind, val)
    out = a.copy()
    xp.add.at(out, key, spread)
    return out


def _index_update(xp, inputs, attrs):
    a, ind, val = inputs
    key, spread = _spread("index_update", xp, a, ind, val)
    out = a.copy()
    out[key] = spread
    return out


def _val_grad(xp, inputs, attrs):
    """The head at the positions, summed back to ``val``'s shape."""
    g, ind, val = inputs
    key, _ = _positions("index_add", g, ind)
    picked = g[key]
    lead = picked.ndim - val.ndim
    picked = picked.sum(axis=tuple(range(lead))) if lead else picked
    axes = tuple(i for i, d in enumerate(val.shape) if d == 1 and picked.shape[i] != 1)
    return picked.sum(axis=axes, keepdims=True).reshape(val.shape).astype(val.dtype)


def _a_grad_update(xp, inputs, attrs):
    g, ind = inputs
    key, _ = _positions("index_update", g, ind)
    out = g.copy()
    out[key] = 0
    return out


def _grad(update):
    def grad(node, g):
        a_grad = F._backward_index_update_a(g[0], node.inputs[1]) if update else F._copy(g[0])
        return [a_grad, None, F._backward_index_modify_val(g[0], node.inputs[1], node.inputs[2])]
    return grad


for _name, _compute, _update in (("index_add", _index_add, False),
                                 ("index_update", _index_update, True)):
    register(Op(name=f"_npx_{_name}", compute=_compute, num_inputs=3,
                input_names=("a", "ind", "val"), npx_name=_name, nd_names=(),
                infer_shape=lambda attrs, s: [s[0]], infer_type=lambda attrs, d: [d[0]],
                gradient=_grad(_update), save_outputs=False,
                doc=f"``a`` with ``val`` {'written' if _update else 'added'} at the positions "
                    "of ``ind`` (one column per position)."))
register(Op(name="_backward_index_modify_val", compute=_val_grad, num_inputs=3, hidden=True,
            input_names=("ograd", "ind", "val"), nd_names=(),
            infer_shape=lambda attrs, s: [s[2]], infer_type=lambda attrs, d: [d[2]],
            doc="Gradient of index_add/index_update w.r.t. ``val``."))
register(Op(name="_backward_index_update_a", compute=_a_grad_update, num_inputs=2, hidden=True,
            input_names=("ograd", "ind"), nd_names=(),
            infer_shape=lambda attrs, s: [s[0]], infer_type=lambda attrs, d: [d[0]],
            doc="Gradient of index_update w.r.t. ``a``: the head, zero at the positions."))


# -- boolean_mask_assign: ``data[..., mask, ...] = value`` (MXNet's ``x[mask] = v``) -------------
def _mask_key(name, data, mask, start_axis):
    span = data.shape[start_axis:start_axis + mask.ndim]
    if mask.dtype.kind != "b" or span != mask.shape:
        raise MXNetValueError(f"{name}: mask of shape {mask.shape} ({mask.dtype}) does not "
                              f"match data of shape {data.shape} from axis {start_axis}")
    return (slice(None),) * start_axis + (mask,)


def _assign_scalar(xp, inputs, attrs):
    data, mask = inputs
    out = data.copy()
    out[_mask_key("boolean_mask_assign_scalar", data, mask, attrs["start_axis"])] = attrs["value"]
    return out


def _assign_tensor(xp, inputs, attrs):
    data, mask, value = inputs
    out = data.copy()
    out[_mask_key("boolean_mask_assign_tensor", data, mask, attrs["start_axis"])] = value
    return out


_START = Attr("start_axis", "int", 0, doc="the axis of data the mask's first axis covers")
register(Op(name="_npi_boolean_mask_assign_scalar", compute=_assign_scalar, num_inputs=2,
            input_names=("data", "mask"), nd_names=(), hidden=True,
            attrs=(Attr("value", "float", doc="value at the masked positions"), _START),
            infer_shape=lambda attrs, s: [s[0]], infer_type=lambda attrs, d: [d[0]],
            gradient=lambda node, g: [None, None], save_outputs=False,
            doc="``data`` with ``value`` where ``mask`` is True (from axis ``start_axis``)."))
register(Op(name="_npi_boolean_mask_assign_tensor", compute=_assign_tensor, num_inputs=3,
            input_names=("data", "mask", "value"), nd_names=(), hidden=True, attrs=(_START,),
            infer_shape=lambda attrs, s: [s[0]], infer_type=lambda attrs, d: [d[0]],
            gradient=lambda node, g: [None, None, None], save_outputs=False,
            doc="``data`` with ``value``'s entries where ``mask`` is True."))
