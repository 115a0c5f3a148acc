"""DenseNet-BC 121/161/169/201 (Huang et al. 2017): each layer's output is concatenated to its
input, so a dense block's channel count grows by ``growth_rate`` per layer."""
from ....base import MXNetValueError
from ...block import HybridBlock
from ... import nn
from ._common import zoo_constructor

__all__ = ["DenseNet", "get_densenet", "densenet121", "densenet161", "densenet169",
           "densenet201"]

densenet_spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def _bn_relu_conv(out, channels, kernel_size, padding=0):
    out.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=kernel_size, padding=padding, use_bias=False))


def _dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential()
    _bn_relu_conv(new_features, bn_size * growth_rate, 1)
    _bn_relu_conv(new_features, growth_rate, 3, padding=1)
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = nn.HybridConcatenate(axis=1)
    out.add(nn.Identity(), new_features)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout):
    out = nn.HybridSequential()
    for _ in range(num_layers):
        out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(channels):
    out = nn.HybridSequential()
    _bn_relu_conv(out, channels, 1)
    out.add(nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """Stem, dense blocks separated by transitions that halve the channels, BN-relu-pool head."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        self.features = nn.HybridSequential()
        self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                    use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                          nn.MaxPool2D(pool_size=3, strides=2, padding=1))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                num_features //= 2
                self.features.add(_transition(num_features))
        self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7),
                          nn.Flatten())
        self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _build(num_layers, **kwargs):
    if num_layers not in densenet_spec:
        raise MXNetValueError(f"Invalid number of layers: {num_layers}. Options are "
                              f"{sorted(densenet_spec)}")
    return DenseNet(*densenet_spec[num_layers], **kwargs)


def get_densenet(num_layers, pretrained=False, ctx=None, device=None, root=None, **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169 or 201)."""
    make = zoo_constructor("get_densenet", lambda **kw: _build(num_layers, **kw),
                           f"densenet{num_layers}")
    return make(pretrained=pretrained, ctx=ctx, device=device, root=root, **kwargs)


def _variant(num_layers):
    return zoo_constructor(f"densenet{num_layers}", lambda **kw: _build(num_layers, **kw))


densenet121, densenet161, densenet169, densenet201 = (_variant(n) for n in (121, 161, 169, 201))
