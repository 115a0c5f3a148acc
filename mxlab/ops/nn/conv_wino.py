"""Winograd F(4x4, 3x3) and F(2x2, 3x3): 3x3 stride-1 convolutions with 4x (2.25x) fewer
multiplications (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016;
cuDNN's and oneDNN's WINOGRAD algorithms).

The input is cut into ``t x t`` tiles (``t = m + 2``) overlapping by 2, one per ``m x m`` block
of outputs; each tile and each 3x3 filter is transformed into the "Winograd domain"
(``V = B^T d B``, ``U = G g G^T``), where the convolution is ``t * t`` independent GEMMs
``M[xi] = U[xi] @ V[xi]`` (filters x channels times channels x tiles), and ``Y = A^T M A`` turns
each tile back into ``m x m`` outputs. The transforms are small GEMMs with ``K = t`` applied
along one tile axis at a time. F(4x4) does 36 multiply-adds per 16 outputs where im2col does
144; its transformed filters are 4x the filters, so layers of many channels on small maps
(few tiles to share them) suit F(2x2) (16 per 4 outputs, filters 16/9x) or im2col better: the
autotuner times them.

The weight gradient runs in the same domain: ``dM = A dY A^T`` per tile,
``dU[xi] = dM[xi] @ V[xi]^T`` and ``dW = G^T dU G``; the data gradient at stride 1 is the
forward algorithm on the flipped kernel (the plan's dual). The transforms' constants cost
precision: float32 results differ from im2col's by about 1e-5 (F(4x4)) or 1e-6 (F(2x2))
relative, like cuDNN's Winograd algorithms; only float32 and float64 are offered.

Candidates only where the plan is 2-D, one group, kernel 3x3, stride 1, dilation 1, and the
output is a whole number of tiles (see :func:`applies`); elsewhere the calls fall back to
:data:`FALLBACK`.
"""

import dataclasses
import functools
import math

import numpy

from . import conv_keep

__all__ = ["SCHEMES", "applies", "tiles", "algorithms", "FALLBACK"]

R = 3  # kernel side


@dataclasses.dataclass(frozen=True)
class Scheme:
    """F(m x m, 3x3): ``bt`` (t x t), ``g`` (t x 3), ``at`` (m x t)."""

    name: str
    m: int
    bt: tuple
    g: tuple
    at: tuple

    @property
    def t(self):
        return self.m + R - 1


SCHEMES = (
    Scheme(
        "winograd", 4,
        ((4, 0, -5, 0, 1, 0), (0, -4, -4, 1, 1, 0), (0, 4, -4, -1, 1, 0),
         (0, -2, -1, 2, 1, 0), (0, 2, -1, -2, 1, 0), (0, 4, 0, -5, 0, 1)),
        ((1 / 4, 0, 0), (-1 / 6, -1 / 6, -1 / 6), (-1 / 6, 1 / 6, -1 / 6),
         (1 / 24, 1 / 12, 1 / 6), (1 / 24, -1 / 12, 1 / 6), (0, 0, 1)),
        ((1, 1, 1, 1, 1, 0), (0, 1, -1, 2, -2, 0), (0, 1, 1, 4, 4, 0), (0, 1, -1, 8, -8, 1)),
    ),
    Scheme(
        "winograd2", 2,
        ((1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1)),
        ((1, 0, 0), (0.5, 0.5, 0.5), (0.5, -0.5, 0.5), (0, 0, 1)),
        ((1, 1, 1, 0), (0, 1, -1, -1)),
    ),
)
_DTYPES = ("float32", "float64")
CHUNK_BYTES = 8 << 20  # samples at a time: their transformed tiles take about this many bytes
FALLBACK = {}  # direction -> the algorithm that runs where Winograd does not apply


def applies(plan, xp, direction="forward", scheme=SCHEMES[0]):
    """Whether ``scheme`` computes ``direction`` of ``plan`` (see the module doc); the data
    gradient also needs the dual plan and an input of whole tiles."""
    win, m = plan.win, scheme.m
    if not (
        win.ndim == 2 and plan.groups == 1 and win.kernel == (R, R) and win.stride == (1, 1)
        and win.dilate == (1, 1) and all(o % m == 0 for o in win.out)
        and plan.dtype in _DTYPES
    ):
        return False
    if direction != "backward_data":
        return True
    return plan.dual(xp) is not None and all(s % m == 0 for s in win.in_shape[2:])


def tiles(plan, scheme=SCHEMES[0]):
    """How many tiles each transformed filter meets (the Winograd GEMMs' columns)."""
    return plan.batch * math.prod(o // scheme.m for o in plan.win.out)


def _const(xp, rows, dtype):
    return xp.asarray(numpy.array(rows, dtype=dtype))


def _twice(xp, mat, data, shape):
    """``mat @ d @ mat^T`` of every square ``d`` in ``data`` ``(k, k, rest)``: one small GEMM
    along each axis; ``(j, j, rest)`` reshaped to ``shape``."""
    j, k = mat.shape
    half = xp.matmul(mat, data.reshape(k, -1)).reshape(j, k, -1)
    return xp.matmul(mat, half).reshape(shape)


def _blocks(xp, array, side, step, spatial):
    """``(side, side, C, N, th, tw)`` view of the ``side x side`` blocks of ``array`` (N, C, H, W)
    starting every ``step``, ``spatial // step`` of them per axis."""
    n, c = array.shape[:2]
    s = array.strides
    shape = (side, side, c, n, spatial[0] // step, spatial[1] // step)
    strides = (s[2], s[3], s[1], s[0], step * s[2], step * s[3])
    return xp.lib.stride_tricks.as_strided(array, shape, strides)


def _tiles(xp, sch, padded, out):
    """``V = B^T d B`` of every tile of ``padded`` ``(N, C, Hp, Wp)``: ``(t * t, C, tiles)``."""
    tiles = xp.ascontiguousarray(_blocks(xp, padded, sch.t, sch.m, out))
    return _twice(xp, _const(xp, sch.bt, padded.dtype), tiles, (sch.t ** 2, padded.shape[1], -1))


def _filters(xp, sch, w):
    """``U = G g G^T`` of every 3x3 filter of ``w`` ``(F, C, 3, 3)``: ``(t * t, F, C)``."""
    f, c = w.shape[:2]
    kernels = xp.ascontiguousarray(w.reshape(f * c, R * R).T).reshape(R, R, -1)
    return _twice(xp, _const(xp, sch.g, w.dtype), kernels, (sch.t ** 2, f, c))


def _chunks(plan, sch, channels, xp):
    """Sample ranges whose transformed tiles take about :data:`CHUNK_BYTES` (whole-batch
    buffers of large maps spill the caches and are fresh memory every call: page faults)."""
    per_sample = sch.t ** 2 * channels * tiles(plan, sch) // plan.batch
    step = max(1, CHUNK_BYTES // max(1, per_sample * xp.dtype(plan.dtype).itemsize))
    return [slice(n, n + step) for n in range(0, plan.batch, step)]


def _conv(xp, sch, plan, padded, u, out_sp, out, keep=None):
    """The convolution of ``padded`` (N, C, Hp, Wp) with the transformed filters ``u``, chunk
    by chunk into ``out`` (N, F, *out_sp); ``keep(v)`` sees the tiles where one chunk holds
    the batch."""
    f, m = u.shape[1], sch.m
    at = _const(xp, sch.at, u.dtype)
    parts = _chunks(plan, sch, max(padded.shape[1], f), xp)
    for part in parts:
        v = _tiles(xp, sch, padded[part], out_sp)
        if keep is not None and len(parts) == 1:
            keep(v)
        prod = xp.matmul(u, v)  # (t * t, F, tiles)
        n = prod.shape[-1] // (out_sp[0] // m * (out_sp[1] // m))
        y = _twice(xp, at, prod, (m, m, f, n, out_sp[0] // m, out_sp[1] // m))  # A^T M A
        xp.copyto(out[part], y.transpose(3, 2, 4, 0, 5, 1).reshape((n, f) + tuple(out_sp)))
    return out


def _forward(sch, plan, xp, x, w, out=None):
    if not applies(plan, xp, "forward", sch):
        return FALLBACK["forward"](plan, xp, x, w, out)

    def keep(v):
        if plan.keeping == sch.name:
            conv_keep.keep(plan, xp, x, sch.name, v)

    y = out if out is not None else xp.empty(plan.out_shape, dtype=xp.result_type(x, w))
    return _conv(xp, sch, plan, plan.padded(xp, x), _filters(xp, sch, w), plan.win.out, y, keep)


def _backward_data(sch, plan, xp, dy, w, out=None):
    """Stride 1: the forward algorithm on ``dy`` and the flipped, transposed kernel."""
    if not applies(plan, xp, "backward_data", sch):
        return FALLBACK["backward_data"](plan, xp, dy, w, out)
    u = _filters(xp, sch, w[:, :, ::-1, ::-1].swapaxes(0, 1))
    dx = out if out is not None else xp.empty(plan.win.in_shape, dtype=dy.dtype)
    return _conv(xp, sch, plan, plan.dual(xp).padded(xp, dy), u, plan.win.in_shape[2:], dx)


def _backward_weight(sch, plan, xp, dy, x, out=None):
    """``dW = G^T (sum over tiles of (A dY A^T) * V) G``: ``t * t`` GEMMs over the tiles."""
    if not applies(plan, xp, "backward_weight", sch):
        return FALLBACK["backward_weight"](plan, xp, dy, x, out)
    f, t = dy.shape[1], sch.t
    parts = _chunks(plan, sch, max(plan.channels, f), xp)
    kept = conv_keep.take(plan, xp, x, sch.name) if len(parts) == 1 else None
    padded = plan.padded(xp, x) if kept is None else None
    a = _const(xp, sch.at, dy.dtype).T
    du = None
    for part in parts:
        v = kept if kept is not None else _tiles(xp, sch, padded[part], plan.win.out)
        blocks = xp.ascontiguousarray(_blocks(xp, dy[part], sch.m, sch.m, plan.win.out))
        dm = _twice(xp, a, blocks, (t * t, f, -1))  # A dY A^T
        term = xp.matmul(dm, v.swapaxes(-1, -2))  # (t * t, F, C)
        if du is None:
            du = term
        else:
            du += term
    dw = _twice(xp, _const(xp, sch.g, du.dtype).T, du, (R * R, -1))  # G^T dU G
    dw = dw.T.reshape(plan.w_shape)
    if out is None:
        return xp.ascontiguousarray(dw)
    return _copy(xp, dw, out)


def _copy(xp, result, out):
    xp.copyto(out, result)
    return out


def algorithms(direction):
    """``{scheme name: kernel}`` of ``direction`` for the algorithm table."""
    fn = {"forward": _forward, "backward_data": _backward_data,
          "backward_weight": _backward_weight}[direction]
    return {sch.name: functools.partial(fn, sch) for sch in SCHEMES}
