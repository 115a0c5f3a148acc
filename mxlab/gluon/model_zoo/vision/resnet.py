"""ResNet v1 and v2 (He et al.) as in MXNet's model zoo, randomly initialised.

Pretrained weights cannot be downloaded here: ``pretrained=True`` raises. Blocks are named as
MXNet 1.x's zoo names them (``resnetv10_stage1_conv0``: a symbol built from the net has 1.x
node names, ``stage1_activation0``) while parameters keep their structural names.

Example
-------
>>> import mxlab as mx
>>> net = mx.gluon.model_zoo.vision.resnet18_v1(classes=10, thumbnail=True)
>>> net.initialize()
>>> net(mx.nd.ones((1, 3, 32, 32))).shape
(1, 10)
"""
from ....base import MXNetValueError
from ....ops.registry import F as _F
from ...block import HybridBlock
from ... import nn
from ._common import unmarked, zoo_constructor

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet"] + [f"resnet{n}_v{v}" for n in (18, 34, 50, 101, 152)
                                            for v in (1, 2)]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


class BasicBlockV1(HybridBlock):
    """conv-BN-relu-conv-BN plus the (optionally downsampled) input, then relu."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = unmarked(nn.HybridSequential, prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = _downsample_v1(channels, stride, in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample is not None else x
        return _F.Activation(self.body(x) + residual, act_type="relu")


def _downsample_v1(channels, stride, in_channels):
    out = unmarked(nn.HybridSequential, prefix="")
    out.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                      in_channels=in_channels), nn.BatchNorm())
    return out


class BottleneckV1(BasicBlockV1):
    """1x1 (channels/4, strided) - 3x3 - 1x1 (channels) with BN, plus the input (ResNet-50+)."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        HybridBlock.__init__(self, **kwargs)
        self.body = unmarked(nn.HybridSequential, prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4),
                      nn.BatchNorm(), nn.Activation("relu"),
                      nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = _downsample_v1(channels, stride, in_channels) if downsample else None


class BasicBlockV2(HybridBlock):
    """Pre-activation block: BN-relu-conv-BN-relu-conv plus the input."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
                           if downsample else None)

    def hybrid_forward(self, F, x):
        residual = x
        x = _F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = _F.Activation(self.bn2(x), act_type="relu")
        return self.conv2(x) + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck: BN-relu-1x1, BN-relu-3x3 (strided), BN-relu-1x1, plus input."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
                           if downsample else None)

    def hybrid_forward(self, F, x):
        residual = x
        x = _F.Activation(self.bn1(x), act_type="relu")
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(_F.Activation(self.bn2(x), act_type="relu"))
        x = self.conv3(_F.Activation(self.bn3(x), act_type="relu"))
        return x + residual


def _stem(features, channels, thumbnail):
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
        return
    features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(),
                 nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))


def _make_layer(block, layers, channels, stride, in_channels, stage):
    layer = unmarked(nn.HybridSequential, prefix=f"stage{stage}_")
    with layer._scope:
        layer.add(unmarked(block, channels, stride, channels != in_channels,
                           in_channels=in_channels, prefix=""))
        for _ in range(layers - 1):
            layer.add(unmarked(block, channels, 1, False, in_channels=channels, prefix=""))
    return layer


class ResNetV1(HybridBlock):
    """ResNet v1: stem, four stages of ``block``, global average pool, Dense classifier."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise MXNetValueError("ResNetV1: len(channels) must be len(layers) + 1")
        with self._scope:   # NOTE: 1.x names, structure unmarked (see unmarked)
            self.features = unmarked(nn.HybridSequential, prefix="")
            _stem(self.features, channels[0], thumbnail)
            for i, num_layer in enumerate(layers):
                self.features.add(_make_layer(block, num_layer, channels[i + 1],
                                              1 if i == 0 else 2, channels[i], i + 1))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2 (pre-activation), with a data BatchNorm in front."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise MXNetValueError("ResNetV2: len(channels) must be len(layers) + 1")
        with self._scope:   # NOTE: 1.x names, structure unmarked (see unmarked)
            self.features = unmarked(nn.HybridSequential, prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            in_channels = channels[0]
            for i, num_layer in enumerate(layers):
                self.features.add(_make_layer(block, num_layer, channels[i + 1],
                                              1 if i == 0 else 2, in_channels, i + 1))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_BASIC, _BOTTLENECK = [64, 64, 128, 256, 512], [64, 256, 512, 1024, 2048]
_SPEC = {18: ("basic", [2, 2, 2, 2], _BASIC), 34: ("basic", [3, 4, 6, 3], _BASIC),
         50: ("bottleneck", [3, 4, 6, 3], _BOTTLENECK),
         101: ("bottleneck", [3, 4, 23, 3], _BOTTLENECK),
         152: ("bottleneck", [3, 8, 36, 3], _BOTTLENECK)}
_VERSIONS = {1: (ResNetV1, {"basic": BasicBlockV1, "bottleneck": BottleneckV1}),
             2: (ResNetV2, {"basic": BasicBlockV2, "bottleneck": BottleneckV2})}


def _build(version, num_layers, **kwargs):
    if num_layers not in _SPEC or version not in _VERSIONS:
        raise MXNetValueError(f"Invalid resnet: version {version}, {num_layers} layers. Options "
                              f"are versions {sorted(_VERSIONS)} with {sorted(_SPEC)} layers.")
    block_type, layers, channels = _SPEC[num_layers]
    net_class, blocks = _VERSIONS[version]
    return net_class(blocks[block_type], layers, channels, **kwargs)


def get_resnet(version, num_layers, pretrained=False, ctx=None, device=None, root=None,
               **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101 or 152)."""
    make = zoo_constructor("get_resnet", lambda **kw: _build(version, num_layers, **kw),
                           f"resnet{num_layers}_v{version}")
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


def _variant(version, num_layers):
    name = f"resnet{num_layers}_v{version}"
    return zoo_constructor(name, lambda **kw: _build(version, num_layers, **kw))


for _layers in _SPEC:
    for _version in _VERSIONS:
        globals()[f"resnet{_layers}_v{_version}"] = _variant(_version, _layers)
