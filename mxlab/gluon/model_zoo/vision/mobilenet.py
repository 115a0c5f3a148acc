"""MobileNet v1 (depthwise-separable convs) and v2 (inverted residuals with linear
bottlenecks), with MXNet's width multipliers."""
from ....ops.registry import F as _F
from ...block import HybridBlock
from ... import nn
from ._common import zoo_constructor

__all__ = ["MobileNet", "MobileNetV2", "RELU6", "LinearBottleneck", "get_mobilenet",
           "get_mobilenet_v2", "mobilenet1_0", "mobilenet0_75", "mobilenet0_5",
           "mobilenet0_25", "mobilenet_v2_1_0", "mobilenet_v2_0_75", "mobilenet_v2_0_5",
           "mobilenet_v2_0_25"]


class RELU6(HybridBlock):
    """``min(max(x, 0), 6)``."""

    def hybrid_forward(self, F, x):
        return _F.clip(x, a_min=0, a_max=6)


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False),
            nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    _add_conv(out, dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
              relu6=relu6)
    _add_conv(out, channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """Expand (1x1, ``t`` times), depthwise 3x3, project (1x1, no activation); a shortcut when
    the shape is kept."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        self.out = nn.HybridSequential()
        _add_conv(self.out, in_channels * t, relu6=True)
        _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                  num_group=in_channels * t, relu6=True)
        _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return out + x if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1 with width ``multiplier``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        self.features = nn.HybridSequential()
        _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
        dw_channels = [int(x * multiplier)
                       for x in [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
        channels = [int(x * multiplier)
                    for x in [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        for dwc, c, s in zip(dw_channels, channels, strides):
            _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
        self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
        self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2 with width ``multiplier``; the classifier is a 1x1 convolution."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        self.features = nn.HybridSequential()
        _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1, relu6=True)
        in_group = [int(x * multiplier) for x in
                    [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3]
        out_group = [int(x * multiplier) for x in
                     [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]]
        ts = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        for in_c, c, t, s in zip(in_group, out_group, ts, strides):
            self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t, stride=s))
        last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
        _add_conv(self.features, last_channels, relu6=True)
        self.features.add(nn.GlobalAvgPool2D())
        self.output = nn.HybridSequential()
        self.output.add(nn.Conv2D(classes, 1, use_bias=False), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    text = f"{multiplier:.2f}"
    return text[:-1] if text in ("1.00", "0.50") else text


def get_mobilenet(multiplier, pretrained=False, ctx=None, device=None, root=None, **kwargs):
    """MobileNet v1 with width ``multiplier``."""
    make = zoo_constructor("get_mobilenet", lambda **kw: MobileNet(multiplier, **kw),
                           f"mobilenet{_suffix(multiplier)}")
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, device=None, root=None, **kwargs):
    """MobileNet v2 with width ``multiplier``."""
    make = zoo_constructor("get_mobilenet_v2", lambda **kw: MobileNetV2(multiplier, **kw),
                           f"mobilenetv2_{_suffix(multiplier)}")
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


def _variant(cls, name, weights, multiplier):
    return zoo_constructor(name, lambda **kw: cls(multiplier, **kw), weights)


for _m, _tag in ((1.0, "1_0"), (0.75, "0_75"), (0.5, "0_5"), (0.25, "0_25")):
    globals()[f"mobilenet{_tag}"] = _variant(MobileNet, f"mobilenet{_tag}",
                                              f"mobilenet{_suffix(_m)}", _m)
    globals()[f"mobilenet_v2_{_tag}"] = _variant(MobileNetV2, f"mobilenet_v2_{_tag}",
                                                  f"mobilenetv2_{_suffix(_m)}", _m)
