"""Convolution and pooling layers (1-3D; channels-first layouts NCW/NCHW/NCDHW).

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
from ..parameter import Parameter
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "MaxPool1D", "MaxPool2D",
           "AvgPool1D", "AvgPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D",
           "GlobalMaxPool2D"]

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _tuple(value, ndim):
    return (value,) * ndim if isinstance(value, int) else tuple(value)


class _Conv(HybridBlock):
    """Shared by convolutions and transposed convolutions (``op`` names the registry op)."""

    op = "Convolution"

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels, activation, use_bias, weight_initializer, bias_initializer,
                 ndim, adj=None):
        super().__init__()
        if layout not in (None, _LAYOUTS[ndim]):
            raise NotImplementedError(f"{type(self).__name__}: only layout {_LAYOUTS[ndim]} "
                                      f"is supported, got {layout}")
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
        self.act = Activation(activation) if activation is not None else None

    def _weight_shape(self, in_channels):
        return (self._channels, in_channels // self._groups) + self._kwargs["kernel"]

    def infer_shape(self, x, *args):
        self.weight.shape = self._weight_shape(x.shape[1])

    def hybrid_forward(self, F, x, weight, bias=None):
        inputs = [x, weight] if bias is None else [x, weight, bias]
        out = getattr(_F, self.op)(*inputs, **self._kwargs)
        return self.act(out) if self.act is not None else out

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


class Conv2DTranspose(_Conv):
    """2-D transposed convolution (``Deconvolution``); weight ``(in, channels/groups, kh, kw)``."""

    op = "Deconvolution"

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout=None, activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer, bias_initializer,
                         2, adj=output_padding)

    def _weight_shape(self, in_channels):
        return (in_channels, self._channels // self._groups) + self._kwargs["kernel"]


class _Pool(HybridBlock):
    """Max/avg pooling (``global_pool`` for the global variants)."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, ndim,
                 count_include_pad=None, layout=None):
        super().__init__()
        if layout not in (None, _LAYOUTS[ndim]):
            raise NotImplementedError(f"{type(self).__name__}: only layout {_LAYOUTS[ndim]} "
                                      f"is supported, got {layout}")
        strides = pool_size if strides is None else strides
        self._kwargs = {"kernel": _tuple(pool_size, ndim), "stride": _tuple(strides, ndim),
                        "pad": _tuple(padding, ndim), "global_pool": global_pool,
                        "pool_type": pool_type, "layout": _LAYOUTS[ndim],
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def hybrid_forward(self, F, x):
        return _F.Pooling(x, **self._kwargs)

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


MaxPool1D = _pool_class("MaxPool1D", 1, "max", False)
MaxPool2D = _pool_class("MaxPool2D", 2, "max", False)
AvgPool1D = _pool_class("AvgPool1D", 1, "avg", False)
AvgPool2D = _pool_class("AvgPool2D", 2, "avg", False)
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "max", True)
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "max", True)
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "avg", True)
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "avg", True)
