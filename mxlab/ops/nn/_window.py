"""Sliding-window geometry shared by convolution and pooling (channel-first layouts, 1-3 spatial
dims).

A :class:`Window` describes how a kernel slides over a padded input: kernel, stride, dilation,
low/high padding and the output size. It gives the strided *view* of every window (no copy:
``as_strided`` over a padded workspace) and, for the backward passes, one slice per kernel offset so
that gradients are scattered back with ``prod(kernel)`` strided additions instead of an index map.
"""

import dataclasses
import itertools

from ...base import MXNetNotImplementedError, MXNetValueError

__all__ = ["Window", "spatial", "check_layout", "as_strided"]

LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
ALL_LAYOUTS = ("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")


def spatial(op_name, name, value, ndim, fill, minimum=0):
    """``value`` as an ``ndim`` tuple (``()`` -> ``fill``), checked against ``minimum``."""
    value = tuple(value) if value else (fill,) * ndim
    if len(value) != ndim:
        raise MXNetValueError(
            f"{op_name}: attribute '{name}' {value} must have {ndim} entries like kernel"
        )
    if any(v is None or v < minimum for v in value):
        raise MXNetValueError(
            f"{op_name}: attribute '{name}' {value} must be >= {minimum} in every entry"
        )
    return value


def check_layout(op_name, layout, ndim):
    """Only channel-first layouts are computed here (MXNet runs NHWC only through cuDNN)."""
    if ndim not in LAYOUTS:
        raise MXNetValueError(f"{op_name}: kernel must have 1, 2 or 3 dims, got {ndim}")
    if layout is not None and layout != LAYOUTS[ndim]:
        raise MXNetNotImplementedError(
            f"{op_name}: layout '{layout}' is not supported; use the channel-"
            f"first layout {LAYOUTS[ndim]} for {ndim}-d data"
        )


def as_strided(xp, array, shape, strides):
    return xp.lib.stride_tricks.as_strided(array, shape=shape, strides=strides)


@dataclasses.dataclass(frozen=True)
class Window:
    """A kernel sliding over ``in_shape = (N, C, *spatial)``; ``out`` is the output spatial size."""

    in_shape: tuple
    kernel: tuple
    stride: tuple
    dilate: tuple
    pad_lo: tuple
    pad_hi: tuple
    out: tuple

    @property
    def ndim(self):
        return len(self.kernel)

    @property
    def padded_shape(self):
        return self.in_shape[:2] + tuple(
            s + lo + hi for s, lo, hi in zip(self.in_shape[2:], self.pad_lo, self.pad_hi)
        )

    @property
    def has_padding(self):
        return any(self.pad_lo) or any(self.pad_hi)

    @property
    def interior(self):
        """Index of the unpadded input inside the padded workspace."""
        return (slice(None), slice(None)) + tuple(
            slice(lo, lo + s) for lo, s in zip(self.pad_lo, self.in_shape[2:])
        )

    def workspace(self, xp, dtype, fill=0):
        """A padded buffer whose border already holds ``fill``; calls only rewrite the interior."""
        return xp.full(self.padded_shape, fill, dtype=dtype)

    def windows(self, xp, padded, groups=1):
        """View ``(N, G, C/G, *kernel, *out)`` of every window of the contiguous ``padded``."""
        strides = padded.strides
        n, c = self.in_shape[:2]
        shape = (n, groups, c // groups) + self.kernel + self.out
        view_strides = (
            (strides[0], strides[1] * (c // groups), strides[1])
            + tuple(st * d for st, d in zip(strides[2:], self.dilate))
            + tuple(st * s for st, s in zip(strides[2:], self.stride))
        )
        return as_strided(xp, padded, shape, view_strides)

    def offsets(self):
        """One index per kernel offset: the padded-input positions it touches, for all outputs."""
        result = []
        for k in itertools.product(*(range(kk) for kk in self.kernel)):
            result.append(
                (slice(None), slice(None))
                + tuple(
                    slice(ki * d, ki * d + s * (o - 1) + 1, s)
                    for ki, d, s, o in zip(k, self.dilate, self.stride, self.out)
                )
            )
        return result
