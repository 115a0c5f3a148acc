"""Convolution, transposed convolution and pooling layers (1-3D; channels-first layouts, and
channels-last NWC/NHWC/NDHWC for convolutions and pooling), reflection padding, pixel shuffle.

Example
-------
>>> import mxlab as mx
>>> conv = mx.gluon.nn.Conv2D(4, kernel_size=3, padding=1)
>>> conv.initialize()
>>> conv(mx.nd.ones((1, 2, 5, 5))).shape, conv.weight.shape
((1, 4, 5, 5), (4, 2, 3, 3))
"""
from ...ops.registry import F as _F
from ..block import HybridBlock
from ..gluon1 import layer_child
from ..parameter import Parameter
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "ReflectionPad2D",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _channels_last(layout, ndim, who, allow_last=True):
    """Whether ``layout`` puts channels last; an unknown layout is an error naming the layer."""
    if layout in (None, _LAYOUTS[ndim]):
        return False
    if allow_last and layout == _CHANNELS_LAST[ndim]:
        return True
    allowed = [_LAYOUTS[ndim]] + ([_CHANNELS_LAST[ndim]] if allow_last else [])
    raise NotImplementedError(f"{who}: layout must be one of {allowed}, got {layout}")


def _to_channels_first(x, ndim):
    return _F.transpose(x, axes=(0, ndim + 1) + tuple(range(1, ndim + 1)))


def _to_channels_last(x, ndim):
    return _F.transpose(x, axes=(0,) + tuple(range(2, ndim + 2)) + (1,))


def _tuple(value, ndim):
    return (value,) * ndim if isinstance(value, int) else tuple(value)


class _Conv(HybridBlock):
    """Shared by convolutions and transposed convolutions (``op`` names the registry op)."""

    op = "Convolution"

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels, activation, use_bias, weight_initializer, bias_initializer,
                 ndim, adj=None):
        super().__init__()
        # NOTE: channels-last layouts run the channels-first op between two transposes; the
        #   weight keeps MXNet's channels-last shape (out, *kernel, in / groups)
        self._last = _channels_last(layout, ndim, type(self).__name__, adj is None)
        self._ndim = ndim
        self._channels, self._in_channels, self._groups = channels, in_channels, groups
        self._kwargs = {"kernel": _tuple(kernel_size, ndim), "stride": _tuple(strides, ndim),
                        "dilate": _tuple(dilation, ndim), "pad": _tuple(padding, ndim),
                        "num_filter": channels, "num_group": groups, "no_bias": not use_bias,
                        "layout": _LAYOUTS[ndim]}
        if adj is not None:
            self._kwargs["adj"] = _tuple(adj, ndim)
        self.weight = Parameter("weight", shape=self._weight_shape(in_channels),
                                init=weight_initializer, allow_deferred_init=True)
        self.bias = (Parameter("bias", shape=(channels,), init=bias_initializer,
                               allow_deferred_init=True) if use_bias else None)
        self.act = (layer_child(self, Activation, activation, prefix=activation + "_")
                    if activation is not None else None)

    def _alias(self):
        return "conv"

    def _weight_shape(self, in_channels):
        if self._last:
            return (self._channels,) + self._kwargs["kernel"] + (in_channels // self._groups,)
        return (self._channels, in_channels // self._groups) + self._kwargs["kernel"]

    def infer_shape(self, x, *args):
        self.weight.shape = self._weight_shape(x.shape[-1 if self._last else 1])

    def hybrid_forward(self, F, x, weight, bias=None):
        if self._last:
            x, weight = _to_channels_first(x, self._ndim), _to_channels_first(weight, self._ndim)
        inputs = [x, weight] if bias is None else [x, weight, bias]
        out = getattr(_F, self.op)(*inputs, name="fwd", **self._kwargs)
        out = self.act(out) if self.act is not None else out
        return _to_channels_last(out, self._ndim) if self._last else out

    def __repr__(self):
        k = self._kwargs
        return (f"{type(self).__name__}({self._in_channels or None} -> {self._channels}, "
                f"kernel_size={k['kernel']}, stride={k['stride']})")


def _conv_class(name, ndim):
    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout=None, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0):
        _Conv.__init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                       in_channels, activation, use_bias, weight_initializer, bias_initializer,
                       ndim)

    doc = f"{ndim}-D convolution over ``{_LAYOUTS[ndim]}`` inputs (``in_channels=0``: deferred)."
    return type(name, (_Conv,), {"__init__": __init__, "__doc__": doc})


Conv1D = _conv_class("Conv1D", 1)
Conv2D = _conv_class("Conv2D", 2)
Conv3D = _conv_class("Conv3D", 3)


class _ConvTranspose(_Conv):
    """Transposed convolution (``Deconvolution``); weight ``(in, channels/groups, *kernel)``."""

    op = "Deconvolution"

    def _weight_shape(self, in_channels):
        return (in_channels, self._channels // self._groups) + self._kwargs["kernel"]


def _conv_transpose_class(name, ndim):
    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout=None, activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0):
        _ConvTranspose.__init__(self, channels, kernel_size, strides, padding, dilation, groups,
                                layout, in_channels, activation, use_bias, weight_initializer,
                                bias_initializer, ndim, adj=output_padding)

    doc = (f"{ndim}-D transposed convolution over ``{_LAYOUTS[ndim]}`` inputs; weight "
           f"``(in, channels/groups, *kernel)``.")
    return type(name, (_ConvTranspose,), {"__init__": __init__, "__doc__": doc})


Conv1DTranspose = _conv_transpose_class("Conv1DTranspose", 1)
Conv2DTranspose = _conv_transpose_class("Conv2DTranspose", 2)
Conv3DTranspose = _conv_transpose_class("Conv3DTranspose", 3)


class _Pool(HybridBlock):
    """Max/avg pooling (``global_pool`` for the global variants)."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, ndim,
                 count_include_pad=None, layout=None):
        super().__init__()
        self._last, self._ndim = _channels_last(layout, ndim, type(self).__name__), ndim
        strides = pool_size if strides is None else strides
        self._kwargs = {"kernel": _tuple(pool_size, ndim), "stride": _tuple(strides, ndim),
                        "pad": _tuple(padding, ndim), "global_pool": global_pool,
                        "pool_type": pool_type, "layout": _LAYOUTS[ndim],
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        if not self._last:
            return _F.Pooling(x, name="fwd", **self._kwargs)
        out = _F.Pooling(_to_channels_first(x, self._ndim), name="fwd", **self._kwargs)
        return _to_channels_last(out, self._ndim)

    def __repr__(self):
        k = self._kwargs
        return f"{type(self).__name__}(size={k['kernel']}, stride={k['stride']})"


def _pool_class(name, ndim, pool_type, global_pool):
    if global_pool:
        def __init__(self, layout=None):
            _Pool.__init__(self, 1, 1, 0, False, True, pool_type, ndim, layout=layout)
    elif pool_type == "avg":
        def __init__(self, pool_size=2, strides=None, padding=0, layout=None, ceil_mode=False,
                     count_include_pad=True):
            _Pool.__init__(self, pool_size, strides, padding, ceil_mode, False, pool_type, ndim,
                           count_include_pad, layout)
    else:
        def __init__(self, pool_size=2, strides=None, padding=0, layout=None, ceil_mode=False):
            _Pool.__init__(self, pool_size, strides, padding, ceil_mode, False, pool_type, ndim,
                           layout=layout)
    kind = "global " if global_pool else ""
    doc = f"{ndim}-D {kind}{pool_type} pooling over ``{_LAYOUTS[ndim]}`` inputs."
    return type(name, (_Pool,), {"__init__": __init__, "__doc__": doc})


MaxPool3D = _pool_class("MaxPool3D", 3, "max", False)
AvgPool3D = _pool_class("AvgPool3D", 3, "avg", False)
GlobalMaxPool3D = _pool_class("GlobalMaxPool3D", 3, "max", True)
GlobalAvgPool3D = _pool_class("GlobalAvgPool3D", 3, "avg", True)
MaxPool1D = _pool_class("MaxPool1D", 1, "max", False)
MaxPool2D = _pool_class("MaxPool2D", 2, "max", False)
AvgPool1D = _pool_class("AvgPool1D", 1, "avg", False)
AvgPool2D = _pool_class("AvgPool2D", 2, "avg", False)
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "max", True)
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "max", True)
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "avg", True)
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "avg", True)


class ReflectionPad2D(HybridBlock):
    """Pad the two spatial axes of NCHW input by mirroring (``padding`` an int or MXNet's flat
    8-tuple)."""

    def __init__(self, padding=0):
        super().__init__()
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError(f"ReflectionPad2D: padding must be an int or 8 values, got "
                             f"{padding}")
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return _F.Pad(x, mode="reflect", pad_width=self._padding)


class _PixelShuffle(HybridBlock):
    """Move ``factor`` blocks of channels into space: (N, C*f1*..., *S) -> (N, C, S1*f1, ...)."""

    ndim = None

    def __init__(self, factor):
        super().__init__()
        self._factors = (factor,) * self.ndim if isinstance(factor, int) else tuple(factor)
        if len(self._factors) != self.ndim:
            raise ValueError(f"{type(self).__name__}: factor needs {self.ndim} values, got "
                             f"{factor}")

    def hybrid_forward(self, F, x):
        n, channels, *space = x.shape
        fs, count = self._factors, 1
        for f in fs:
            count *= f
        split = _F.reshape(x, shape=(n, channels // count) + fs + tuple(space))
        # (N, C, f1..fk, s1..sk) -> (N, C, s1, f1, s2, f2, ...)
        k = self.ndim
        axes = (0, 1) + tuple(a for i in range(k) for a in (2 + k + i, 2 + i))
        merged = tuple(s * f for s, f in zip(space, fs))
        return _F.reshape(_F.transpose(split, axes=axes),
                          shape=(n, channels // count) + merged)

    def __repr__(self):
        return f"{type(self).__name__}({self._factors})"


class PixelShuffle1D(_PixelShuffle):
    """(N, C*f, W) -> (N, C, W*f)."""

    ndim = 1


class PixelShuffle2D(_PixelShuffle):
    """(N, C*f1*f2, H, W) -> (N, C, H*f1, W*f2)."""

    ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """(N, C*f1*f2*f3, D, H, W) -> (N, C, D*f1, H*f2, W*f3)."""

    ndim = 3
