"""Convolution algorithms and the per-shape :class:`ConvPlan` that picks one per direction.

Every direction (forward, backward-data, backward-weight) has candidate kernels with one signature
``fn(plan, xp, a, b)``: per-sample im2col + GEMM, *batch-folded* im2col (the batch joins the GEMM's
columns), "shift" (one small GEMM per kernel offset), Winograd for 3x3 stride 1 (:mod:`.conv_wino`)
and, for backward-data at stride 1, the convolution of ``dy`` with the flipped kernel. A training
forward keeps its columns for the backward-weight pass where both run one layout
(:mod:`.conv_keep`), and the tuner then weighs the pair together. Like cuDNN's autotuner (MXNet's
``MXNET_CUDNN_AUTOTUNE_DEFAULT``) a plan times the candidates once and keeps the fastest -- but
only the candidates a cost model does not rule out, on at most :data:`TUNE_BATCH` samples, and
re-timing only near-winners, so a new shape's first call costs a few steady calls, not hundreds.
"""

import dataclasses
import math

import numpy

from ...base import env_int
from . import conv_keep, conv_wino
from ._conv_clock import timed as _timed
from ._window import Window, as_strided

__all__ = ["ALGORITHMS", "DEFAULT_ALGORITHMS", "ConvPlan", "build_conv_plan", "dilated"]

# -- algorithms: each direction has candidates with one signature ----------------------------------
CHUNK_BYTES = 8 << 20  # per-sample layouts build the columns of this many bytes of samples at once


def _chunks(plan, xp, dtype):
    """Sample ranges whose per-sample im2col columns take about :data:`CHUNK_BYTES`.

    NOTE: one buffer for the whole batch (231 MB for ResNet's 64-channel 56x56 layers at batch
    32) is fresh mmap'd memory every call: its page faults and cache misses cost ~20%.
    """
    per_sample = plan.channels * math.prod(plan.win.kernel) * plan.out_size
    step = max(1, CHUNK_BYTES // max(1, per_sample * xp.dtype(dtype).itemsize))
    return [slice(n, n + step) for n in range(0, plan.batch, step)]


def _fwd_im2col(plan, xp, x, w, out=None):
    view = plan.win.windows(xp, plan.padded(xp, x), plan.groups)
    wr = w.reshape(plan.groups, plan.fg, -1)
    dtype = xp.result_type(x, w)
    fits = out is not None and out.flags.c_contiguous and out.dtype == dtype
    y = out if fits else xp.empty(plan.out_shape, dtype=dtype)
    yr = y.reshape(plan.batch, plan.groups, plan.fg, plan.out_size)
    parts = _chunks(plan, xp, x.dtype)
    for part in parts:
        cols = xp.ascontiguousarray(view[part])
        cols = cols.reshape(cols.shape[0], plan.groups, -1, plan.out_size)
        xp.matmul(wr, cols, out=yr[part])
    if len(parts) == 1:
        _keep(plan, xp, x, "im2col", cols)
    return y if out is None or fits else _into(xp, y, out)


def _keep(plan, xp, x, layout, cols):
    """Keep the forward's columns for the backward-weight pass (see :mod:`.conv_keep`)."""
    if plan.keeping == layout:
        conv_keep.keep(plan, xp, x, layout, cols)


def _fwd_shift(plan, xp, x, w):
    padded = plan.padded(xp, x)
    wk = w.reshape(plan.groups, plan.fg, plan.cg, -1)
    y = 0
    for k, index in enumerate(plan.win.offsets()):
        xs = padded[index].reshape(plan.batch, plan.groups, plan.cg, plan.out_size)
        y = y + xp.matmul(wk[..., k], xs)
    return y.reshape(plan.out_shape)


def _interior(xp, dpad, win, out=None):
    """The unpadded part of a padded gradient, contiguous (written into ``out`` when given)."""
    if out is None:
        return xp.ascontiguousarray(dpad[win.interior])
    xp.copyto(out, dpad[win.interior])
    return out


def _bwd_data_col2im(plan, xp, dy, w, out=None):
    wt = w.reshape(plan.groups, plan.fg, -1).transpose(0, 2, 1)
    dyr = dy.reshape(plan.batch, plan.groups, plan.fg, plan.out_size)
    dpad = xp.zeros(plan.win.padded_shape, dtype=dy.dtype)
    offsets = plan.win.offsets()
    for part in _chunks(plan, xp, dy.dtype):
        dcols = xp.matmul(wt, dyr[part])
        dcols = dcols.reshape((dcols.shape[0], plan.channels, -1) + plan.win.out)
        dchunk = dpad[part]
        for k, index in enumerate(offsets):
            dchunk[index] += dcols[:, :, k]
    return _interior(xp, dpad, plan.win, out)


def _bwd_data_shift(plan, xp, dy, w, out=None):
    wk = w.reshape(plan.groups, plan.fg, plan.cg, -1).transpose(0, 2, 1, 3)
    dyr = dy.reshape(plan.batch, plan.groups, plan.fg, plan.out_size)
    dpad = xp.zeros(plan.win.padded_shape, dtype=dy.dtype)
    spatial_out = (plan.batch, plan.channels) + plan.win.out
    for k, index in enumerate(plan.win.offsets()):
        dpad[index] += xp.matmul(wk[..., k], dyr).reshape(spatial_out)
    return _interior(xp, dpad, plan.win, out)


def _bwd_weight_im2col(plan, xp, dy, x, out=None):
    """Per-sample ``dy @ cols^T`` summed over the batch in sample order (chunk by chunk)."""
    kept = conv_keep.take(plan, xp, x, "im2col")
    view = None if kept is not None else plan.win.windows(xp, plan.padded(xp, x), plan.groups)
    dyr = dy.reshape(plan.batch, plan.groups, plan.fg, plan.out_size)
    dw = None
    for part in [slice(None)] if kept is not None else _chunks(plan, xp, x.dtype):
        cols = kept if kept is not None else xp.ascontiguousarray(view[part])
        cols = cols.reshape(cols.shape[0], plan.groups, -1, plan.out_size)
        per_sample = xp.matmul(dyr[part], cols.swapaxes(-1, -2))
        if dw is None:
            dw = per_sample.sum(axis=0)
            continue
        for term in per_sample:
            dw += term
    return _into(xp, dw.reshape(plan.w_shape), out)


def _bwd_weight_shift(plan, xp, dy, x, out=None):
    padded = plan.padded(xp, x)
    dyr = dy.reshape(plan.batch, plan.groups, plan.fg, plan.out_size)
    parts = []
    for index in plan.win.offsets():
        xs = padded[index].reshape(plan.batch, plan.groups, plan.cg, plan.out_size)
        parts.append(xp.matmul(dyr, xs.swapaxes(-1, -2)).sum(axis=0))
    return _into(xp, xp.stack(parts, axis=-1).reshape(plan.w_shape), out)


# -- batch-folded layout: the batch joins the GEMM's columns (one GEMM per group and direction) ---
def _folded_cols(win, xp, padded, groups):
    """im2col of ``padded`` with the batch folded into the columns: ``(G, Cg * K, N * L)``."""
    view = win.windows(xp, padded, groups)
    nd = win.ndim
    order = (1, 2) + tuple(range(3, 3 + nd)) + (0,) + tuple(range(3 + nd, 3 + 2 * nd))
    cols = xp.ascontiguousarray(view.transpose(order))
    return cols.reshape(groups, cols.shape[1] * int(numpy.prod(win.kernel)), -1)


def _unfold(xp, y, batch, shape, out=None):
    """GEMM result ``(G, Fg, N * L)`` back to the batch-first ``shape`` (into ``out`` when
    given: the one copy the layout change needs also fills the caller's buffer)."""
    y = y.reshape(shape[1], batch, -1).transpose(1, 0, 2)
    if out is None or not out.flags.c_contiguous:
        return _into(xp, xp.ascontiguousarray(y).reshape(shape), out)
    xp.copyto(out.reshape(y.shape), y)
    return out


def _into(xp, result, out):
    """``result``, copied into ``out`` when one is given."""
    if out is None:
        return result
    xp.copyto(out, result)
    return out


def _fold_dy(plan, xp, dy):
    """``dy`` as ``(G, Fg, N * L)`` (a transposed copy, made once per backward call)."""
    memo = plan.dy_memo
    if memo is not None and "folded" in memo:
        return memo["folded"]
    dyr = dy.reshape(plan.batch, plan.groups, plan.fg, plan.out_size).transpose(1, 2, 0, 3)
    dyf = xp.ascontiguousarray(dyr).reshape(plan.groups, plan.fg, -1)
    if memo is not None:
        memo["folded"] = dyf
    return dyf


def _folded_x_cols(plan, xp, x):
    return _folded_cols(plan.win, xp, plan.padded(xp, x), plan.groups)


def _fwd_folded(plan, xp, x, w, out=None):
    cols = _folded_x_cols(plan, xp, x)
    _keep(plan, xp, x, "folded", cols)
    y = xp.matmul(w.reshape(plan.groups, plan.fg, -1), cols)
    return _unfold(xp, y, plan.batch, plan.out_shape, out)


def _bwd_data_folded(plan, xp, dy, w, out=None):
    """``W^T dy`` as one GEMM, then the columns added back per kernel offset (col2im)."""
    wt = w.reshape(plan.groups, plan.fg, -1).transpose(0, 2, 1)
    dcols = xp.matmul(wt, _fold_dy(plan, xp, dy))
    win = plan.win
    # (C, K, N, *out) -> per kernel offset a (N, C, *out) view added into the padded gradient
    dcols = dcols.reshape((plan.channels, -1, plan.batch) + win.out).swapaxes(0, 2)
    dpad = xp.zeros(win.padded_shape, dtype=dy.dtype)
    for k, index in enumerate(win.offsets()):
        dpad[index] += dcols[:, k]
    return _interior(xp, dpad, win, out)


def _bwd_data_transposed(plan, xp, dy, w, out=None):
    """Stride 1: the data gradient is a convolution of ``dy`` with the flipped, transposed
    kernel, so it runs as a forward im2col + GEMM with no scatter."""
    dual = plan.dual(xp)
    if dual is None:
        return _bwd_data_folded(plan, xp, dy, w, out)
    flip = (slice(None),) * 3 + (slice(None, None, -1),) * plan.win.ndim
    wk = w.reshape((plan.groups, plan.fg, plan.cg) + plan.win.kernel)[flip].swapaxes(1, 2)
    cols = _folded_cols(dual.win, xp, dual.padded(xp, dy), plan.groups)
    dx = xp.matmul(xp.ascontiguousarray(wk).reshape(plan.groups, plan.cg, -1), cols)
    return _unfold(xp, dx, plan.batch, plan.win.in_shape, out)


def _kept_or_built(plan, xp, x, layout, build):
    """The columns the forward kept for this ``x``, else ``build(plan, xp, x)``."""
    cols = conv_keep.take(plan, xp, x, layout)
    return build(plan, xp, x) if cols is None else cols


def _gemm(xp, a, b, shape, out=None):
    """``a @ b`` reshaped to ``shape``; the GEMM writes straight into ``out`` where it can."""
    if out is not None and out.flags.c_contiguous and out.dtype == xp.result_type(a, b):
        xp.matmul(a, b, out=out.reshape(a.shape[:-1] + b.shape[-1:]))
        return out
    return _into(xp, xp.matmul(a, b).reshape(shape), out)


def _bwd_weight_folded(plan, xp, dy, x, out=None):
    cols = _kept_or_built(plan, xp, x, "folded", _folded_x_cols)
    return _gemm(xp, _fold_dy(plan, xp, dy), cols.swapaxes(-1, -2), plan.w_shape, out)


# -- batch-innermost layout: (C, *spatial, N), so every window row copies ``width * N`` floats --
def _cn_padded(plan, xp, x):
    """``x`` moved to ``(C, *padded spatial, N)`` inside the plan's zero-bordered CN workspace."""
    win = plan.win
    if plan.cn_workspace is None:
        plan.cn_workspace = xp.zeros(
            (plan.channels,) + win.padded_shape[2:] + (plan.batch,), dtype=plan.dtype
        )
    ws = plan.cn_workspace
    ws[(slice(None),) + win.interior[2:] + (slice(None),)] = xp.moveaxis(x, 0, -1)
    return ws


def _cn_cols(plan, xp, xt):
    """im2col of the CN-layout ``xt``: ``(G, Cg * K, L * N)``, batch innermost."""
    win, nd = plan.win, plan.win.ndim
    st = xt.strides
    shape = (plan.groups, plan.cg) + win.kernel + win.out + (plan.batch,)
    strides = (
        (st[0] * plan.cg, st[0])
        + tuple(s * d for s, d in zip(st[1:1 + nd], win.dilate))
        + tuple(s * k for s, k in zip(st[1:1 + nd], win.stride))
        + (st[-1],)
    )
    view = as_strided(xp, xt, shape, strides)
    return xp.ascontiguousarray(view).reshape(plan.groups, -1, plan.out_size * plan.batch)


def _cn_dy(plan, xp, dy):
    """``dy`` as ``(G, Fg, L * N)``, batch innermost (made once per backward call)."""
    memo = plan.dy_memo
    if memo is not None and "cn" in memo:
        return memo["cn"]
    dyt = xp.ascontiguousarray(dy.reshape(plan.batch, -1, plan.out_size).transpose(1, 2, 0))
    dyt = dyt.reshape(plan.groups, plan.fg, -1)
    if memo is not None:
        memo["cn"] = dyt
    return dyt


def _cn_x_cols(plan, xp, x):
    return _cn_cols(plan, xp, _cn_padded(plan, xp, x))


def _fwd_cn(plan, xp, x, w, out=None):
    cols = _cn_x_cols(plan, xp, x)
    _keep(plan, xp, x, "cn", cols)
    y = xp.matmul(w.reshape(plan.groups, plan.fg, -1), cols)
    y = y.reshape(-1, plan.out_size, plan.batch).transpose(2, 0, 1).reshape(plan.out_shape)
    if out is None:
        return xp.ascontiguousarray(y)
    xp.copyto(out, y)
    return out


def _bwd_data_cn(plan, xp, dy, w, out=None):
    """``W^T dy`` as one GEMM, then col2im in the CN layout: each kernel offset adds rows of
    ``width * N`` contiguous floats (NCHW rows hold only ``width``)."""
    win = plan.win
    wt = w.reshape(plan.groups, plan.fg, -1).transpose(0, 2, 1)
    dcols = xp.matmul(wt, _cn_dy(plan, xp, dy))
    dcols = dcols.reshape((plan.channels, -1) + win.out + (plan.batch,))
    dpad = xp.zeros((plan.channels,) + win.padded_shape[2:] + (plan.batch,), dtype=dy.dtype)
    for k, index in enumerate(win.offsets()):
        dpad[(slice(None),) + index[2:]] += dcols[:, k]
    dx = xp.moveaxis(dpad[(slice(None),) + win.interior[2:]], -1, 0)
    if out is None:
        return xp.ascontiguousarray(dx)
    xp.copyto(out, dx)
    return out


def _bwd_weight_cn(plan, xp, dy, x, out=None):
    cols = _kept_or_built(plan, xp, x, "cn", _cn_x_cols)
    return _gemm(xp, _cn_dy(plan, xp, dy), cols.swapaxes(-1, -2), plan.w_shape, out)


ALGORITHMS = {
    "forward": {
        "im2col": _fwd_im2col,
        "shift": _fwd_shift,
        "folded": _fwd_folded,
        "cn": _fwd_cn,
        **conv_wino.algorithms("forward"),
    },
    "backward_data": {
        "col2im": _bwd_data_col2im,
        "shift": _bwd_data_shift,
        "folded": _bwd_data_folded,
        "transposed": _bwd_data_transposed,
        "cn": _bwd_data_cn,
        **conv_wino.algorithms("backward_data"),
    },
    "backward_weight": {
        "im2col": _bwd_weight_im2col,
        "shift": _bwd_weight_shift,
        "folded": _bwd_weight_folded,
        "cn": _bwd_weight_cn,
        **conv_wino.algorithms("backward_weight"),
    },
}
conv_wino.FALLBACK.update(
    forward=_fwd_folded, backward_data=_bwd_data_folded, backward_weight=_bwd_weight_folded
)
DEFAULT_ALGORITHMS = {"forward": "im2col", "backward_data": "col2im", "backward_weight": "im2col"}


@dataclasses.dataclass(eq=False)
class ConvPlan:
    """Everything a convolution of one shape needs, built once per signature.

    ``x_shape``/``w_shape`` are the convolution's data and weight shapes (for Deconvolution: the
    equivalent convolution whose backward-data is the deconvolution). ``algorithms`` maps each
    direction to the chosen algorithm; ``tune_times`` keeps the measured seconds per candidate.
    """

    win: Window
    groups: int
    w_shape: tuple
    dtype: str
    workspace: object = None
    cn_workspace: object = None  # (C, *padded spatial, N), zero border: the "cn" layout's input
    algorithms: dict = dataclasses.field(default_factory=lambda: dict(DEFAULT_ALGORITHMS))
    tune_times: dict = dataclasses.field(default_factory=dict)
    kept_times: dict = dataclasses.field(default_factory=dict)  # backward-weight, columns kept
    keeping: object = None  # during a training forward: the layout whose columns it keeps
    dy_memo: object = None  # during a backward call: dy in the GEMM layouts, made once
    _dual: object = dataclasses.field(default=None, repr=False)

    @property
    def batch(self):
        return self.win.in_shape[0]

    @property
    def channels(self):
        return self.win.in_shape[1]

    @property
    def cg(self):
        return self.channels // self.groups

    @property
    def fg(self):
        return self.w_shape[0] // self.groups

    @property
    def out_shape(self):
        return (self.batch, self.w_shape[0]) + self.win.out

    @property
    def out_size(self):
        return int(numpy.prod(self.win.out))

    def padded(self, xp, x):
        """``x`` inside the plan's zero-padded workspace (contiguous ``x`` when there is no pad)."""
        if not self.win.has_padding:
            return xp.ascontiguousarray(x)
        self.workspace[self.win.interior] = x
        return self.workspace

    def dual(self, xp):
        """The plan of the stride-1 convolution that computes this one's data gradient (None
        when the stride is not 1 or a padding exceeds the dilated kernel)."""
        if self._dual is None:
            self._dual = _dual_plan(self, xp) or False
        return self._dual or None

    @property
    def shared_layout(self):
        """The column layout forward and backward-weight share (None if they do not): a
        training forward keeps its columns in it for the backward (see :mod:`.conv_keep`)."""
        name = self.algorithms["forward"]
        if name != self.algorithms["backward_weight"] or name not in SHARED_LAYOUTS:
            return None
        if name == "im2col" and len(_chunks(self, numpy, self.dtype)) > 1:
            return None  # the columns never exist for the whole batch at once
        return name

    def forward(self, xp, x, w, out=None, train=False):
        """The convolution of ``x`` and ``w``; written into ``out`` when given. A ``train``
        forward keeps its columns for the backward-weight pass where the layouts match."""
        name = self.algorithms["forward"]
        self.keeping = self.shared_layout if train else None
        try:
            if name in _WRITE_OUT:
                return ALGORITHMS["forward"][name](self, xp, x, w, out)
            return _into(xp, ALGORITHMS["forward"][name](self, xp, x, w), out)
        finally:
            self.keeping = None

    def backward_data(self, xp, dy, w, out=None):
        """The data gradient; written into ``out`` when given."""
        return ALGORITHMS["backward_data"][self.algorithms["backward_data"]](self, xp, dy, w, out)

    def backward_weight(self, xp, dy, x, out=None):
        """The weight gradient; written into ``out`` when given."""
        fn = ALGORITHMS["backward_weight"][self.algorithms["backward_weight"]]
        return fn(self, xp, dy, x, out)

    def backward(self, xp, dy, x, w, dx_out=None, dw_out=None, need=(True, True)):
        """``(data gradient, weight gradient)`` (None where ``need`` says no); both directions
        share ``dy``'s transposed copy when their layouts match."""
        self.dy_memo = {}
        try:
            dx = self.backward_data(xp, dy, w, dx_out) if need[0] else None
            dw = self.backward_weight(xp, dy, x, dw_out) if need[1] else None
        finally:
            self.dy_memo = None
        return dx, dw

    def autotune(self, xp, rounds=3):
        """Time the viable candidates of each direction on dummy arrays; keep the fastest.

        Timing runs on a sub-batch of at most :data:`TUNE_BATCH` samples (the layouts' relative
        cost does not hinge on the batch beyond that). Round one times every candidate once; the
        later rounds re-time only those within :data:`NEAR_BEST` of the best so far, so a
        candidate that lost clearly costs one run, and a direction with one candidate none.
        """
        probe = _tuning_plan(self, xp)
        x = xp.full(probe.win.in_shape, 0.5, dtype=self.dtype)
        w = xp.full(self.w_shape, 0.25, dtype=self.dtype)
        dy = xp.full(probe.out_shape, 0.5, dtype=self.dtype)
        operands = {"forward": (x, w), "backward_data": (dy, w), "backward_weight": (dy, x)}
        for direction, names in viable_candidates(probe, xp).items():
            if len(names) == 1:
                self.algorithms[direction] = names[0]
                continue
            times = dict.fromkeys(names, float("inf"))
            for _ in range(rounds):
                best = min(times.values())
                for name in [n for n in names if times[n] <= best * NEAR_BEST]:
                    fn = ALGORITHMS[direction][name]
                    times[name] = min(times[name], _timed(xp, fn, probe, *operands[direction]))
                if sum(t <= min(times.values()) * NEAR_BEST for t in times.values()) < 2:
                    break
            self.tune_times[direction] = times
            self.algorithms[direction] = min(times, key=times.get)
        self._prefer_shared_layout(probe, xp, operands)

    def _prefer_shared_layout(self, probe, xp, operands):
        """Forward and backward-weight chosen together: where both run one layout, the
        backward takes the forward's columns, so time that candidate given them and keep the
        pair with the least sum."""
        fwd, bwd = self.tune_times.get("forward"), self.tune_times.get("backward_weight")
        if not fwd or not bwd or conv_keep.budget() == 0:
            return
        pairs = {(f, b): fwd[f] + bwd[b] for f in fwd for b in bwd}
        (dy, x), w = operands["backward_weight"], operands["forward"][1]
        chosen = dict(probe.algorithms)
        for name in SHARED_LAYOUTS:
            probe.algorithms = dict(chosen, forward=name, backward_weight=name)
            if fwd.get(name, math.inf) == math.inf or name not in bwd or not probe.shared_layout:
                continue
            kept = math.inf
            for _ in range(2):
                probe.forward(xp, x, w, train=True)
                kept = min(kept, _timed(xp, ALGORITHMS["backward_weight"][name], probe, dy, x))
            pairs[name, name] = fwd[name] + kept
            self.kept_times[name] = kept
        probe.algorithms = chosen
        conv_keep.clear()
        best = min(pairs, key=pairs.get)
        self.algorithms["forward"], self.algorithms["backward_weight"] = best


SHARED_LAYOUTS = ("im2col", "folded", "cn", "winograd", "winograd2")  # built by both directions
_WRITE_OUT = SHARED_LAYOUTS  # forwards that write into ``out`` themselves
TUNE_BATCH = 8  # autotune times candidates on at most this many samples
NEAR_BEST = 1.25  # a candidate slower than this factor of the best is not re-timed
SHIFT_MAX_OFFSETS = 9  # "shift" makes one pass over the tensor per kernel offset: 3x3 at most
NARROW_GEMM = 32  # per-sample GEMMs (im2col, col2im, shift) with fewer columns lose to folded
WINOGRAD_MIN_TILES = 16  # fewer tiles than this share each transformed filter: Winograd loses


def viable_candidates(plan, xp):
    """Per direction, the candidates worth timing for ``plan`` (a cost model of passes).

    ``shift`` re-reads and re-writes the whole tensor once per kernel offset, so beyond small
    kernels it loses to one im2col copy by far; at batch 1 the per-sample, batch-folded and
    batch-innermost (``cn``) layouts are the same GEMM (keep folded); ``transposed`` exists only
    where the dual plan does and copies ``F * K`` columns per output where ``folded`` scatters
    ``C * K``: it pays only when the convolution does not widen the channels. Per-sample GEMMs
    have one column per output position: below :data:`NARROW_GEMM` (deep layers of small maps)
    they run far below the BLAS's speed, up to 7x slower than the folded GEMM, so they are not
    timed there. The data gradient's col2im adds one row per kernel offset and window row:
    ``width`` floats in the folded layout, ``width * N`` in ``cn``, with the same GEMM, so where
    ``cn`` runs folded is not timed (it lost at every ResNet-18 layer, by up to 1.7x at 2x2).
    Winograd (:mod:`.conv_wino`) only where it applies, and not with fewer than
    :data:`WINOGRAD_MIN_TILES` tiles: its filters grow 16/9x or 4x in the transformed domain and
    too few tiles share them (ResNet-18's 512-channel 2x2 layers: 4x slower than ``cn``).
    """
    drop = set()
    if math.prod(plan.win.kernel) > SHIFT_MAX_OFFSETS:
        drop.add("shift")
    if plan.batch == 1:
        drop.update(("im2col", "col2im", "cn"))
    if plan.out_size < NARROW_GEMM:
        drop.update(("im2col", "col2im", "shift"))
    if plan.w_shape[0] > plan.channels or plan.dual(xp) is None:
        drop.add("transposed")
    if "cn" not in drop:
        drop.add("folded:backward_data")
    for scheme in conv_wino.SCHEMES:
        if conv_wino.tiles(plan, scheme) < WINOGRAD_MIN_TILES:
            drop.add(scheme.name)
        drop.update(f"{scheme.name}:{d}" for d in ALGORITHMS
                    if not conv_wino.applies(plan, xp, d, scheme))
    return {
        d: [n for n in c if n not in drop and f"{n}:{d}" not in drop]
        for d, c in ALGORITHMS.items()
    }


def _tuning_plan(plan, xp):
    """``plan`` itself, or a twin on the first :data:`TUNE_BATCH` samples to time candidates on."""
    if plan.batch <= TUNE_BATCH:
        return plan
    win = dataclasses.replace(plan.win, in_shape=(TUNE_BATCH,) + plan.win.in_shape[1:])
    twin = ConvPlan(win=win, groups=plan.groups, w_shape=plan.w_shape, dtype=plan.dtype)
    if win.has_padding:
        twin.workspace = win.workspace(xp, plan.dtype)
    return twin


def _dual_plan(plan, xp):
    win = plan.win
    reach = [dilated(k, d) - 1 for k, d in zip(win.kernel, win.dilate)]
    pad_lo = tuple(r - p for r, p in zip(reach, win.pad_lo))
    pad_hi = tuple(r - p for r, p in zip(reach, win.pad_hi))
    if any(s != 1 for s in win.stride) or min(pad_lo + pad_hi) < 0:
        return None
    dual_win = dataclasses.replace(
        win, in_shape=plan.out_shape, pad_lo=pad_lo, pad_hi=pad_hi, out=win.in_shape[2:]
    )
    dual = ConvPlan(win=dual_win, groups=plan.groups, w_shape=plan.w_shape, dtype=plan.dtype)
    if dual_win.has_padding:
        dual.workspace = dual_win.workspace(xp, plan.dtype)
    return dual


def build_conv_plan(xp, win, groups, w_shape, dtype):
    plan = ConvPlan(win=win, groups=groups, w_shape=tuple(w_shape), dtype=dtype)
    if win.has_padding:
        plan.workspace = win.workspace(xp, dtype)
    if env_int("MXNET_CUDNN_AUTOTUNE_DEFAULT", 1):
        plan.autotune(xp)
    return plan


def dilated(k, d):
    return (k - 1) * d + 1
