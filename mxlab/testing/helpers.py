"""Small array and environment helpers of MXNet's ``mx.test_utils``."""
import contextlib
import os
import sys

import numpy as np

__all__ = [
    "assign_each",
    "download",
    "assign_each2",
    "collapse_sum_like",
    "create_2d_tensor",
    "create_vector",
    "discard_stderr",
    "has_tvm_ops",
    "is_cd_run",
    "is_op_runnable",
    "new_matrix_with_real_eigvals_2d",
    "new_matrix_with_real_eigvals_nd",
    "new_orthonormal_matrix_2d",
    "new_sym_matrix_with_real_eigvals_2d",
    "new_sym_matrix_with_real_eigvals_nd",
    "np_reduce",
]


def is_cd_run():
    """Whether this is MXNet's continuous-delivery job (``CD_JOB=1``)."""
    return os.environ.get("CD_JOB", "0") == "1"


def has_tvm_ops():
    """mxlab has no TVM-generated operators."""
    return False


def is_op_runnable():
    """Every registered op runs on every device mxlab has (no TVM compute-capability limits)."""
    return True


@contextlib.contextmanager
def discard_stderr():
    """Silence file descriptor 2 (what C code and an uncaptured ``sys.stderr`` write to) for a
    ``with`` block."""
    sys.stderr.flush()
    fileno = 2
    saved = os.dup(fileno)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), fileno)
        try:
            yield
        finally:
            os.dup2(saved, fileno)
            os.close(saved)


def collapse_sum_like(a, shape):
    """Sum ``a`` over the axes that broadcasting ``shape`` to ``a.shape`` expanded."""
    lead = a.ndim - len(shape)
    if lead < 0:
        raise ValueError(f"collapse_sum_like: {a.shape} has fewer axes than {shape}")
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s != a.shape[lead + i])
    return np.sum(a, axis=axes).reshape(shape)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (int, tuple or None) one axis at a time."""
    axes = [axis] if isinstance(axis, int) else list(range(dat.ndim)) if axis is None \
        else list(axis)
    ret = dat
    for i in sorted(axes, reverse=True):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        ret = ret.reshape(tuple(1 if i in axes else s for i, s in enumerate(dat.shape)))
    return ret


def assign_each(the_input, function):
    """``function`` applied to each element (a float64 array); a copy when ``function`` is None."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input)


def assign_each2(input1, input2, function):
    """``function`` applied to each pair of elements; a copy of ``input1`` when it is None."""
    if function is None:
        return np.array(input1)
    if np.shape(input1) != np.shape(input2):
        raise ValueError(f"assign_each2: shapes {np.shape(input1)} and {np.shape(input2)}")
    return np.vectorize(function, otypes=[np.float64])(input1, input2)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """An ``(rows, columns)`` mx.nd array whose row ``i`` is all ``i``."""
    from .. import ndarray as nd
    column = nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return nd.broadcast_to(column, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """``mx.nd.arange(0, size)``."""
    from .. import ndarray as nd
    return nd.arange(0, size, dtype=dtype)


def new_orthonormal_matrix_2d(n):
    """A random ``n x n`` orthonormal matrix (QR of a Gaussian matrix)."""
    q, _ = np.linalg.qr(np.random.normal(size=(n, n)))
    return q


def new_matrix_with_real_eigvals_2d(n):
    """A random ``n x n`` matrix with real, well separated eigenvalues."""
    q = new_orthonormal_matrix_2d(n)
    eigvals = np.random.uniform(1, 2, n) * np.random.choice([-1, 1], n)
    return q @ np.diag(eigvals) @ np.linalg.inv(q)


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric ``n x n`` matrix."""
    q = new_orthonormal_matrix_2d(n)
    return q @ np.diag(np.random.uniform(-10, 10, n)) @ q.T


def _batched(make, shape):
    n = shape[-1]
    batch = int(np.prod(shape[:-2]))
    return np.stack([make(n) for _ in range(batch)]).reshape(shape) if batch else \
        np.zeros(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A stack of :func:`new_matrix_with_real_eigvals_2d` matrices of ``shape (..., n, n)``."""
    return _batched(new_matrix_with_real_eigvals_2d, shape)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A stack of :func:`new_sym_matrix_with_real_eigvals_2d` matrices."""
    return _batched(new_sym_matrix_with_real_eigvals_2d, shape)


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """MXNet's test helper: fetch ``url`` to ``dirname/fname`` (``fname`` defaults to the URL's
    file name), keeping an existing file unless ``overwrite``; returns the file name."""
    from ..gluon.utils import download as _download

    fname = fname or url.split("/")[-1]
    path = os.path.join(dirname, fname) if dirname is not None else fname
    return _download(url, path=path, overwrite=overwrite, retries=retries)
