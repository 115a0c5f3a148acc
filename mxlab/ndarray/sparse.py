"""``mx.nd.sparse``: MXNet's sparse storage types and their constructors.

:class:`CSRNDArray` (``csr``: ``data``, ``indices``, ``indptr``) and :class:`RowSparseNDArray`
(``row_sparse``: ``data``, ``indices``) are ``NDArray`` subclasses whose components are dense
NumPy arrays (``ndarray/sparse_array.py``). Ops with a sparse kernel (``dot``, ``elemwise_*``,
``add_n``, ``retain``, ``square_sum``, unary ops keeping zeros, ...) are in
``ndarray/sparse_ops.py``; every other op reads the dense form and returns a dense array (MXNet's
storage fallback). Any other name here is the ``mx.nd`` op of that name.

Example
-------
>>> import mxlab as mx
>>> a = mx.nd.sparse.csr_matrix(([1., 2.], [1, 0], [0, 1, 2]), shape=(2, 2))
>>> a.stype, a.asnumpy().tolist()
('csr', [[0.0, 1.0], [2.0, 0.0]])
>>> mx.nd.sparse.dot(a, mx.nd.ones((2, 1))).asnumpy().tolist()
[[1.0], [2.0]]
"""
import numbers

import numpy

from ..base import MXNetValueError
from ..device import current_device
from ..ops import sparse_kernels as _K
from .ndarray import DEFAULT_DTYPE, NDArray
from .sparse_array import (STORAGE_AUX_TYPES, BaseSparseNDArray, CSRNDArray,  # noqa: F401
                           RowSparseNDArray, empty_components, make_sparse, to_stype)
from . import contrib as _contrib, sparse_ops as _ops
from .sparse_ops import (add, subtract, multiply, divide, dot, retain, cast_storage,  # noqa
                         elemwise_add, elemwise_sub, elemwise_mul, add_n, square_sum, where,
                         zeros_like, slice)

__all__ = ["csr_matrix", "row_sparse_array", "BaseSparseNDArray", "CSRNDArray",
           "RowSparseNDArray", "add", "subtract", "multiply", "divide", "zeros", "empty",
           "array", "dot", "retain", "cast_storage", "elemwise_add", "elemwise_sub",
           "elemwise_mul", "add_n", "square_sum", "where", "zeros_like", "slice"]

_INDEX = _K.INDEX


def _scipy_sparse():
    try:
        import scipy.sparse as spsp
    except ImportError:   # NOTE: scipy is optional (the compat extra)
        return None
    return spsp


def _is_scipy(value):
    spsp = _scipy_sparse()
    return spsp is not None and spsp.issparse(value)


def _default_dtype(src, dtype):
    """MXNet's rule: the source's dtype for NDArrays, NumPy and scipy arrays, else float32."""
    if dtype is not None:
        return numpy.dtype(dtype)
    if isinstance(src, (NDArray, numpy.ndarray)) or _is_scipy(src):
        return numpy.dtype(src.dtype)
    return numpy.dtype(DEFAULT_DTYPE)


def _host(value, dtype=None):
    if isinstance(value, NDArray):
        value = value.asnumpy()
    try:
        return numpy.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise MXNetValueError(f"values must be array like objects: {exc}") from None


def _check_shape(given, inferred):
    if given and inferred and tuple(given) != tuple(inferred):
        raise MXNetValueError(f"Shape mismatch detected. {tuple(inferred)} v.s. {tuple(given)}")


def _is_shape(arg):
    return all(isinstance(s, (numbers.Integral, numpy.integer)) for s in arg)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` (no stored values)."""
    if stype == "default":
        from . import creation
        return creation.dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in ("csr", "row_sparse"):
        raise MXNetValueError(f"unknown storage type: {stype}")
    shape = (int(shape),) if isinstance(shape, (numbers.Integral, numpy.integer)) else \
        tuple(int(s) for s in shape)
    if stype == "csr" and len(shape) != 2:
        raise MXNetValueError(f"zeros: csr storage needs a 2-d shape, got {shape}")
    dtype = numpy.dtype(dtype or DEFAULT_DTYPE)
    return make_sparse(stype, empty_components(stype, shape, dtype), shape,
                       ctx or current_device(), dtype)


def empty(stype, shape, ctx=None, dtype=None):
    """Same as :func:`zeros` (a sparse array stores nothing until written)."""
    if stype not in ("csr", "row_sparse"):
        raise MXNetValueError(f"unknown stype : {stype}")
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a CSRNDArray/RowSparseNDArray or a ``scipy.sparse`` matrix."""
    ctx = ctx or (source_array.context if isinstance(source_array, NDArray) else None)
    if isinstance(source_array, BaseSparseNDArray):
        dtype = _default_dtype(source_array, dtype)
        comps = tuple(numpy.array(c) for c in source_array._components())
        return make_sparse(source_array.stype, (comps[0].astype(dtype),) + comps[1:],
                           source_array.shape, ctx, dtype)
    if _is_scipy(source_array):
        dtype = _default_dtype(source_array, dtype)
        csr = source_array.tocsr(copy=True)
        csr.sum_duplicates()
        csr.sort_indices()
        comps = (csr.data.astype(dtype), csr.indices.astype(_INDEX), csr.indptr.astype(_INDEX))
        return make_sparse("csr", comps, csr.shape, ctx, dtype)
    raise MXNetValueError("Unexpected source_array type: mx.nd.sparse.array takes a "
                          "CSRNDArray, RowSparseNDArray or scipy.sparse matrix, got "
                          f"{type(source_array).__name__}")


def _from_dense(arg, shape, ctx, dtype, stype):
    from .ndarray import array as _array
    dtype = _default_dtype(arg, dtype)
    dense = _array(arg, dtype=dtype, device=ctx, cls=NDArray)
    _check_shape(shape, dense.shape)
    return to_stype(dense, stype)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A :class:`CSRNDArray` from ``(data, indices, indptr)``, ``(data, (row, col))``, a shape
    (all zeros), a dense array, a CSRNDArray or a ``scipy.sparse.csr_matrix``."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            return _csr_from_coo(arg1[0], arg1[1], shape, ctx, dtype)
        if len(arg1) == 2 and _is_shape(arg1):
            _check_shape(shape, arg1)
            return empty("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(arg1[0], arg1[1], arg1[2], shape, ctx, dtype)
        raise MXNetValueError(f"Unexpected length of input tuple: {len(arg1)}")
    if isinstance(arg1, CSRNDArray) or _is_scipy(arg1):
        _check_shape(shape, arg1.shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise MXNetValueError("Unexpected input type: RowSparseNDArray")
    return _from_dense(arg1, shape, ctx, dtype, "csr")


def _csr_from_coo(data, row_col, shape, ctx, dtype):
    dtype = _default_dtype(data, dtype)
    values = _host(data, dtype)
    rows, cols = (_host(v).astype(_INDEX) for v in row_col)
    if shape is None:
        shape = (int(rows.max()) + 1 if len(rows) else 0, int(cols.max()) + 1 if len(cols) else 0)
    order = numpy.lexsort((cols, rows))
    indptr = numpy.zeros(shape[0] + 1, _INDEX)
    numpy.cumsum(numpy.bincount(rows, minlength=shape[0]), out=indptr[1:])
    comps = _K.csr_canonical(values[order], cols[order], indptr, shape[1])
    return make_sparse("csr", comps, shape, ctx, dtype)


def _csr_from_definition(data, indices, indptr, shape, ctx, dtype):
    dtype = _default_dtype(data, dtype)
    data = _host(data, dtype)
    indices, indptr = _host(indices).astype(_INDEX), _host(indptr).astype(_INDEX)
    if shape is None:
        if indices.shape[0] == 0:
            raise MXNetValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.max()) + 1)
    if data.ndim != 1 or indptr.ndim != 1 or indices.ndim != 1 or indptr.shape[0] == 0 or \
            len(shape) != 2:
        raise MXNetValueError("invalid shape")
    return make_sparse("csr", (data, indices, indptr), shape, ctx, dtype)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A :class:`RowSparseNDArray` from ``(data, indices)``, a shape (all zeros), a dense array
    or a RowSparseNDArray."""
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise MXNetValueError(f"Unexpected length of input tuple: {len(arg1)}")
        if len(arg1) > 2 or _is_shape(arg1):
            _check_shape(shape, arg1)
            return empty("row_sparse", arg1, ctx=ctx, dtype=dtype)
        return _rsp_from_definition(arg1[0], arg1[1], shape, ctx, dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(shape, arg1.shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise MXNetValueError("Unexpected input type: CSRNDArray")
    return _from_dense(arg1, shape, ctx, dtype, "row_sparse")


def _rsp_from_definition(data, indices, shape, ctx, dtype):
    dtype = _default_dtype(data, dtype)
    data = _host(data, dtype)
    indices = _host(indices).astype(_INDEX).reshape(-1)
    if shape is None:
        if indices.shape[0] == 0:
            raise MXNetValueError("invalid shape")
        shape = (int(indices[-1]) + 1,) + data.shape[1:]
    shape = tuple(int(s) for s in shape)
    if data.ndim != len(shape) or int(numpy.prod(shape[1:])) == 0:
        raise MXNetValueError("invalid shape")
    return make_sparse("row_sparse", (data, indices), shape, ctx, dtype)


def __getattr__(name):
    """Every other ``mx.nd`` op (``mx.nd.sparse.FullyConnected``, ...): the storage fallback."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import ndarray as nd
    try:
        return getattr(nd, name)
    except AttributeError:
        raise AttributeError(f"module 'mxlab.ndarray.sparse' has no attribute {name!r}") from None


_ops.install()
_contrib.getnnz = _ops.getnnz
_ops._ORIG.setdefault("quadratic", _contrib.quadratic)
_contrib.quadratic = _ops.quadratic
