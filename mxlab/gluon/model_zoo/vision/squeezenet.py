"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016): fire modules of squeeze and expand convs."""
from ....base import MXNetValueError
from ...block import HybridBlock
from ... import nn
from ._common import zoo_constructor

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential()
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    out = nn.HybridSequential()
    out.add(_fire_conv(squeeze, 1))
    paths = nn.HybridConcatenate(axis=1)
    paths.add(_fire_conv(expand1x1, 1), _fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


# each stage: a pool ("P") or a fire module's (squeeze, expand1x1, expand3x3)
_STAGES = {
    "1.0": ((96, 7), ["P", (16, 64, 64), (16, 64, 64), (32, 128, 128), "P", (32, 128, 128),
                      (48, 192, 192), (48, 192, 192), (64, 256, 256), "P", (64, 256, 256)]),
    "1.1": ((64, 3), ["P", (16, 64, 64), (16, 64, 64), "P", (32, 128, 128), (32, 128, 128),
                      "P", (48, 192, 192), (48, 192, 192), (64, 256, 256), (64, 256, 256)]),
}


class SqueezeNet(HybridBlock):
    """SqueezeNet ``version`` ('1.0' or '1.1'); the classifier is a 1x1 conv + average pool."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in _STAGES:
            raise MXNetValueError(f"Unsupported SqueezeNet version {version}: 1.0 or 1.1 "
                                  f"expected")
        (stem_channels, stem_kernel), stages = _STAGES[version]
        self.features = nn.HybridSequential()
        self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2),
                          nn.Activation("relu"))
        for stage in stages:
            self.features.add(_pool() if stage == "P" else _fire(*stage))
        self.features.add(nn.Dropout(0.5))
        self.output = nn.HybridSequential()
        self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                        nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, device=None, root=None, **kwargs):
    """SqueezeNet of ``version`` '1.0' or '1.1'."""
    make = zoo_constructor("get_squeezenet", lambda **kw: SqueezeNet(version, **kw),
                           f"squeezenet{version}")
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


squeezenet1_0 = zoo_constructor("squeezenet1_0", lambda **kw: SqueezeNet("1.0", **kw),
                                "squeezenet1.0")
squeezenet1_1 = zoo_constructor("squeezenet1_1", lambda **kw: SqueezeNet("1.1", **kw),
                                "squeezenet1.1")
