"""Winograd F(4x4, 3x3): 3x3 stride-1 convolutions with 4x fewer multiplications (Lavin & Gray,
"Fast Algorithms for Convolutional Neural Networks", 2016; cuDNN's and oneDNN's WINOGRAD).

The input is cut into 6x6 tiles overlapping by 2 (one per 4x4 block of outputs), each tile and
each 3x3 filter is transformed into a 6x6 "Winograd domain" (``V = B^T d B``, ``U = G g G^T``),
where the convolution is 36 independent GEMMs ``M[xi] = U[xi] @ V[xi]`` (filters x channels
times channels x tiles) and ``Y = A^T M A`` turns each tile back into 4x4 outputs. The GEMMs do
36 multiply-adds per 16 outputs where im2col does 144; the transforms are small GEMMs with
``K = 6`` applied along one tile axis at a time.

The weight gradient runs in the same domain: ``dM = A dY A^T`` per tile,
``dU[xi] = dM[xi] @ V[xi]^T`` and ``dW = G^T dU G``; the data gradient at stride 1 is the
forward algorithm on the flipped kernel (the plan's dual). The transforms' constants (up to 8)
cost precision: float32 results differ from im2col's by about 1e-5 relative, like cuDNN's
Winograd algorithms, so the autotuner offers "winograd" only for float32 and float64.

Candidates only where the plan is 2-D, one group, kernel 3x3, stride 1, dilation 1, and the
output is a whole number of 4x4 tiles (see :func:`applies`).
"""

import numpy

from . import conv_keep

__all__ = ["applies", "forward", "backward_data", "backward_weight", "FALLBACK"]

M, R = 4, 3  # outputs per tile side, kernel side
T = M + R - 1  # tile side
_BT = ((4, 0, -5, 0, 1, 0), (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0),
       (0, -2, -1, 2, 1, 0), (0, 2, -1, -2, 1, 0), (0, 4, 0, -5, 0, 1))
_G = ((1 / 4, 0, 0), (-1 / 6, -1 / 6, -1 / 6), (-1 / 6, 1 / 6, -1 / 6),
      (1 / 24, 1 / 12, 1 / 6), (1 / 24, -1 / 12, 1 / 6), (0, 0, 1))
_AT = ((1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 0), (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1))
_DTYPES = ("float32", "float64")


def applies(plan, xp, direction="forward"):
    """Whether this algorithm computes ``direction`` of ``plan`` (see the module doc); the data
    gradient also needs the dual plan and an input of whole 4x4 tiles."""
    win = plan.win
    if not (
        win.ndim == 2 and plan.groups == 1 and win.kernel == (R, R) and win.stride == (1, 1)
        and win.dilate == (1, 1) and all(o % M == 0 for o in win.out)
        and plan.dtype in _DTYPES
    ):
        return False
    if direction != "backward_data":
        return True
    return plan.dual(xp) is not None and all(s % M == 0 for s in win.in_shape[2:])


def _const(xp, rows, dtype):
    return xp.asarray(numpy.array(rows, dtype=dtype))


def _tiles(xp, padded, out):
    """``V = B^T d B`` of every 6x6 tile of ``padded`` ``(N, C, Hp, Wp)``: ``(36, C, tiles)``."""
    n, c = padded.shape[:2]
    th, tw = out[0] // M, out[1] // M
    s = padded.strides
    view = xp.lib.stride_tricks.as_strided(
        padded, (T, T, c, n, th, tw), (s[2], s[3], s[1], s[0], M * s[2], M * s[3]))
    d = xp.ascontiguousarray(view).reshape(T, -1)
    bt = _const(xp, _BT, padded.dtype)
    v = xp.matmul(bt, d).reshape(T, T, -1)  # rows transformed
    return xp.matmul(bt, v).reshape(T * T, c, -1)  # then columns: B^T d B


def _filters(xp, w):
    """``U = G g G^T`` of every 3x3 filter of ``w`` ``(F, C, 3, 3)``: ``(36, F, C)``."""
    f, c = w.shape[:2]
    g = _const(xp, _G, w.dtype)
    kernels = xp.ascontiguousarray(w.reshape(f * c, R * R).T).reshape(R, -1)  # (3, 3 * F * C)
    u = xp.matmul(g, kernels).reshape(T, R, -1)  # rows: (6, 3, F * C)
    return xp.matmul(g, u).reshape(T * T, f, c)  # then columns: G g G^T


def _untile(xp, m, n, f, out_sp, out=None):
    """``Y = A^T M A`` of the ``(36, F, tiles)`` products, as ``(N, F, OH, OW)``."""
    th, tw = out_sp[0] // M, out_sp[1] // M
    at = _const(xp, _AT, m.dtype)
    y = xp.matmul(at, m.reshape(T, -1)).reshape(M, T, -1)  # rows back
    y = xp.matmul(at, y).reshape(M, M, f, n, th, tw)  # then columns: (i, j, F, N, th, tw)
    y = y.transpose(3, 2, 4, 0, 5, 1).reshape((n, f) + tuple(out_sp))
    if out is None:
        return xp.ascontiguousarray(y)
    xp.copyto(out, y)
    return out


def _conv(xp, padded, w, out_sp, out=None, keep=None):
    v = _tiles(xp, padded, out_sp)
    if keep is not None:
        keep(v)
    m = xp.matmul(_filters(xp, w), v)
    return _untile(xp, m, padded.shape[0], w.shape[0], out_sp, out)


FALLBACK = {}  # direction -> the algorithm that runs where this one does not apply


def forward(plan, xp, x, w, out=None):
    if not applies(plan, xp):
        return FALLBACK["forward"](plan, xp, x, w, out)

    def keep(v):
        if plan.keeping == "winograd":
            conv_keep.keep(plan, xp, x, "winograd", v)

    dtype = xp.result_type(x, w)
    fits = out is not None and out.dtype == dtype
    y = _conv(xp, plan.padded(xp, x), w, plan.win.out, out if fits else None, keep)
    return y if out is None or fits else _copy(xp, y, out)


def backward_data(plan, xp, dy, w, out=None):
    """Stride 1: the forward algorithm on ``dy`` and the flipped, transposed kernel."""
    if not applies(plan, xp, "backward_data"):
        return FALLBACK["backward_data"](plan, xp, dy, w, out)
    dual = plan.dual(xp)
    wk = w[:, :, ::-1, ::-1].swapaxes(0, 1)
    dx = _conv(xp, dual.padded(xp, dy), xp.ascontiguousarray(wk), plan.win.in_shape[2:],
               out if out is not None and out.dtype == dy.dtype else None)
    return dx if out is None or dx is out else _copy(xp, dx, out)


def backward_weight(plan, xp, dy, x, out=None):
    """``dW = G^T (sum over tiles of (A dY A^T) * V) G``: 36 GEMMs over the tiles."""
    if not applies(plan, xp):
        return FALLBACK["backward_weight"](plan, xp, dy, x, out)
    v = conv_keep.take(plan, xp, x, "winograd")
    if v is None:
        v = _tiles(xp, plan.padded(xp, x), plan.win.out)
    n, f = dy.shape[:2]
    th, tw = plan.win.out[0] // M, plan.win.out[1] // M
    s = dy.strides
    blocks = xp.lib.stride_tricks.as_strided(
        dy, (M, M, f, n, th, tw), (s[2], s[3], s[1], s[0], M * s[2], M * s[3]))
    a = _const(xp, _AT, dy.dtype).T  # (6, 4)
    dm = xp.matmul(a, xp.ascontiguousarray(blocks).reshape(M, -1)).reshape(T, M, -1)
    dm = xp.matmul(a, dm).reshape(T * T, f, -1)  # A dY A^T: (36, F, tiles)
    du = xp.matmul(dm, v.swapaxes(-1, -2))  # (36, F, C)
    gt = _const(xp, _G, du.dtype).T  # (3, 6)
    dw = xp.matmul(gt, du.reshape(T, -1)).reshape(R, T, -1)  # G^T dU ...
    dw = xp.matmul(gt, dw).reshape(R * R, -1).T.reshape(plan.w_shape)  # ... G, as (F, C, 3, 3)
    if out is None:
        return xp.ascontiguousarray(dw)
    return _copy(xp, dw, out)


def _copy(xp, result, out):
    xp.copyto(out, result)
    return out
