"""``mx.np.linalg``: NumPy's linear algebra on ``mx.np.ndarray`` with MXNet's gradients.

The factorizations and solves are ops (:mod:`mxlab.ops.linalg`); ``tensorinv``,
``tensorsolve``, ``multi_dot``, ``matrix_power`` and the array-API names are compositions of them,
so they differentiate too.

Example
-------
>>> import mxlab as mx
>>> a = mx.np.array([[4.0, 2.0], [2.0, 3.0]])
>>> mx.np.linalg.cholesky(a).asnumpy().round(3)
array([[2.   , 0.   ],
       [1.   , 1.414]], dtype=float32)
"""
import functools
import math

from ..base import MXNetValueError
from ..imperative import invoke
from ..ndarray.ndarray import ndarray
from ..ops.registry import get_op

__all__ = [
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]


def _call(op_name, *inputs, **attrs):
    """Run ``op_name`` on ``mx.np`` arrays; one output, or a tuple of them."""
    op = get_op(op_name)
    outs = invoke(op, [_as_array(x) for x in inputs], op.parse_attrs(attrs), cls=ndarray)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _as_array(x):
    if isinstance(x, ndarray):
        return x
    from . import array
    return array(x)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm (NumPy's rules for ``ord`` and ``axis``)."""
    return _call("_npi_norm", x, ord=ord, axis=axis, keepdims=keepdims)


def vector_norm(x, ord=None, axis=None, keepdims=False):
    """Array-API vector norm, as MXNet computes it: ``axis=None`` flattens first, and a tuple
    ``axis`` moves those axes to the front and merges them into one (so ``keepdims`` keeps a
    single axis of size one in front of the others)."""
    x = _as_array(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    elif isinstance(axis, (tuple, list)):
        axis = tuple(a % x.ndim for a in axis)
        rest = tuple(i for i in range(x.ndim) if i not in axis)
        x = x.transpose(axis + rest).reshape(
            (math.prod(x.shape[a] for a in axis),) + tuple(x.shape[i] for i in rest))
        axis = 0
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, ord="fro", axis=(-2, -1), keepdims=False):
    """Array-API matrix norm over the two axes of ``axis`` (the last two by default)."""
    if not (isinstance(axis, (tuple, list)) and len(axis) == 2):
        raise MXNetValueError(f"matrix_norm: axis must be a 2-tuple of ints, got {axis!r}")
    return norm(x, ord=ord, axis=tuple(axis), keepdims=keepdims)


def svd(a):
    """``(ut, s, v)`` with ``a = ut @ diag(s) @ v`` (M <= N), MXNet's form of NumPy's thin SVD."""
    return _call("_npi_svd", a)


def svdvals(a):
    return svd(a)[1]


def cholesky(a, upper=False):
    """Lower (or with ``upper``, upper) Cholesky factor of symmetric positive-definite ``a``."""
    return _call("_npi_cholesky", a, upper=upper)


def qr(a, mode="reduced"):
    """Reduced QR factorization ``(q, r)``; other modes are not built (MXNet has only this)."""
    if mode != "reduced":
        raise NotImplementedError(f"np.linalg.qr: mode={mode!r} is not built; only 'reduced'")
    return _call("_npi_qr", a)


def inv(a):
    return _call("_npi_inv", a)


def det(a):
    return _call("_npi_det", a)


def slogdet(a):
    """``(sign, logabsdet)``; the gradient flows through ``logabsdet``."""
    return _call("_npi_slogdet", a)


def solve(a, b):
    """X with ``a @ X = b``; ``b`` with one axis fewer than ``a`` is a stack of vectors."""
    return _call("_npi_solve", a, b)


def pinv(a, rcond=1e-15, hermitian=False, rtol=None):
    """Moore-Penrose pseudo-inverse (``rtol`` is the array-API name of ``rcond``, which may be an
    array broadcast against the stack of matrices, as in NumPy and MXNet)."""
    rcond = rcond if rtol is None else rtol
    if isinstance(rcond, ndarray):
        return _pinv_cutoffs(_as_array(a), rcond)
    return _call("_npi_pinv", a, rcond=rcond, hermitian=hermitian)


def _swap(x):
    return x.swapaxes(-1, -2)


def _pinv_cutoffs(a, rcond):
    """``pinv`` with one relative cutoff per matrix: singular values at most ``rcond`` times the
    largest count as zero (composed from ``svd``, so it differentiates)."""
    from .. import numpy as np
    wide = a.shape[-2] <= a.shape[-1]
    ut, s, v = svd(a if wide else _swap(a))
    kept = s > np.expand_dims(rcond, -1) * s.max(axis=-1, keepdims=True)
    inverse = np.where(kept, 1 / np.where(kept, s, 1), 0)
    result = np.matmul(_swap(v), np.expand_dims(inverse, -1) * _swap(ut))
    return result if wide else _swap(result)


def eigh(a, UPLO="L", upper=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric ``a``."""
    return _call("_npi_eigh", a, upper=_upper(UPLO, upper))


def eigvalsh(a, UPLO="L", upper=None):
    return _call("_npi_eigvalsh", a, upper=_upper(UPLO, upper))


def _upper(uplo, upper):
    if upper is not None:
        return bool(upper)
    if uplo not in ("L", "U"):
        raise MXNetValueError(f"np.linalg: UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo == "U"


def eig(a):
    """Eigenvalues and eigenvectors of a real-spectrum matrix (no gradient, as in MXNet)."""
    return _call("_npi_eig", a)


def eigvals(a):
    return _call("_npi_eigvals", a)


def lstsq(a, b, rcond="warn"):
    """``(x, residuals, rank, s)`` of the least-squares problem (no gradient, as in MXNet;
    ``rank`` a 0-d int64 array as in MXNet 2.0, so hybridized blocks can return it)."""
    return _call("_npi_lstsq", a, b, rcond=None if rcond == "warn" else rcond)


def matrix_rank(M, tol=None, hermitian=False, rtol=None):
    """Rank from the count of singular values above ``tol`` (or ``rtol`` times the largest)."""
    if rtol is not None:
        largest = svdvals(M).max(axis=-1)
        return (svdvals(M) > (largest * rtol)[..., None]).sum(axis=-1)
    if isinstance(tol, ndarray) and M.ndim >= 2:     # NOTE: one tolerance per matrix
        from .. import numpy as np
        values = np.abs(eigvalsh(M)) if hermitian else svdvals(
            M if M.shape[-2] <= M.shape[-1] else _swap(M))
        return (values > np.expand_dims(tol, -1)).sum(axis=-1)
    tol = None if isinstance(tol, ndarray) else tol      # NumPy: a vector's rank ignores tol
    return _call("_npi_matrix_rank", M, tol=tol, hermitian=hermitian)


def cond(x, p=None):
    """Condition number: ``norm(x, p) * norm(inv(x), p)`` (the ratio of extreme singular values
    for ``p`` None, 2 or -2)."""
    if p in (None, 2, -2):
        s = svdvals(x)
        return s.max(axis=-1) / s.min(axis=-1) if p != -2 else s.min(axis=-1) / s.max(axis=-1)
    return norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))


def tensorinv(a, ind=2):
    """Inverse of ``a`` seen as a linear map from its first ``ind`` axes' space (NumPy's rule)."""
    a = _as_array(a)
    out_shape, in_shape = a.shape[:ind], a.shape[ind:]
    rows = math.prod(out_shape)
    if rows != math.prod(in_shape):
        raise MXNetValueError(f"tensorinv: a of shape {a.shape} with ind={ind} is not square")
    return inv(a.reshape(rows, -1)).reshape(*(in_shape + out_shape))


def tensorsolve(a, b, axes=None):
    """X with ``tensordot(a, X, X.ndim) = b`` (NumPy's rule)."""
    from . import moveaxis
    a, b = _as_array(a), _as_array(b)
    if axes is not None:
        a = moveaxis(a, list(axes), [a.ndim - len(axes) + i for i in range(len(axes))])
    x_shape = a.shape[-(a.ndim - b.ndim):]     # NOTE: NumPy's slice: all of a.shape if equal
    rows = math.prod(x_shape)
    if rows * rows != math.prod(a.shape):
        raise MXNetValueError(f"tensorsolve: a of shape {a.shape} does not match b {b.shape}")
    return solve(a.reshape(rows, rows), b.reshape(rows)).reshape(*x_shape)


def multi_dot(arrays):
    """``arrays[0] @ arrays[1] @ ...`` (1-D ends act as row/column vectors, as in NumPy)."""
    from . import dot
    if len(arrays) < 2:
        raise MXNetValueError("multi_dot: needs at least two arrays")
    return functools.reduce(dot, arrays)


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (``inv(a)`` powers for negative ``n``)."""
    from . import eye, matmul
    a = _as_array(a)
    if not isinstance(n, int):
        raise MXNetValueError(f"matrix_power: n must be an integer, got {n!r}")
    if n == 0:
        return eye(a.shape[-1], dtype=a.dtype) + a * 0
    base = inv(a) if n < 0 else a
    result = base
    for _ in range(abs(n) - 1):
        result = matmul(result, base)
    return result


def matrix_transpose(a):
    from . import swapaxes
    return swapaxes(a, -1, -2)


def trace(a, offset=0):
    """Array-API trace over the last two axes."""
    from . import trace as np_trace
    return np_trace(a, offset=offset, axis1=-2, axis2=-1)


def diagonal(a, offset=0):
    from . import diagonal as np_diagonal
    return np_diagonal(a, offset=offset, axis1=-2, axis2=-1)


def outer(a, b):
    from . import outer as np_outer
    return np_outer(a, b)


def tensordot(a, b, axes=2):
    from . import tensordot as np_tensordot
    return np_tensordot(a, b, axes=axes)


def cross(a, b, axis=-1):
    from . import cross as np_cross
    return np_cross(a, b, axis=axis)


def vecdot(a, b, axis=-1):
    """Sum of ``a * b`` over ``axis``."""
    from . import sum as np_sum
    return np_sum(_as_array(a) * _as_array(b), axis=axis)
