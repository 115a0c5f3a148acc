"""VGG 11/13/16/19, with and without BatchNorm (Simonyan & Zisserman 2014)."""
from .... import initializer
from ....base import MXNetValueError
from ...block import HybridBlock
from ... import nn
from ._common import zoo_constructor

__all__ = ["VGG", "get_vgg"] + [f"vgg{n}{bn}" for n in (11, 13, 16, 19) for bn in ("", "_bn")]

vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    """Stages of 3x3 convolutions (``layers[i]`` of ``filters[i]`` channels) each ending in a
    max pool, then two 4096-unit Dense layers."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise MXNetValueError("VGG: layers and filters must have the same length")
        self.features = nn.HybridSequential()
        conv_init = initializer.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2)
        for num, channels in zip(layers, filters):
            for _ in range(num):
                self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                            weight_initializer=conv_init,
                                            bias_initializer="zeros"))
                if batch_norm:
                    self.features.add(nn.BatchNorm())
                self.features.add(nn.Activation("relu"))
            self.features.add(nn.MaxPool2D(strides=2))
        for _ in range(2):
            self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                       bias_initializer="zeros"), nn.Dropout(rate=0.5))
        self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _build(num_layers, **kwargs):
    if num_layers not in vgg_spec:
        raise MXNetValueError(f"Invalid number of layers: {num_layers}. Options are "
                              f"{sorted(vgg_spec)}")
    layers, filters = vgg_spec[num_layers]
    return VGG(layers, filters, **kwargs)


def get_vgg(num_layers, pretrained=False, ctx=None, device=None, root=None, **kwargs):
    """VGG with ``num_layers`` (11, 13, 16 or 19); ``batch_norm=True`` for the BN variant."""
    suffix = "_bn" if kwargs.get("batch_norm") else ""
    make = zoo_constructor(f"vgg{num_layers}{suffix}", lambda **kw: _build(num_layers, **kw))
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


def _variant(num_layers, batch_norm):
    name = f"vgg{num_layers}{'_bn' if batch_norm else ''}"
    return zoo_constructor(name, lambda **kw: _build(num_layers, batch_norm=batch_norm, **kw))


for _n in (11, 13, 16, 19):
    globals()[f"vgg{_n}"] = _variant(_n, False)
    globals()[f"vgg{_n}_bn"] = _variant(_n, True)
