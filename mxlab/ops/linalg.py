"""``np.linalg`` ops: factorizations, inverses, solves and determinants, batched over leading axes,
each with the gradient MXNet gives it.

Every differentiable op here has a hidden ``_backward_<name>`` op whose kernel is the closed-form
adjoint (matrix calculus, written against ``xp``); the op's gradient rule calls it with the head
gradients, the inputs and the outputs. Ops MXNet does not differentiate (``eig``, ``lstsq``,
``matrix_rank``) have no gradient. Norms live in :mod:`mxlab.ops.linalg_norm`.

Example
-------
>>> import mxlab as mx
>>> a = mx.np.array([[2.0, 1.0], [1.0, 3.0]]); a.attach_grad()
>>> with mx.autograd.record():
...     d = mx.np.linalg.det(a)
>>> d.backward(); a.grad.asnumpy()            # det(A) * inv(A).T
array([[ 3., -1.],
       [-1.,  2.]], dtype=float32)
"""
from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = ["mT", "register_linalg"]


def mT(x):
    """Batched matrix transpose (swap the last two axes)."""
    return x.swapaxes(-1, -2)


def _diag_embed(xp, v):
    """``(..., n)`` -> ``(..., n, n)`` diagonal matrices."""
    return v[..., :, None] * xp.eye(v.shape[-1], dtype=v.dtype)


def _gradient_rule(name, n_outputs):
    """Gradient rule: ``_backward_<name>(head grads, inputs, outputs)``; missing head gradients
    become zeros (the backward kernels read every output's gradient)."""
    def gradient(node, g):
        heads = [F.zeros_like(o) if gi is None else gi for gi, o in zip(g, node.outputs)]
        grads = F.__getattr__(f"_backward_{name}")(*heads, *node.inputs, *node.outputs[:n_outputs],
                                                    **node.attrs)
        return grads if isinstance(grads, list) else [grads]
    return gradient


def register_linalg(name, forward, shape, backward=None, n_in=1, n_out=1, attrs=(),
                    input_names=("A",), output_names=None, doc="", **kwargs):
    """Register ``_npi_<name>`` (and ``_backward_<name>`` when ``backward`` is given).

    ``backward(xp, grads, inputs, outputs, attrs)`` returns one gradient per input.
    """
    op_name = f"_npi_{name}"
    out_names = output_names or (("output",) if n_out == 1 else tuple(f"out{i}" for i in
                                                                      range(n_out)))
    register(Op(name=op_name, compute=forward, attrs=attrs, num_inputs=n_in, num_outputs=n_out,
                input_names=input_names, output_names=out_names, infer_shape=shape,
                infer_type=lambda a, d: [d[0]] * n_out,
                gradient=_gradient_rule(op_name, n_out) if backward else None,
                nd_names=(), doc=doc, **kwargs))
    if backward is None:
        return

    def backward_compute(xp, inputs, a):
        grads, rest = inputs[:n_out], inputs[n_out:]
        return tuple(backward(xp, grads, rest[:n_in], rest[n_in:], a))
    register(Op(name=f"_backward_{op_name}", compute=backward_compute, attrs=attrs,
                num_inputs=2 * n_out + n_in, num_outputs=n_in,
                input_names=tuple(f"arg{i}" for i in range(2 * n_out + n_in)),
                infer_shape=lambda a, s: [s[n_out + i] for i in range(n_in)],
                infer_type=lambda a, d: [d[n_out + i] for i in range(n_in)],
                hidden=True, nd_names=(), doc=f"Gradient of ``{op_name}``."))


# -- shape rules -----------------------------------------------------------------------------------
def _square(op_name, shape):
    if shape is not None and len(shape) < 2:
        raise MXNetValueError(f"{op_name}: expects (..., M, M) matrices, got shape {shape}")
    if shape is not None and None not in shape[-2:] and shape[-1] != shape[-2]:
        raise MXNetValueError(f"{op_name}: last two axes must be square, got shape {shape}")
    return shape


def _same_square(op_name):
    return lambda a, s: [_square(op_name, s[0])]


def _batch_of(op_name, n_out=1):
    """Outputs ``(...)``: one value per matrix."""
    def rule(a, s):
        shape = _square(op_name, s[0])
        return [None if shape is None else tuple(shape[:-2])] * n_out
    return rule


# -- inverse, determinants ------------------------------------------------------------------------
def _inv_backward(xp, grads, inputs, outputs, a):
    y = outputs[0]
    return [-(mT(y) @ grads[0] @ mT(y))]


def _det_backward(xp, grads, inputs, outputs, a):
    scale = (grads[0] * outputs[0])[..., None, None]
    return [scale * mT(xp.linalg.inv(inputs[0]))]


def _slogdet_backward(xp, grads, inputs, outputs, a):
    return [grads[1][..., None, None] * mT(xp.linalg.inv(inputs[0]))]


register_linalg("inv", lambda xp, i, a: xp.linalg.inv(i[0]), _same_square("inv"),
                _inv_backward, doc="Inverse of each square matrix.")
register_linalg("det", lambda xp, i, a: xp.linalg.det(i[0]), _batch_of("det"), _det_backward,
                doc="Determinant of each square matrix.")
register_linalg("slogdet", lambda xp, i, a: tuple(xp.linalg.slogdet(i[0])),
                _batch_of("slogdet", 2), _slogdet_backward, n_out=2,
                output_names=("sign", "logabsdet"),
                doc="Sign and log of the absolute determinant of each square matrix.")


# -- solve -----------------------------------------------------------------------------------------
def _is_vector_rhs(a, b):
    """NumPy 1.x / MXNet rule: ``b`` is a stack of vectors when it has one axis fewer than ``a``."""
    return b.ndim == a.ndim - 1


def _solve(xp, inputs, attrs):
    a, b = inputs
    if _is_vector_rhs(a, b):
        return xp.linalg.solve(a, b[..., None])[..., 0]
    return xp.linalg.solve(a, b)


def _solve_backward(xp, grads, inputs, outputs, attrs):
    a, b = inputs
    g, x = grads[0], outputs[0]
    if _is_vector_rhs(a, b):
        g, x = g[..., None], x[..., None]
    gb = xp.linalg.solve(mT(a), g)
    ga = -(gb @ mT(x))
    return [ga, gb[..., 0] if _is_vector_rhs(a, b) else gb]


register_linalg("solve", _solve, lambda a, s: [s[1]], _solve_backward, n_in=2,
                input_names=("A", "B"), doc="Solution X of A X = B for square A.")


# -- Cholesky --------------------------------------------------------------------------------------
def _cholesky(xp, inputs, attrs):
    low = xp.linalg.cholesky(inputs[0])
    return mT(low).copy() if attrs["upper"] else low


def _phi(xp, x):
    """Lower triangle with the diagonal halved (the Cholesky adjoint's projection)."""
    return xp.tril(x) - 0.5 * _diag_embed(xp, xp.diagonal(x, axis1=-2, axis2=-1))


def _cholesky_backward(xp, grads, inputs, outputs, attrs):
    low, g = outputs[0], grads[0]
    if attrs["upper"]:
        low, g = mT(low), mT(g)
    low_inv = xp.linalg.inv(low)
    sym = mT(low_inv) @ _phi(xp, mT(low) @ g) @ low_inv
    return [0.5 * (sym + mT(sym))]


register_linalg("cholesky", _cholesky, _same_square("cholesky"), _cholesky_backward,
                attrs=(Attr("upper", "bool", False, doc="return U (A = U^T U) instead of L"),),
                doc="Cholesky factor of each symmetric positive-definite matrix.")


# -- symmetric eigen-decomposition -----------------------------------------------------------------
def _uplo(attrs):
    return "U" if attrs["upper"] else "L"


def _eigh_adjoint(xp, w, v, gw, gv):
    """``V (diag(gw) + F o (V^T gV)) V^T``, symmetrised; ``F_ij = 1 / (w_j - w_i)``."""
    gap = w[..., None, :] - w[..., :, None]
    eye = xp.eye(w.shape[-1], dtype=bool)
    f = xp.where(eye, 0, 1 / xp.where(eye, 1, gap))
    inner = _diag_embed(xp, gw) + (f * (mT(v) @ gv) if gv is not None else 0)
    full = v @ inner @ mT(v)
    return 0.5 * (full + mT(full))


def _eigh_backward(xp, grads, inputs, outputs, attrs):
    return [_eigh_adjoint(xp, outputs[0], outputs[1], grads[0], grads[1])]


def _eigvalsh_backward(xp, grads, inputs, outputs, attrs):
    w, v = xp.linalg.eigh(inputs[0], UPLO=_uplo(attrs))
    return [_eigh_adjoint(xp, w, v, grads[0], None)]


def _eigh_shape(a, s):
    shape = _square("eigh", s[0])
    return [None if shape is None else tuple(shape[:-1]), shape]


_UPPER = (Attr("upper", "bool", False, doc="read the upper triangle (UPLO='U')"),)
register_linalg("eigh", lambda xp, i, a: tuple(xp.linalg.eigh(i[0], UPLO=_uplo(a))), _eigh_shape,
                _eigh_backward, n_out=2, attrs=_UPPER, output_names=("w", "v"),
                doc="Eigenvalues (ascending) and eigenvectors of symmetric matrices.")
register_linalg("eigvalsh", lambda xp, i, a: xp.linalg.eigvalsh(i[0], UPLO=_uplo(a)),
                lambda a, s: [_eigh_shape(a, s)[0]], _eigvalsh_backward, attrs=_UPPER,
                doc="Eigenvalues (ascending) of symmetric matrices.")


# -- SVD -------------------------------------------------------------------------------------------
def _svd(xp, inputs, attrs):
    a = inputs[0]
    if a.shape[-2] > a.shape[-1]:
        raise MXNetValueError(f"svd: expects M <= N as MXNet does, got shape {a.shape}")
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    return u, s, vh


def _svd_shape(a, s):
    shape = s[0]
    if shape is None:
        return [None, None, None]
    *batch, m, n = shape
    return [tuple(batch) + (m, m), tuple(batch) + (m,), tuple(batch) + (m, n)]


def _svd_backward(xp, grads, inputs, outputs, attrs):
    """Thin-SVD adjoint (M <= N): the U/V rotation terms plus the part outside V's row space."""
    (gu, gs, gvh), (u, s, vh) = grads, outputs
    v, gv = mT(vh), mT(gvh)
    s2 = s * s
    gap = s2[..., None, :] - s2[..., :, None]
    eye = xp.eye(s.shape[-1], dtype=bool)
    f = xp.where(eye, 0, 1 / xp.where(eye, 1, gap))
    ut_gu, vt_gv = mT(u) @ gu, mT(v) @ gv
    s_mat = _diag_embed(xp, s)
    inner = (f * (ut_gu - mT(ut_gu))) @ s_mat + s_mat @ (f * (vt_gv - mT(vt_gv))) + \
        _diag_embed(xp, gs)
    ga = u @ inner @ vh
    outside = gv - v @ vt_gv            # (I - V V^T) gV
    ga = ga + u @ (mT(outside) / s[..., :, None])
    return [ga]


register_linalg("svd", _svd, _svd_shape, _svd_backward, n_out=3, output_names=("ut", "l", "v"),
                doc="Thin SVD ``a = ut @ diag(l) @ v`` (M <= N), MXNet's output order.")


# -- QR --------------------------------------------------------------------------------------------
def _qr_shape(a, s):
    shape = s[0]
    if shape is None:
        return [None, None]
    *batch, m, n = shape
    k = min(m, n)
    return [tuple(batch) + (m, k), tuple(batch) + (k, n)]


def _copyltu(xp, m):
    low = xp.tril(m, -1)
    return low + mT(low) + _diag_embed(xp, xp.diagonal(m, axis1=-2, axis2=-1))


def _qr_square_backward(xp, q, r, gq, gr):
    m = r @ mT(gr) - mT(gq) @ q
    b = gq + q @ _copyltu(xp, m)
    return mT(xp.linalg.solve(r, mT(b)))


def _qr_backward(xp, grads, inputs, outputs, attrs):
    """M >= N: the square rule. Wide (M < N): ``a = [X | Y]``, ``r = [U | V]`` with ``X = q U``;
    X takes the square rule with ``gq + Y gV^T``, and ``Y``'s gradient is ``q gV`` (Liao et al.,
    "Differentiable programming tensor networks", the QR/LQ section)."""
    (gq, gr), (q, r) = grads, outputs
    k = q.shape[-2]
    if k >= r.shape[-1]:
        return [_qr_square_backward(xp, q, r, gq, gr)]
    y, gu, gv = inputs[0][..., :, k:], gr[..., :, :k], gr[..., :, k:]
    gx = _qr_square_backward(xp, q, r[..., :, :k], gq + y @ mT(gv), gu)
    return [xp.concatenate([gx, q @ gv], axis=-1)]


register_linalg("qr", lambda xp, i, a: tuple(xp.linalg.qr(i[0], mode="reduced")), _qr_shape,
                _qr_backward, n_out=2, output_names=("q", "r"),
                doc="Reduced QR factorization.")


# -- pseudo-inverse --------------------------------------------------------------------------------
def _pinv(xp, inputs, attrs):
    return xp.linalg.pinv(inputs[0], rcond=attrs["rcond"], hermitian=attrs["hermitian"])


def _pinv_backward(xp, grads, inputs, outputs, attrs):
    a, p, g = inputs[0], outputs[0], grads[0]
    left = xp.eye(a.shape[-2], dtype=a.dtype) - a @ p       # I - A A+
    right = xp.eye(a.shape[-1], dtype=a.dtype) - p @ a      # I - A+ A
    return [-(mT(p) @ g @ mT(p)) + left @ mT(g) @ p @ mT(p) + mT(p) @ p @ mT(g) @ right]


def _pinv_shape(a, s):
    shape = s[0]
    return [None if shape is None else tuple(shape[:-2]) + (shape[-1], shape[-2])]


register_linalg("pinv", _pinv, _pinv_shape, _pinv_backward,
                attrs=(Attr("rcond", "float", 1e-15, doc="relative cut-off of small singular "
                            "values"), Attr("hermitian", "bool", False)),
                doc="Moore-Penrose pseudo-inverse of each matrix.")


# -- forward-only (MXNet has no gradient) ----------------------------------------------------------
def _real_only(op_name, values):
    """MXNet's ``eig``/``eigvals`` return real arrays and reject complex results."""
    if values.dtype.kind == "c":
        raise MXNetValueError(f"{op_name}: the matrix has complex eigenvalues, which mxlab (like "
                              "MXNet) does not return")
    return values


def _eig(xp, inputs, attrs):
    # NOTE: CuPy has no general eig; the CPU result is moved back (rare, unbatched in practice).
    import numpy
    w, v = numpy.linalg.eig(_host(inputs[0]))
    return xp.asarray(_real_only("eig", w)), xp.asarray(_real_only("eig", v))


def _eigvals(xp, inputs, attrs):
    import numpy
    return xp.asarray(_real_only("eigvals", numpy.linalg.eigvals(_host(inputs[0]))))


def _host(x):
    return x.get() if hasattr(x, "get") else x


register_linalg("eig", _eig, lambda a, s: _eigh_shape(a, s), n_out=2, output_names=("w", "v"),
                doc="Eigenvalues and right eigenvectors of general (real-spectrum) matrices.")
register_linalg("eigvals", _eigvals, lambda a, s: [_eigh_shape(a, s)[0]],
                doc="Eigenvalues of general (real-spectrum) matrices.")


def _matrix_rank(xp, inputs, attrs):
    rank = xp.linalg.matrix_rank(inputs[0], tol=attrs["tol"], hermitian=attrs["hermitian"])
    return xp.asarray(rank).astype("int64")


register(Op(name="_npi_matrix_rank", compute=_matrix_rank, nd_names=(),
            attrs=(Attr("tol", "float", None, optional=True), Attr("hermitian", "bool", False)),
            infer_shape=lambda a, s: [None if s[0] is None else tuple(s[0][:-2])],
            infer_type=lambda a, d: ["int64"], doc="Rank of each matrix (via SVD)."))


def _lstsq(xp, inputs, attrs):
    rcond = attrs["rcond"]
    x, residuals, rank, sv = xp.linalg.lstsq(inputs[0], inputs[1], rcond=rcond)
    return x, residuals, xp.asarray(rank).astype("int64"), sv


def _lstsq_shape(attrs, in_shapes):
    """``x``, ``residuals``, ``rank``, ``s`` of NumPy's lstsq; the residuals' length depends on
    the rank (empty when ``A`` is not tall or not of full rank), unknown unless ``A`` is not
    tall."""
    a, b = in_shapes
    if a is None or b is None:
        return [None] * 4
    if len(a) != 2 or len(b) not in (1, 2) or a[0] != b[0]:
        raise MXNetValueError(f"lstsq: A {tuple(a)} and B {tuple(b)} do not form a system (A "
                              "must be 2-D, B 1-D or 2-D with A's rows)")
    m, n = a
    cols = b[1:]
    tall = None if None in (m, n) else m > n
    return [(n,) + cols, (0,) if tall is False else (None,), (),
            (None if None in (m, n) else min(m, n),)]


register(Op(name="_npi_lstsq", compute=_lstsq, infer_shape=_lstsq_shape, num_inputs=2,
            num_outputs=4, nd_names=(),
            input_names=("A", "B"), output_names=("x", "residuals", "rank", "s"),
            attrs=(Attr("rcond", "float", None, optional=True),), dynamic_shape=True,
            infer_type=lambda a, d: [d[0], d[0], "int64", d[0]],
            doc="Least-squares solution of A X = B (residuals' shape depends on the rank)."))
