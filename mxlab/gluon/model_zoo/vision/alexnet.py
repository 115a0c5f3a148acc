"""AlexNet (Krizhevsky et al. 2012) with MXNet's model-zoo layout."""
from ...block import HybridBlock
from ... import nn
from ._common import zoo_constructor

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """Five convolutions with max pooling, then two 4096-unit Dense layers with dropout."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        self.features = nn.HybridSequential()
        for channels, kernel, stride, pad, pool in ((64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                                    (384, 3, 1, 1, False),
                                                    (256, 3, 1, 1, False), (256, 3, 1, 1, True)):
            self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride,
                                        padding=pad, activation="relu"))
            if pool:
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
        self.features.add(nn.Flatten())
        for _ in range(2):
            self.features.add(nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
        self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


alexnet = zoo_constructor("alexnet", AlexNet)
