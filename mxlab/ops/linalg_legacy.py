"""MXNet 1.x's legacy linear-algebra family (``_linalg_<name>``, public as ``mx.nd.linalg.<name>``
and the flat aliases ``mx.nd.linalg_<name>``): BLAS-3 products, Cholesky tools, triangle/diagonal
packing, LQ and symmetric eigen factorizations, inverses and determinants, batched over the
leading axes, each with the gradient MXNet's ``la_op`` gives it (``_backward_linalg_<name>``).

The kernels follow ``src/operator/tensor/la_op-inl.h``: triangular ops read only the triangle named
by ``lower``, ``potri``/``syrk`` return full symmetric matrices, ``syevd`` returns eigenvectors as
*rows* with MXNet's deterministic signs, ``gelqf`` returns ``(Q, L)`` and ``det``/``sumlogdiag``
give shape ``(1,)`` for a single matrix. Only float32 and float64 are accepted (as in MXNet).

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> a = numpy.array([[4.0, 1.0], [1.0, 4.25]])
>>> get_op("_linalg_potrf").forward(numpy, [a], {"lower": True})[0]
array([[2. , 0. ],
       [0.5, 2. ]])
"""
import numpy

from ..base import MXNetTypeError, MXNetValueError
from .attrs import Attr
from .linalg import mT
from .registry import F, Op, register

__all__ = []


# -- registration ----------------------------------------------------------------------------------
def _checked(name, forward, shape):
    """Reject non-float inputs and bad shapes (the shape rule's errors) and turn LAPACK failures
    into errors naming the op."""
    def compute(xp, inputs, attrs):
        for x in inputs:
            if x.dtype.name not in ("float32", "float64"):
                raise MXNetTypeError(f"linalg.{name}: only float32 and float64 are supported, "
                                     f"got {x.dtype.name}")
        shape(attrs, [x.shape for x in inputs])
        try:
            return forward(xp, inputs, attrs)
        except numpy.linalg.LinAlgError as exc:
            raise MXNetValueError(f"linalg.{name}: LAPACK failed on the input ({exc})") from None
    return compute


def _kernel_gradient(op_name, n_out):
    """Gradient rule calling ``_backward_<op_name>`` with head grads, inputs and outputs."""
    def gradient(node, g):
        heads = [F.zeros_like(o) if gi is None else gi for gi, o in zip(g, node.outputs)]
        grads = F.__getattr__(f"_backward_{op_name}")(*heads, *node.inputs, *node.outputs,
                                                       **node.attrs)
        return grads if isinstance(grads, list) else [grads]
    return gradient


def _register(name, forward, shape, backward=None, gradient=None, n_in=1, n_out=1, attrs=(),
              input_names=("A",), flat=True, output_names=None, doc=""):
    """Register ``_linalg_<name>`` (alias ``linalg_<name>`` when ``flat``) and, for a kernel
    ``backward(xp, grads, inputs, outputs, attrs)``, its hidden ``_backward_linalg_<name>``."""
    op_name = f"linalg_{name}"
    out_names = output_names or (("output",) if n_out == 1 else
                                 tuple(f"output{i}" for i in range(n_out)))
    if backward is not None:
        gradient = _kernel_gradient(op_name, n_out)
    register(Op(name=f"_{op_name}", compute=_checked(name, forward, shape), attrs=attrs,
                aliases=(op_name,) if flat else (), nd_names=(op_name,) if flat else (),
                num_inputs=n_in, num_outputs=n_out, input_names=input_names,
                output_names=out_names, infer_shape=shape,
                infer_type=lambda a, d: [d[0]] * n_out, gradient=gradient, doc=doc))
    if backward is None:
        return

    def backward_compute(xp, inputs, a):
        grads, rest = inputs[:n_out], inputs[n_out:]
        try:
            return tuple(backward(xp, grads, rest[:n_in], rest[n_in:], a))
        except numpy.linalg.LinAlgError as exc:
            raise MXNetValueError(f"linalg.{name}: the gradient's LAPACK call failed ({exc})") \
                from None
    register(Op(name=f"_backward_{op_name}", compute=backward_compute, attrs=attrs,
                num_inputs=2 * n_out + n_in, num_outputs=n_in,
                input_names=tuple(f"arg{i}" for i in range(2 * n_out + n_in)),
                infer_shape=lambda a, s: [s[n_out + i] for i in range(n_in)],
                infer_type=lambda a, d: [d[n_out + i] for i in range(n_in)],
                hidden=True, nd_names=(), doc=f"Gradient of ``_{op_name}``."))


# -- shape helpers ---------------------------------------------------------------------------------
def _known(*shapes):
    return all(s is not None and None not in s for s in shapes)


def _matrices(name, shape, square=False):
    if len(shape) < 2:
        raise MXNetValueError(f"linalg.{name}: expects (..., M, N) matrices, got shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise MXNetValueError(f"linalg.{name}: expects square matrices, got shape {shape}")
    return shape


def _same_batch(name, a, b, skip=2):
    if len(a) != len(b) or a[:len(a) - skip] != b[:len(b) - skip]:
        raise MXNetValueError(f"linalg.{name}: inputs need equal leading axes, got shapes {a} "
                              f"and {b}")


def _tri(xp, a, lower):
    return xp.tril(a) if lower else xp.triu(a)


def _op(x, transpose):
    return mT(x) if transpose else x


# -- gemm, gemm2 -----------------------------------------------------------------------------------
def _row_axis(attrs, ndim):
    axis = attrs["axis"] + ndim if attrs["axis"] < 0 else attrs["axis"]
    if not 0 <= axis < ndim - 1:
        raise MXNetValueError(f"linalg.gemm: invalid row axis {attrs['axis']} for {ndim}-d inputs")
    return axis


def _rows_last(x, axis):
    """Swap the row axis with axis -2 (its own inverse); batching is then over the other axes."""
    return x if axis == x.ndim - 2 else x.swapaxes(axis, x.ndim - 2)


def _product(xp, a, b, attrs):
    axis = _row_axis(attrs, a.ndim)
    a, b = _rows_last(a, axis), _rows_last(b, axis)
    out = attrs["alpha"] * (_op(a, attrs["transpose_a"]) @ _op(b, attrs["transpose_b"]))
    return out, axis


def _gemm(xp, inputs, attrs):
    out, axis = _product(xp, inputs[0], inputs[1], attrs)
    out = out + attrs["beta"] * _rows_last(inputs[2], axis)
    return _rows_last(out, axis).astype(inputs[0].dtype, copy=False)


def _gemm2(xp, inputs, attrs):
    out, axis = _product(xp, inputs[0], inputs[1], attrs)
    return _rows_last(out, axis).astype(inputs[0].dtype, copy=False)


def _gemm_shape(name):
    def rule(attrs, s):
        a, b = s[0], s[1]
        if not _known(a, b):
            return [None]
        _matrices(name, a)
        if len(a) != len(b):
            raise MXNetValueError(f"linalg.{name}: inputs need the same rank, got {a} and {b}")
        axis = _row_axis(attrs, len(a))
        out = list(a)
        for i in range(len(a) - 1):
            if i != axis and a[i] != b[i]:
                raise MXNetValueError(f"linalg.{name}: shapes {a} and {b} differ outside the "
                                      "row/column axes")
        inner_a = a[axis] if attrs["transpose_a"] else a[-1]
        inner_b = b[-1] if attrs["transpose_b"] else b[axis]
        if inner_a != inner_b:
            raise MXNetValueError(f"linalg.{name}: incompatible matrix shapes {a} and {b}")
        out[axis] = a[-1] if attrs["transpose_a"] else a[axis]
        out[-1] = b[axis] if attrs["transpose_b"] else b[-1]
        out = tuple(out)
        if len(s) == 2:
            return [out]
        if _known(s[2]) and tuple(s[2]) != out:      # gemm's C: the output's shape
            raise MXNetValueError(f"linalg.{name}: C has shape {s[2]}, expected {out}")
        return [a, b, out], [out]
    return rule


def _gemm_grads(node, g, product):
    """dA, dB of ``alpha * op(A) op(B)`` written with ``product`` (gemm2), MXNet's formulas."""
    a, b = node.inputs[0], node.inputs[1]
    attrs = node.attrs
    ta, tb, common = attrs["transpose_a"], attrs["transpose_b"], \
        {"alpha": attrs["alpha"], "axis": attrs["axis"]}
    da = product(b, g, transpose_a=tb, transpose_b=True, **common) if ta else \
        product(g, b, transpose_a=False, transpose_b=not tb, **common)
    db = product(g, a, transpose_a=True, transpose_b=ta, **common) if tb else \
        product(a, g, transpose_a=not ta, transpose_b=False, **common)
    return [da, db]


_GEMM2_ATTRS = (Attr("transpose_a", "bool", False, doc="multiply with A transposed"),
                Attr("transpose_b", "bool", False, doc="multiply with B transposed"),
                Attr("alpha", "float", 1.0, doc="scale of A*B"),
                Attr("axis", "int", -2, doc="axis of the matrix rows"))
_GEMM_ATTRS = _GEMM2_ATTRS[:3] + (Attr("beta", "float", 1.0, doc="scale of C"),
                                  _GEMM2_ATTRS[3])


def _gemm_gradient(node, g):
    da, db = _gemm_grads(node, g[0], F._linalg_gemm2)
    return [da, db, F._mul_scalar(g[0], scalar=node.attrs["beta"])]


_register("gemm", _gemm, _gemm_shape("gemm"), gradient=_gemm_gradient, n_in=3,
          attrs=_GEMM_ATTRS, input_names=("A", "B", "C"),
          doc="alpha * op(A) op(B) + beta * C for each matrix (rows along ``axis``).")
_register("gemm2", _gemm2, _gemm_shape("gemm2"),
          gradient=lambda node, g: _gemm_grads(node, g[0], F._linalg_gemm2), n_in=2,
          attrs=_GEMM2_ATTRS, input_names=("A", "B"),
          doc="alpha * op(A) op(B) for each matrix (rows along ``axis``).")


# -- Cholesky: potrf, potri ------------------------------------------------------------------------
def _square_shape(name):
    def rule(attrs, s):
        return [None if not _known(s[0]) else _matrices(name, s[0], square=True)]
    return rule


def _potrf(xp, inputs, attrs):
    a = inputs[0]
    if attrs["lower"]:
        return xp.linalg.cholesky(xp.tril(a) + mT(xp.tril(a, -1)))
    upper = xp.triu(a)
    return mT(xp.linalg.cholesky(mT(upper) + xp.triu(a, 1))).copy()


def _copy_to_upper(xp, m):
    """Symmetric matrix from the lower triangle (and diagonal) of ``m``."""
    return xp.tril(m) + mT(xp.tril(m, -1))


def _copy_to_lower(xp, m):
    return xp.triu(m) + mT(xp.triu(m, 1))


def _solve_left(xp, a, b):
    return xp.linalg.solve(a, b)


def _solve_right(xp, a, b):
    """X with X a = b."""
    return mT(xp.linalg.solve(mT(a), mT(b)))


def _potrf_backward(xp, grads, inputs, outputs, attrs):
    g, b = grads[0], outputs[0]
    if attrs["lower"]:     # 0.5 B^-T copyLTU(B^T dB) B^-1
        m = _copy_to_upper(xp, mT(b) @ g)
        return [0.5 * _solve_right(xp, b, _solve_left(xp, mT(b), m))]
    m = _copy_to_lower(xp, g @ mT(b))   # 0.5 U^-1 copyUTL(dU U^T) U^-T
    return [0.5 * _solve_right(xp, mT(b), _solve_left(xp, b, m))]


def _potri(xp, inputs, attrs):
    lower = attrs["lower"]
    inv = xp.linalg.inv(_tri(xp, inputs[0], lower))
    return mT(inv) @ inv if lower else inv @ mT(inv)


def _potri_backward(xp, grads, inputs, outputs, attrs):
    g, b, a = grads[0], _tri(xp, inputs[0], attrs["lower"]), outputs[0]
    if attrs["lower"]:     # -tril(A (dA + dA^T) B^-T)
        return [-xp.tril(_solve_right(xp, mT(b), a @ (g + mT(g))))]
    return [-xp.triu(_solve_left(xp, mT(b), (g + mT(g)) @ a))]


_LOWER = (Attr("lower", "bool", True, doc="the triangular matrix is lower (else upper)"),)
_register("potrf", _potrf, _square_shape("potrf"), _potrf_backward, attrs=_LOWER,
          doc="Cholesky factor of each symmetric positive-definite matrix.")
_register("potri", _potri, _square_shape("potri"), _potri_backward, attrs=_LOWER,
          doc="Inverse of B = A A^T (lower) or A^T A (upper) from its Cholesky factor A.")


# -- trmm, trsm ------------------------------------------------------------------------------------
def _gemm_t(x, y, alpha, tx, ty):
    return alpha * (_op(x, tx) @ _op(y, ty))


def _trmm_apply(xp, a, b, attrs, transpose=None, alpha=None):
    """alpha * op(tri(A)) B (or B op(tri(A)) when ``rightside``)."""
    t = attrs["transpose"] if transpose is None else transpose
    alpha = attrs["alpha"] if alpha is None else alpha
    tri = _op(_tri(xp, a, attrs["lower"]), t)
    return alpha * (b @ tri if attrs["rightside"] else tri @ b)


def _trsm_apply(xp, a, b, attrs, transpose=None):
    """X with op(tri(A)) X = alpha B (or X op(tri(A)) = alpha B when ``rightside``)."""
    t = attrs["transpose"] if transpose is None else transpose
    tri = _op(_tri(xp, a, attrs["lower"]), t)
    rhs = attrs["alpha"] * b
    return _solve_right(xp, tri, rhs) if attrs["rightside"] else _solve_left(xp, tri, rhs)


def _trmm_backward(xp, grads, inputs, outputs, attrs):
    g, (a, b) = grads[0], inputs
    t, alpha = attrs["transpose"], attrs["alpha"]
    da = _gemm_t(g, b, alpha, t, not t) if attrs["rightside"] == t else \
        _gemm_t(b, g, alpha, not t, t)
    return [_tri(xp, da, attrs["lower"]), _trmm_apply(xp, a, g, attrs, transpose=not t)]


def _trsm_backward(xp, grads, inputs, outputs, attrs):
    g, a, c = grads[0], inputs[0], outputs[0]
    t = attrs["transpose"]
    db = _trsm_apply(xp, a, g, attrs, transpose=not t)
    scale = -1.0 / attrs["alpha"]
    da = _gemm_t(db, c, scale, t, not t) if attrs["rightside"] == t else \
        _gemm_t(c, db, scale, not t, t)
    return [_tri(xp, da, attrs["lower"]), db]


def _tri_shape(name):
    def rule(attrs, s):
        a, b = s[0], s[1]
        if not _known(a, b):
            return [None]
        _matrices(name, a, square=True)
        _same_batch(name, a, b)
        n = a[-1]
        if (b[-1] if attrs["rightside"] else b[-2]) != n:
            raise MXNetValueError(f"linalg.{name}: incompatible matrix shapes {a} and {b}")
        return [tuple(b)]
    return rule


_TRI_ATTRS = (Attr("transpose", "bool", False, doc="use the triangular matrix transposed"),
              Attr("rightside", "bool", False, doc="triangular matrix on the right"),
              Attr("lower", "bool", True, doc="the triangular matrix is lower (else upper)"),
              Attr("alpha", "float", 1.0, doc="scale of the result"))
_register("trmm", lambda xp, i, a: _trmm_apply(xp, i[0], i[1], a), _tri_shape("trmm"),
          _trmm_backward, n_in=2, attrs=_TRI_ATTRS, input_names=("A", "B"),
          doc="alpha * op(A) B (or alpha * B op(A)) for triangular A.")
_register("trsm", lambda xp, i, a: _trsm_apply(xp, i[0], i[1], a), _tri_shape("trsm"),
          _trsm_backward, n_in=2, attrs=_TRI_ATTRS, input_names=("A", "B"),
          doc="Solution X of op(A) X = alpha B (or X op(A) = alpha B) for triangular A.")


# -- sumlogdiag, syrk ------------------------------------------------------------------------------
def _batch_shape(shape):
    """MXNet's reduction shape: the leading axes, ``(1,)`` for a single matrix."""
    return tuple(shape[:-2]) or (1,)


def _sumlogdiag(xp, inputs, attrs):
    a = inputs[0]
    return xp.log(xp.diagonal(a, axis1=-2, axis2=-1)).sum(axis=-1).reshape(_batch_shape(a.shape))


def _sumlogdiag_backward(xp, grads, inputs, outputs, attrs):
    a = inputs[0]
    g = grads[0].reshape(a.shape[:-2] + (1,))
    diag = xp.diagonal(a, axis1=-2, axis2=-1)
    return [(g / diag)[..., :, None] * xp.eye(a.shape[-1], dtype=a.dtype)]


def _reduce_shape(name):
    def rule(attrs, s):
        return [None if not _known(s[0]) else _batch_shape(_matrices(name, s[0], square=True))]
    return rule


def _syrk(xp, inputs, attrs):
    a = inputs[0]
    return attrs["alpha"] * (mT(a) @ a if attrs["transpose"] else a @ mT(a))


def _syrk_backward(xp, grads, inputs, outputs, attrs):
    g, a, alpha = grads[0], inputs[0], attrs["alpha"]
    if attrs["transpose"]:
        return [alpha * (a @ g + a @ mT(g))]
    return [alpha * (g @ a + mT(g) @ a)]


def _syrk_shape(attrs, s):
    if not _known(s[0]):
        return [None]
    a = _matrices("syrk", s[0])
    n = a[-1] if attrs["transpose"] else a[-2]
    return [tuple(a[:-2]) + (n, n)]


_register("sumlogdiag", _sumlogdiag, _reduce_shape("sumlogdiag"), _sumlogdiag_backward,
          doc="Sum of the logs of each square matrix's diagonal.")
_register("syrk", _syrk, _syrk_shape, _syrk_backward,
          attrs=(Attr("transpose", "bool", False, doc="alpha * A^T A instead of A A^T"),
                 Attr("alpha", "float", 1.0, doc="scale of the result")),
          doc="alpha * A A^T (or alpha * A^T A) for each matrix.")


# -- diagonals and triangles -----------------------------------------------------------------------
def _extractdiag(xp, inputs, attrs):
    return xp.diagonal(inputs[0], offset=attrs["offset"], axis1=-2, axis2=-1).copy()


def _makediag(xp, inputs, attrs):
    v, k = inputs[0], attrs["offset"]
    n = v.shape[-1] + abs(k)
    out = xp.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    idx = xp.arange(v.shape[-1])
    out[..., idx - min(k, 0), idx + max(k, 0)] = v
    return out


def _trian_index(xp, n, attrs):
    """Rows and columns of the packed triangle in MXNet's order (``n``: matrix size)."""
    k = attrs["offset"]
    rows, cols = numpy.tril_indices(n - abs(k))
    rows = rows + abs(k)
    if k > 0 or (k == 0 and not attrs["lower"]):
        rows, cols = cols, rows
    return xp.asarray(rows), xp.asarray(cols)


def _extracttrian(xp, inputs, attrs):
    a = inputs[0]
    rows, cols = _trian_index(xp, a.shape[-1], attrs)
    return a[..., rows, cols]


def _trian_size(name, length, offset):
    m = int(numpy.floor(0.5 + (numpy.sqrt(8 * length + 1) - 1.0) * 0.5))
    if m * (m + 1) // 2 != length:
        raise MXNetValueError(f"linalg.{name}: last axis {length} is not a triangular number")
    return m + abs(offset)


def _maketrian(xp, inputs, attrs):
    v = inputs[0]
    n = _trian_size("maketrian", v.shape[-1], attrs["offset"])
    out = xp.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
    rows, cols = _trian_index(xp, n, attrs)
    out[..., rows, cols] = v
    return out


def _diag_trian_shape(name, diag, extract):
    def rule(attrs, s):
        if not _known(s[0]):
            return [None]
        shape, k = s[0], attrs["offset"]
        if extract:
            _matrices(name, shape, square=True)
            n = shape[-1] - abs(k)
            if n <= 0:
                raise MXNetValueError(f"linalg.{name}: offset {k} is too large for shape {shape}")
            return [tuple(shape[:-2]) + ((n if diag else n * (n + 1) // 2),)]
        if not shape:
            raise MXNetValueError(f"linalg.{name}: expects at least 1-d input")
        n = shape[-1] + abs(k) if diag else _trian_size(name, shape[-1], k)
        return [tuple(shape[:-1]) + (n, n)]
    return rule


def _linear_gradient(inverse_op):
    return lambda node, g: [F.__getattr__(inverse_op)(g[0], **node.attrs)]


_OFFSET = (Attr("offset", "int", 0, doc="diagonal offset (< 0 below, > 0 above the main one)"),)
_TRIAN = _OFFSET + (Attr("lower", "bool", True, doc="lower triangle (only for offset 0)"),)
_register("extractdiag", _extractdiag, _diag_trian_shape("extractdiag", True, True),
          gradient=_linear_gradient("_linalg_makediag"), attrs=_OFFSET,
          doc="The (offset) diagonal of each square matrix.")
_register("makediag", _makediag, _diag_trian_shape("makediag", True, False),
          gradient=_linear_gradient("_linalg_extractdiag"), attrs=_OFFSET,
          doc="Square matrices with the input as their (offset) diagonal.")
_register("extracttrian", _extracttrian, _diag_trian_shape("extracttrian", False, True),
          gradient=_linear_gradient("_linalg_maketrian"), attrs=_TRIAN,
          doc="The packed (offset) triangle of each square matrix.")
_register("maketrian", _maketrian, _diag_trian_shape("maketrian", False, False),
          gradient=_linear_gradient("_linalg_extracttrian"), attrs=_TRIAN,
          doc="Square matrices from packed (offset) triangles (inverse of extracttrian).")


# -- gelqf, syevd ----------------------------------------------------------------------------------
def _gelqf(xp, inputs, attrs):
    a = inputs[0]
    if a.shape[-2] > a.shape[-1]:
        raise MXNetValueError(f"linalg.gelqf: expects rows <= columns, got shape {a.shape}")
    q, r = xp.linalg.qr(mT(a), mode="reduced")    # A^T = Q R  =>  A = R^T Q^T (LAPACK's LQ)
    return mT(q).copy(), mT(r).copy()


def _gelqf_backward(xp, grads, inputs, outputs, attrs):
    (gq, gl), (q, low) = grads, outputs
    m = mT(low) @ gl - gq @ mT(q)
    return [_solve_left(xp, mT(low), gq + _copy_to_upper(xp, m) @ q)]


def _gelqf_shape(attrs, s):
    if not _known(s[0]):
        return [None, None]
    a = _matrices("gelqf", s[0])
    if a[-2] > a[-1]:
        raise MXNetValueError(f"linalg.gelqf: expects rows <= columns, got shape {a}")
    return [tuple(a), tuple(a[:-1]) + (a[-2],)]


def _syevd(xp, inputs, attrs):
    w, v = xp.linalg.eigh(inputs[0], UPLO="L")
    u = mT(v)
    # NOTE: MXNet's deterministic signs: each row's largest |entry| (first on ties) is positive.
    pick = xp.take_along_axis(u, xp.argmax(xp.abs(u), axis=-1)[..., None], axis=-1)
    return u * xp.where(pick < 0, -1, 1).astype(u.dtype), w


def _syevd_backward(xp, grads, inputs, outputs, attrs):
    (gu, gl), (u, w) = grads, outputs
    x = gu @ mT(u)
    eps = 1e-30 if w.dtype == numpy.float32 else 1e-100
    denom = 2 * xp.maximum(w[..., :, None] - w[..., None, :], eps)   # i > j: w_i - w_j
    low = xp.tril((x - mT(x)) / denom, -1)
    y = low + mT(low) + gl[..., :, None] * xp.eye(w.shape[-1], dtype=w.dtype)
    return [mT(u) @ y @ u]


def _syevd_shape(attrs, s):
    if not _known(s[0]):
        return [None, None]
    a = _matrices("syevd", s[0], square=True)
    return [tuple(a), tuple(a[:-1])]


_register("gelqf", _gelqf, _gelqf_shape, _gelqf_backward, n_out=2,
          doc="LQ factorization A = L Q of each matrix (rows <= columns); returns (Q, L).")
_register("syevd", _syevd, _syevd_shape, _syevd_backward, n_out=2, flat=False,
          doc="Symmetric eigendecomposition U A = diag(L) U; returns (U, L), L ascending.")


# -- inverse, det, slogdet -------------------------------------------------------------------------
def _inverse_backward(xp, grads, inputs, outputs, attrs):
    y = outputs[0]
    return [-(mT(y) @ grads[0] @ mT(y))]


def _safe_inv_t(xp, a, singular):
    """inv(A)^T, with singular matrices replaced by the identity (their gradient is zeroed)."""
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return mT(xp.linalg.inv(xp.where(singular[..., None, None], eye, a)))


def _det(xp, inputs, attrs):
    a = inputs[0]
    return xp.linalg.det(a).reshape(_batch_shape(a.shape))


def _det_backward(xp, grads, inputs, outputs, attrs):
    a = inputs[0]
    det = outputs[0].reshape(a.shape[:-2])
    scale = (grads[0].reshape(a.shape[:-2]) * det)[..., None, None]
    singular = det == 0
    return [xp.where(singular[..., None, None], 0, scale * _safe_inv_t(xp, a, singular))]


def _slogdet(xp, inputs, attrs):
    a = inputs[0]
    sign, logdet = xp.linalg.slogdet(a)
    shape = _batch_shape(a.shape)
    return sign.reshape(shape), logdet.reshape(shape)


def _slogdet_backward(xp, grads, inputs, outputs, attrs):
    a = inputs[0]
    logdet = outputs[1].reshape(a.shape[:-2])
    singular = xp.isneginf(logdet)
    g = grads[1].reshape(a.shape[:-2])[..., None, None]
    return [xp.where(singular[..., None, None], 0, g * _safe_inv_t(xp, a, singular))]


def _det_shape(n_out):
    def rule(attrs, s):
        if not _known(s[0]):
            return [None] * n_out
        return [_batch_shape(_matrices("det", s[0], square=True))] * n_out
    return rule


_register("inverse", lambda xp, i, a: xp.linalg.inv(i[0]), _square_shape("inverse"),
          _inverse_backward, doc="Inverse of each square matrix.")
# NOTE: MXNet's det has hidden LU/pivot outputs, hence its one visible output is "output0".
_register("det", _det, _det_shape(1), _det_backward, output_names=("output0",),
          doc="Determinant of each square matrix (shape (1,) for a single matrix).")
_register("slogdet", _slogdet, _det_shape(2), _slogdet_backward, n_out=2,
          doc="Sign and log|det| of each square matrix (no gradient through the sign).")
