"""Kernels on the components of MXNet's sparse storage types, each a plain NumPy function.

A ``csr`` matrix is ``(data, indices, indptr)`` (values, their column indices, row pointers; int64
index arrays), a ``row_sparse`` array is ``(data, indices)`` (the stored rows and their row
indices). These functions convert between them and dense arrays and run the few ops MXNet gives a
sparse kernel (dot, elementwise add/sub/mul, retain, row slicing); ``mx.nd.sparse`` wraps them.

Example
-------
>>> import numpy
>>> data, indices, indptr = dense_to_csr(numpy.array([[0., 2.], [3., 0.]]))
>>> data.tolist(), indices.tolist(), indptr.tolist()
([2.0, 3.0], [1, 0], [0, 1, 2])
>>> csr_to_dense(data, indices, indptr, (2, 2)).tolist()
[[0.0, 2.0], [3.0, 0.0]]
"""
import numpy

__all__ = ["dense_to_csr", "csr_to_dense", "dense_to_rsp", "rsp_to_dense", "csr_rows",
           "csr_slice_rows", "csr_dot_dense", "csr_t_dot_dense", "merge", "rsp_retain",
           "csr_canonical"]

INDEX = numpy.int64


def dense_to_csr(dense):
    """``(data, indices, indptr)`` of the nonzeros of a 2-d array, row by row."""
    rows, cols = numpy.nonzero(dense)
    counts = numpy.bincount(rows, minlength=dense.shape[0])
    indptr = numpy.zeros(dense.shape[0] + 1, dtype=INDEX)
    numpy.cumsum(counts, out=indptr[1:])
    return dense[rows, cols].copy(), cols.astype(INDEX), indptr


def csr_rows(indptr):
    """The row of each stored value."""
    return numpy.repeat(numpy.arange(len(indptr) - 1, dtype=INDEX), numpy.diff(indptr))


def csr_to_dense(data, indices, indptr, shape):
    out = numpy.zeros(shape, dtype=data.dtype)
    out[csr_rows(indptr), indices] = data
    return out


def dense_to_rsp(dense):
    """``(data, indices)``: the rows of ``dense`` holding a nonzero, and their indices."""
    if dense.ndim == 0 or dense.shape[0] == 0:
        return dense[:0].copy(), numpy.zeros(0, dtype=INDEX)
    flat = dense.reshape(dense.shape[0], -1)
    indices = numpy.flatnonzero((flat != 0).any(axis=1)).astype(INDEX)
    return dense[indices].copy(), indices


def rsp_to_dense(data, indices, shape):
    out = numpy.zeros(shape, dtype=data.dtype)
    out[indices] = data
    return out


def csr_canonical(data, indices, indptr, num_cols):
    """Duplicates summed and column indices sorted within each row (scipy's canonical form)."""
    keys = csr_rows(indptr) * num_cols + indices
    unique, inverse = numpy.unique(keys, return_inverse=True)
    values = numpy.zeros(len(unique), dtype=data.dtype)
    numpy.add.at(values, inverse, data)
    rows, cols = numpy.divmod(unique, num_cols)
    new_ptr = numpy.zeros(len(indptr), dtype=INDEX)
    numpy.cumsum(numpy.bincount(rows, minlength=len(indptr) - 1), out=new_ptr[1:])
    return values, cols.astype(INDEX), new_ptr


def csr_slice_rows(data, indices, indptr, begin, end):
    """Rows ``begin:end`` of a csr matrix, still csr."""
    lo, hi = indptr[begin], indptr[end]
    return data[lo:hi].copy(), indices[lo:hi].copy(), (indptr[begin:end + 1] - lo).astype(INDEX)


def csr_dot_dense(data, indices, indptr, rhs):
    """``csr @ rhs`` (rhs dense 2-d): one gathered product per stored value, summed by row."""
    out = numpy.zeros((len(indptr) - 1, rhs.shape[1]), dtype=numpy.result_type(data, rhs))
    filled = numpy.flatnonzero(numpy.diff(indptr))
    if len(filled):
        products = data[:, None] * rhs[indices]
        out[filled] = numpy.add.reduceat(products, indptr[:-1][filled], axis=0)
    return out


def csr_t_dot_dense(data, indices, indptr, rhs, num_cols):
    """``csr.T @ rhs`` as a row_sparse ``(data, indices)``: only the rows of columns in use."""
    used, inverse = numpy.unique(indices, return_inverse=True)
    out = numpy.zeros((len(used), rhs.shape[1]), dtype=numpy.result_type(data, rhs))
    numpy.add.at(out, inverse, data[:, None] * rhs[csr_rows(indptr)])
    return out, used.astype(INDEX)


def merge(op, lkeys, lvals, rkeys, rvals):
    """``op`` ('add', 'sub', 'mul') of two sparse operands given as sorted unique ``keys`` (row
    indices, or flat positions) and their values: add/sub over the union, mul over the
    intersection. Returns ``(keys, values)``."""
    if op == "mul":
        keys, li, ri = numpy.intersect1d(lkeys, rkeys, assume_unique=True, return_indices=True)
        return keys.astype(INDEX), lvals[li] * rvals[ri]
    keys = numpy.union1d(lkeys, rkeys).astype(INDEX)
    dtype = numpy.result_type(lvals, rvals)
    values = numpy.zeros((len(keys),) + lvals.shape[1:], dtype=dtype)
    values[numpy.searchsorted(keys, lkeys)] += lvals
    if op == "add":
        values[numpy.searchsorted(keys, rkeys)] += rvals
    else:
        values[numpy.searchsorted(keys, rkeys)] -= rvals
    return keys, values


def rsp_retain(data, indices, row_ids):
    """The stored rows of a row_sparse array whose index is in ``row_ids``."""
    keep = numpy.isin(indices, row_ids)
    return data[keep].copy(), indices[keep].copy()
