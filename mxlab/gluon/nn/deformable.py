"""Deformable convolution blocks (MXNet 2.0's ``gluon.nn.DeformableConvolution`` and
``ModulatedDeformableConvolution``): a plain convolution predicts per-position sampling offsets
(and, modulated, a mask) and the deformable convolution op samples the input there. The offset
convolution starts at zero, so an untrained block is an ordinary convolution.

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.nn.DeformableConvolution(4, kernel_size=3, padding=1)
>>> net.initialize()
>>> net(mx.nd.ones((1, 2, 5, 5))).shape
(1, 4, 5, 5)
"""
from ...base import MXNetNotImplementedError
from ...ops.registry import F as _F
from ..block import HybridBlock
from ..parameter import Parameter
from .activations import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


class DeformableConvolution(HybridBlock):
    """2-D deformable convolution v1 (NCHW; ``in_channels=0``: inferred at the first call)."""

    op = "_contrib_DeformableConvolution"
    offsets_per_tap = 2          # (dy, dx) per kernel tap and deformable group

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout="NCHW", use_bias=True,
                 in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None):
        super().__init__()
        if layout != "NCHW":
            raise MXNetNotImplementedError(f"{type(self).__name__}: layout {layout!r} is not "
                                           "built in mxlab; only 'NCHW'")
        kernel = _pair(kernel_size)
        self._channels, self._groups, self._kernel = channels, groups, kernel
        taps = num_deformable_group * kernel[0] * kernel[1]
        self._split = 2 * taps
        common = {"kernel": kernel, "stride": _pair(strides), "dilate": _pair(dilation),
                  "pad": _pair(padding), "num_group": groups}
        if adj:
            common["adj"] = _pair(adj)
        self._kwargs_offset = dict(common, num_filter=self.offsets_per_tap * taps,
                                   no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(common, num_filter=channels, no_bias=not use_bias,
                                            num_deformable_group=num_deformable_group)
        self.offset_weight = Parameter("offset_weight",
                                       shape=self._weight_shape(self.offsets_per_tap * taps,
                                                                in_channels),
                                       init=offset_weight_initializer, allow_deferred_init=True)
        self.offset_bias = (Parameter("offset_bias", shape=(self.offsets_per_tap * taps,),
                                      init=offset_bias_initializer, allow_deferred_init=True)
                            if offset_use_bias else None)
        self.deformable_conv_weight = Parameter("deformable_conv_weight",
                                                shape=self._weight_shape(channels, in_channels),
                                                init=weight_initializer, allow_deferred_init=True)
        self.deformable_conv_bias = (Parameter("deformable_conv_bias", shape=(channels,),
                                               init=bias_initializer, allow_deferred_init=True)
                                     if use_bias else None)
        self.act = Activation(activation) if activation else None

    def _weight_shape(self, out_channels, in_channels):
        return (out_channels, in_channels // self._groups) + self._kernel

    def infer_shape(self, x, *args):
        for param in (self.offset_weight, self.deformable_conv_weight):
            param.shape = self._weight_shape(param.shape[0], x.shape[1])

    def _offsets(self, x, offset_weight, offset_bias):
        inputs = [x, offset_weight] + ([] if offset_bias is None else [offset_bias])
        offset = _F.Convolution(*inputs, **self._kwargs_offset)
        return [offset]

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        inputs = [x] + self._offsets(x, offset_weight, offset_bias) + [deformable_conv_weight]
        if deformable_conv_bias is not None:
            inputs.append(deformable_conv_bias)
        out = getattr(_F, self.op)(*inputs, **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        k = self._kwargs_deformable_conv
        return (f"{type(self).__name__}({self._channels}, kernel_size={k['kernel']}, "
                f"stride={k['stride']})")


class ModulatedDeformableConvolution(DeformableConvolution):
    """2-D deformable convolution v2: the offset convolution also predicts a mask per tap
    (``2 * sigmoid``) that scales each sample."""

    op = "_contrib_ModulatedDeformableConvolution"
    offsets_per_tap = 3          # (dy, dx, mask)

    def _offsets(self, x, offset_weight, offset_bias):
        (offset,) = super()._offsets(x, offset_weight, offset_bias)
        shifts = _F.slice_axis(offset, axis=1, begin=0, end=self._split)
        mask = _F.slice_axis(offset, axis=1, begin=self._split, end=None)
        return [shifts, _F._mul_scalar(_F.sigmoid(mask), scalar=2.0)]
