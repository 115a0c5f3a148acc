"""The ops MXNet runs with a sparse kernel (its ``FComputeEx``), with MXNet's output storage types.

Each function here takes sparse or dense arrays; with no sparse input (or while autograd records,
whose tape runs the dense rule) it is the ``mx.nd`` op itself. :func:`install` puts them into
``mx.nd`` in place of the generated functions of the same name, so ``mx.nd.dot(csr, w)`` and
``x.abs()`` keep sparsity; the dense arrays' arithmetic operators are untouched (only the sparse
classes' operators come here). What is not listed runs on the dense form (storage fallback).

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[0., -2.], [0., 0.]]).tostype('row_sparse')
>>> y = abs(x)
>>> y.stype, y.indices.asnumpy().tolist(), y.asnumpy().tolist()
('row_sparse', [0], [[0.0, 2.0], [0.0, 0.0]])
"""
import numbers

import numpy

from ..base import MXNetValueError
from ..imperative import STATE
from ..ops import sparse_kernels as K
from .ndarray import NDArray, _namespaces
from .sparse_array import SPARSE_FUNCS, BaseSparseNDArray, make_sparse, to_stype

__all__ = ["add", "subtract", "multiply", "divide", "dot", "retain", "cast_storage",
           "elemwise_add", "elemwise_sub", "elemwise_mul", "add_n", "square_sum", "where",
           "zeros_like", "slice", "install"]

_ORIG = {}          # mx.nd name -> the generated (dense) function it replaced

# NOTE: unary ops with f(0) == 0 that MXNet runs on the stored values only (output stype = input's)
UNARY_KEEP = ("abs", "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "square", "sqrt",
              "sin", "tan", "arcsin", "arctan", "sinh", "tanh", "arcsinh", "arctanh", "degrees",
              "radians", "expm1", "log1p", "relu", "negative", "_copy", "copy")


def _nd(name):
    return _ORIG.get(name) or getattr(_namespaces["nd"], name)


def _sparse(x):
    return isinstance(x, BaseSparseNDArray)


def _finish(result, out):
    if out is None:
        return result
    if _sparse(out):
        return out._assign_dense(result)
    return result.copyto(out)


def _with_data(x, data):
    """``x``'s sparsity pattern holding new stored values ``data``."""
    comps = x._components()
    return make_sparse(x.stype, (data,) + tuple(c.copy() for c in comps[1:]), x.shape,
                       x.context, data.dtype)


def _on_values(x, name, **kwargs):
    """The dense op ``name`` applied to the stored values only (f(0) == 0 keeps the pattern)."""
    values = NDArray._wrap(x._components()[0], x.context)
    return _with_data(x, _nd(name)(values, **kwargs).asnumpy())


def _unary(name):
    def fn(data, *args, out=None, **kwargs):
        if not _sparse(data) or args or STATE.recording:
            return _ORIG[name](data, *args, out=out, **kwargs)
        kwargs.pop("name", None)
        return _finish(_on_values(data, name, **kwargs), out)
    fn.__name__ = name
    fn.__doc__ = f"``{name}``; on a sparse array it maps the stored values (stype kept)."
    return fn


# -- binary: the sparse kernels and the zero-preserving scalar rule ------------------------------
def _keys(x):
    """Sorted unique keys and their values: rows of a row_sparse array, flat positions of csr."""
    comps = x._components()
    if x.stype == "row_sparse":
        data, idx = comps
        order = numpy.argsort(idx, kind="stable")
        return idx[order], data[order]
    data, indices, indptr = K.csr_canonical(*comps, x.shape[1])
    return K.csr_rows(indptr) * x.shape[1] + indices, data


def _from_keys(stype, keys, values, shape, device):
    if stype == "row_sparse":
        return make_sparse(stype, (values, keys), shape, device, values.dtype)
    rows, cols = numpy.divmod(keys, shape[1])
    indptr = numpy.zeros(shape[0] + 1, K.INDEX)
    numpy.cumsum(numpy.bincount(rows, minlength=shape[0]), out=indptr[1:])
    return make_sparse(stype, (values, cols.astype(K.INDEX), indptr), shape, device,
                       values.dtype)


def _merge(kind, lhs, rhs):
    keys, values = K.merge(kind, *_keys(lhs), *_keys(rhs))
    return _from_keys(lhs.stype, keys, values, lhs.shape, lhs.context)


def _mul_dense(sp, dense):
    """``sp * dense`` (same shape): the dense values at the stored positions."""
    other = numpy.asarray(dense._get_data())
    comps = sp._components()
    if sp.stype == "row_sparse":
        return _with_data(sp, comps[0] * other[comps[1]])
    return _with_data(sp, comps[0] * other[K.csr_rows(comps[2]), comps[1]])


_SCALAR_FN = {"add": numpy.add, "subtract": numpy.subtract, "multiply": numpy.multiply,
              "divide": numpy.true_divide, "power": numpy.power, "equal": numpy.equal,
              "not_equal": numpy.not_equal, "greater": numpy.greater,
              "greater_equal": numpy.greater_equal, "lesser": numpy.less,
              "lesser_equal": numpy.less_equal}
_ND_NAME = {"divide": "true_divide", "lesser": "less", "lesser_equal": "less_equal"}


def _keeps_zero(name, lhs, rhs, dtype):
    zero = numpy.zeros((), dtype)
    with numpy.errstate(all="ignore"):
        value = _SCALAR_FN[name](zero, rhs) if lhs is None else _SCALAR_FN[name](lhs, zero)
    return value == 0 and not numpy.isnan(value)


def _binary(name, kernel=None):
    nd_name = _ND_NAME.get(name, name)

    def fn(lhs, rhs, out=None):
        dense = _nd(nd_name)
        lsp, rsp = _sparse(lhs), _sparse(rhs)
        if STATE.recording or not (lsp or rsp):
            return dense(lhs, rhs, out=out)
        scalar = isinstance(rhs, (numbers.Number, numpy.generic)) or \
            isinstance(lhs, (numbers.Number, numpy.generic))
        if scalar:
            sp, left = (lhs, None) if lsp else (rhs, lhs)
            if _keeps_zero(name, left, rhs if lsp else None, sp._dtype):
                values = NDArray._wrap(sp._components()[0], sp.context)
                new = dense(values, rhs) if lsp else dense(lhs, values)
                return _finish(_with_data(sp, new.asnumpy().astype(
                    new.asnumpy().dtype if name in _CMP else sp._dtype)), out)
        elif kernel and tuple(lhs.shape) == tuple(rhs.shape):
            if lsp and rsp and lhs.stype == rhs.stype:
                return _finish(_merge(kernel, lhs, rhs), out)
            if kernel == "mul" and isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
                return _finish(_mul_dense(lhs, rhs) if lsp else _mul_dense(rhs, lhs), out)
        return dense(lhs, rhs, out=out)
    fn.__name__ = name
    return fn


_CMP = ("equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal")
add = _binary("add", "add")
subtract = _binary("subtract", "sub")
multiply = _binary("multiply", "mul")
divide = _binary("divide")


def _elemwise(name, kind):
    def fn(lhs, rhs, out=None, **kwargs):
        if STATE.recording or not (_sparse(lhs) or _sparse(rhs)):
            return _ORIG[name](lhs, rhs, out=out, **kwargs)
        if tuple(lhs.shape) != tuple(rhs.shape):
            raise MXNetValueError(f"{name}: shapes {tuple(lhs.shape)} and {tuple(rhs.shape)} "
                                  "differ")
        if _sparse(lhs) and _sparse(rhs) and lhs.stype == rhs.stype:
            return _finish(_merge(kind, lhs, rhs), out)
        if kind == "mul":
            return _finish(_mul_dense(lhs, rhs) if _sparse(lhs) else _mul_dense(rhs, lhs), out)
        return _ORIG[name](lhs, rhs, out=out)
    fn.__name__ = name
    return fn


elemwise_add = _elemwise("elemwise_add", "add")
elemwise_sub = _elemwise("elemwise_sub", "sub")
elemwise_mul = _elemwise("elemwise_mul", "mul")


def add_n(*args, out=None, **kwargs):
    """Sum of the arrays: row_sparse when all are row_sparse, csr when all are csr."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    stypes = {getattr(a, "stype", "default") for a in args}
    if STATE.recording or len(stypes) != 1 or stypes == {"default"}:
        return _ORIG["add_n"](*args, out=out, **kwargs)
    total = args[0]
    for other in args[1:]:
        total = _merge("add", total, other)
    return _finish(total.copy() if total is args[0] else total, out)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None, **kw):
    """MXNet's sparse ``dot``: csr.dense and csr.rsp give dense, csr.T.dense and csr.T.rsp give
    row_sparse, dense.csr gives csr; others run on the dense form."""
    if STATE.recording or not (_sparse(lhs) or _sparse(rhs)):
        return _ORIG["dot"](lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b,
                            out=out, **kw)
    if forward_stype not in (None, "default", "csr", "row_sparse"):
        raise MXNetValueError(f"dot: unknown forward_stype {forward_stype!r}")
    if getattr(lhs, "stype", None) == "csr" and not transpose_b and \
            getattr(rhs, "stype", None) != "csr":
        data, indices, indptr = lhs._components()
        other = numpy.asarray(rhs._get_data())
        vec = other.ndim == 1
        other = other.reshape(-1, 1) if vec else other.reshape(other.shape[0], -1)
        if transpose_a:
            values, rows = K.csr_t_dot_dense(data, indices, indptr, other, lhs.shape[1])
            shape = (lhs.shape[1],) + tuple(rhs.shape[1:])
            result = make_sparse("row_sparse", (values.reshape((-1,) + shape[1:]), rows), shape,
                                 lhs.context, values.dtype)
        else:
            values = K.csr_dot_dense(data, indices, indptr, other)
            shape = (lhs.shape[0],) + tuple(rhs.shape[1:])
            result = NDArray._wrap(values.reshape(shape), lhs.context)
        return _finish(_as_stype(result, forward_stype), out)
    result = _ORIG["dot"](lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b, **kw)
    default = "csr" if (getattr(rhs, "stype", None) == "csr" and not _sparse(lhs)
                        and not transpose_a and not transpose_b) else None
    return _finish(_as_stype(result, forward_stype or default), out)


def _as_stype(arr, stype):
    if stype is None or stype == arr.stype:
        return arr
    return to_stype(arr, stype)


def retain(data=None, indices=None, out=None, **kwargs):
    """The stored rows of a row_sparse ``data`` whose index is in ``indices`` (row_sparse)."""
    if kwargs:
        raise MXNetValueError(f"retain: unknown arguments {sorted(kwargs)}")
    if getattr(data, "stype", None) != "row_sparse":
        raise MXNetValueError("retain: data must be a row_sparse array, got storage type "
                              f"{getattr(data, 'stype', type(data).__name__)!r}")
    ids = numpy.asarray(indices.asnumpy() if isinstance(indices, NDArray) else indices)
    values, rows = K.rsp_retain(*data._components(), ids.astype(K.INDEX))
    return _finish(make_sparse("row_sparse", (values, rows), data.shape, data.context,
                               data._dtype), out)


def cast_storage(data, stype, out=None):
    """``data`` in storage type ``stype`` (any direction; a new array)."""
    return _finish(to_stype(data, stype), out)


def square_sum(data, axis=None, keepdims=False, out=None, **kwargs):
    """``sum(data ** 2, axis)``; a row_sparse input with axis=1, keepdims=True stays
    row_sparse."""
    if not _sparse(data) or STATE.recording:
        return _finish(_nd("sum")(_nd("square")(data), axis=axis, keepdims=keepdims), out)
    if data.stype == "row_sparse" and axis in (1, (1,), -1) and keepdims and \
            len(data.shape) == 2:
        values, rows = data._components()
        summed = (values * values).sum(axis=1, keepdims=True)
        return _finish(make_sparse("row_sparse", (summed, rows.copy()), (data.shape[0], 1),
                                   data.context, data._dtype), out)
    squared = _on_values(data, "square")
    return _finish(_nd("sum")(squared, axis=axis, keepdims=keepdims), out)


def where(condition, x=None, y=None, out=None, **kwargs):
    """``where`` on the dense forms (MXNet's csr condition also gives a dense result)."""
    return _ORIG["where"](condition, x, y, out=out, **kwargs)


def zeros_like(data, out=None, **kwargs):
    if not _sparse(data):
        return _ORIG["zeros_like"](data, out=out, **kwargs)
    from .sparse_array import empty_components
    comps = empty_components(data.stype, data.shape, data._dtype)
    return _finish(make_sparse(data.stype, comps, data.shape, data.context, data._dtype), out)


def slice(data, begin=None, end=None, step=None, out=None, **kwargs):  # noqa: A001
    """Rows (and columns) of a csr matrix stay csr; any step runs on the dense form."""
    if data.__class__ is NDArray or getattr(data, "stype", None) != "csr" or \
            STATE.recording or (step and any(s not in (None, 1) for s in step)):
        return _ORIG["slice"](data, begin=begin, end=end, step=step, out=out, **kwargs)
    begin = tuple(begin) + (None,) * (2 - len(begin))
    end = tuple(end) + (None,) * (2 - len(end))
    rows = range(data.shape[0])[begin[0]:end[0]]
    part = data._rows(rows.start, max(rows.start, rows.stop))
    cols = range(data.shape[1])[begin[1]:end[1]]
    if len(cols) != data.shape[1]:
        dense = part.asnumpy()[:, cols.start:cols.stop]
        part = to_stype(NDArray._wrap(dense, data.context), "csr")
    return _finish(part, out)


def _take(a, indices, *args, out=None, **kwargs):
    result = _ORIG["take"](a, indices, *args, out=None, **kwargs)
    if getattr(a, "stype", None) == "csr" and result.ndim == 2 and not STATE.recording:
        result = to_stype(result, "csr")
    return _finish(result, out)


def _lazy_update(name):
    """MXNet's ``lazy_update`` of a fused update op with a row_sparse gradient: only the rows the
    gradient stores (of the weight and of each state) are updated, by the dense op on them."""
    def fn(weight, grad, *states, out=None, **kwargs):
        dense = _ORIG[name]
        if STATE.recording or getattr(grad, "stype", None) != "row_sparse" or \
                not kwargs.get("lazy_update", True) or _sparse(weight) or \
                any(_sparse(s) for s in states):
            return dense(weight, grad, *states, out=out, **kwargs)
        values, rows = grad._components()
        subs = [NDArray._wrap(numpy.ascontiguousarray(a.asnumpy()[rows]), a.context)
                for a in (weight,) + states]
        dense(subs[0], NDArray._wrap(values.copy(), grad.context), *subs[1:], out=subs[0],
              **kwargs)
        for target, part in zip([out if out is not None else weight, *states], subs):
            host = target.asnumpy()
            host[rows] = part.asnumpy()
            target[:] = NDArray._wrap(host, target.context)
        return out if out is not None else weight
    fn.__name__ = name
    return fn


_REPLACE = {"dot": dot, "elemwise_add": elemwise_add, "elemwise_sub": elemwise_sub,
            "elemwise_mul": elemwise_mul, "add_n": add_n, "ElementWiseSum": add_n,
            "cast_storage": cast_storage, "zeros_like": zeros_like, "slice": slice,
            "take": _take, "_square_sum": square_sum}


def _guarded(name, impl):
    """``impl`` for calls with a sparse array among the positional arguments, else the dense
    function (one isinstance per argument: the only cost to dense calls of these few ops)."""
    dense = _ORIG[name]

    def fn(*args, **kwargs):
        for a in args:
            if isinstance(a, BaseSparseNDArray):
                return impl(*args, **kwargs)
        for a in kwargs.values():
            if isinstance(a, BaseSparseNDArray):
                return impl(*args, **kwargs)
        return dense(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = dense.__doc__
    return fn


def install():
    """Put the sparse-aware functions into ``mx.nd`` (once), and register the classes'
    operators."""
    nd = _namespaces["nd"]
    if _ORIG:
        return
    names = dict(_REPLACE)
    names.update({n: _unary(n) for n in UNARY_KEEP})
    names.update({n: _lazy_update(n) for n in ("sgd_update", "sgd_mom_update")})
    for name, impl in names.items():
        original = getattr(nd, name, None)
        if original is None:
            continue
        _ORIG[name] = original
        setattr(nd, name, _guarded(name, impl))
    internal = getattr(nd, "_internal", None)
    if internal is not None and "_square_sum" not in _ORIG:
        internal._square_sum = square_sum
    nd.cast_storage = cast_storage
    nd._ORIG_WHERE = _ORIG.setdefault("where", nd.where)
    for name in _SCALAR_FN:
        SPARSE_FUNCS[name] = _binary(name, {"add": "add", "subtract": "sub",
                                            "multiply": "mul"}.get(name))
    SPARSE_FUNCS["negative"] = lambda x: _unary("negative")(x) if "negative" in _ORIG \
        else _nd("negative")(x)
    SPARSE_FUNCS["abs"] = lambda x: getattr(nd, "abs")(x)
    SPARSE_FUNCS["retain"] = retain


def getnnz(data=None, axis=None, out=None):
    """Stored values of a csr matrix: in all (``axis=None``) or per row (``axis=1``)."""
    if getattr(data, "stype", None) != "csr":
        raise MXNetValueError("getnnz: data must be a csr array")
    _, indices, indptr = data._components()
    if axis is None:
        result = numpy.array([len(indices)], dtype=numpy.int64)
    elif axis in (1, -1):
        result = numpy.diff(indptr).astype(numpy.int64)
    elif axis == 0:
        result = numpy.bincount(indices, minlength=data.shape[1]).astype(numpy.int64)
    else:
        raise MXNetValueError(f"getnnz: axis must be None, 0 or 1, got {axis}")
    return _finish(NDArray._wrap(result, data.context), out)


def quadratic(data=None, a=0.0, b=0.0, c=0.0, out=None, **kwargs):
    """``a x² + b x + c``: with ``c == 0`` a sparse input keeps its storage type (MXNet's)."""
    dense = _ORIG["quadratic"]
    if not _sparse(data) or c != 0 or STATE.recording:
        return dense(data, a=a, b=b, c=c, out=out, **kwargs)
    values = NDArray._wrap(data._components()[0], data.context)
    return _finish(_with_data(data, dense(values, a=a, b=b, c=c).asnumpy()), out)
