"""``mx.test_utils``' sparse data generators: random csr / row_sparse arrays (MXNet's
``rand_sparse_ndarray``, ``create_sparse_array``, the uniform and power-law csr datasets).

Example
-------
>>> from mxlab.testing.sparse_data import rand_sparse_ndarray
>>> arr, (values, indices) = rand_sparse_ndarray((4, 3), 'row_sparse', density=1.0)
>>> arr.stype, indices.tolist()
('row_sparse', [0, 1, 2, 3])
"""
import numpy as np
import numpy.random as rnd

from ..base import MXNetValueError
from ..device import current_device
from ..ndarray import sparse as _sparse
from ..ndarray.ndarray import NDArray, array as _array

__all__ = ["rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd",
           "shuffle_csr_column_indices", "assign_each", "assign_each2"]


def _validate_csr_generation_inputs(num_rows, num_cols, density, distribution="uniform"):
    total_nnz = int(num_rows * num_cols * density)
    if density < 0 or density > 1:
        raise MXNetValueError("density has to be between 0 and 1")
    if num_rows <= 0 or num_cols <= 0:
        raise MXNetValueError("num_rows or num_cols should be greater than 0")
    if distribution == "powerlaw" and total_nnz < 2 * num_rows:
        raise MXNetValueError(f"not supported for this density: {density} for this shape "
                              f"({num_rows}, {num_cols}); keep num_rows * num_cols * density "
                              ">= 2 * num_rows")


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a scipy csr matrix (in place)."""
    for i in range(len(csr.indptr) - 1):
        lo, hi = csr.indptr[i], csr.indptr[i + 1]
        part = np.array(csr.indices[lo:hi])
        np.random.shuffle(part)
        csr.indices[lo:hi] = part


def _uniform_csr(num_rows, num_cols, density, dtype, data_init=None, shuffle=False):
    _validate_csr_generation_inputs(num_rows, num_cols, density)
    total = num_rows * num_cols
    nnz = int(round(total * density))
    flat = np.sort(rnd.choice(total, nnz, replace=False)) if nnz else np.zeros(0, np.int64)
    rows, cols = np.divmod(flat, num_cols)
    values = rnd.rand(nnz).astype(dtype)
    if data_init is not None:
        values.fill(data_init)
    indptr = np.zeros(num_rows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=num_rows), out=indptr[1:])
    if shuffle:
        for i in range(num_rows):
            part = cols[indptr[i]:indptr[i + 1]]
            np.random.shuffle(part)
    return _sparse.csr_matrix((values, cols, indptr), shape=(num_rows, num_cols), dtype=dtype)


def _powerlaw_csr(num_rows, num_cols, density, dtype):
    _validate_csr_generation_inputs(num_rows, num_cols, density, distribution="powerlaw")
    unused = int(num_rows * num_cols * density)
    out = np.zeros((num_rows, num_cols), dtype=dtype)

    def done():
        return _array(out, dtype=dtype, cls=NDArray).tostype("csr")
    for row in range(num_rows):
        out[row][0] = 1 + rnd.uniform(0.001, 2)
        unused -= 1
        if unused <= 0:
            return done()
    col_max = 2
    for row in range(num_rows):
        col_limit = min(num_cols, col_max)
        if col_limit == num_cols and unused > col_limit:
            out[row] = 1 + rnd.uniform(0.001, 2)
            unused = unused - col_limit + 1
            if unused <= 0:
                return done()
            continue
        for col in range(1, col_limit):
            out[row][col] = 1 + rnd.uniform(0.001, 2)
            unused -= 1
            if unused <= 0:
                return done()
        col_max *= 2
    if unused > 0:
        raise MXNetValueError(f"not supported for this density: {density} for this shape "
                              f"({num_rows},{num_cols})")
    return done()


def assign_each(the_input, function):
    """``function`` applied to each value of a NumPy array."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input) if the_input.size else \
        np.zeros(the_input.shape)


def assign_each2(input1, input2, function):
    if function is None:
        return np.array(input1)
    return np.vectorize(function, otypes=[np.float64])(input1, input2)


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts: ``(arr, (values, indices))`` for row_sparse,
    ``(arr, (indptr, indices, data))`` for csr."""
    ctx = ctx or current_device()
    density = rnd.rand() if density is None else density
    dtype = np.float32 if dtype is None else dtype
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        if distribution != "uniform":
            raise MXNetValueError(f"Distribution {distribution} not supported for row_sparse")
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            result = _sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype)
            return result, (np.array([], dtype=dtype), np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        arr = _sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == "csr":
        if len(shape) != 2:
            raise MXNetValueError(f"csr needs a 2-d shape, got {shape}")
        if distribution == "uniform":
            csr = _uniform_csr(shape[0], shape[1], density, dtype, data_init,
                               shuffle_csr_indices)
        elif distribution == "powerlaw":
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype)
        else:
            raise MXNetValueError(f"Distribution not supported: {distribution}")
        if modifier_func is not None:
            values = assign_each(csr.data.asnumpy(), modifier_func).astype(dtype)
            csr = _sparse.csr_matrix((values, csr.indices, csr.indptr), shape=shape,
                                     dtype=dtype)
        csr = csr.as_in_context(ctx)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise MXNetValueError(f"unknown storage type {stype!r}")


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array; row_sparse indices given are sorted first."""
    if stype == "row_sparse":
        indices = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     rsp_indices=indices, dtype=dtype,
                                     modifier_func=modifier_func)
        return arr
    if stype == "csr":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     dtype=dtype, modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices)
        return arr
    raise MXNetValueError(f"Unknown storage type: {stype}")


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """:func:`create_sparse_array` whose row_sparse density comes from ``rsp_indices`` only."""
    if stype == "row_sparse":
        density = 0.0
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)
