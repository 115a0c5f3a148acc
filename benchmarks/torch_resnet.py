"""ResNet-18 v1 in plain ``torch.nn`` (the layers of torchvision's ``resnet18`` and Gluon's
``resnet18_v1``): the PyTorch eager peer of the ``cnn`` workloads without needing torchvision, whose
compiled ops must match the installed torch build exactly.
"""
__all__ = ["resnet18", "resnet_torch_step"]


def _basic_block(nn, channels, stride, in_channels):
    """conv3x3-bn-relu-conv3x3-bn plus the (1x1 conv-bn when the shape changes) shortcut."""

    class BasicBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(in_channels, channels, 3, stride, 1, bias=False),
                nn.BatchNorm2d(channels), nn.ReLU(inplace=True),
                nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels))
            self.downsample = None
            if stride != 1 or in_channels != channels:
                self.downsample = nn.Sequential(
                    nn.Conv2d(in_channels, channels, 1, stride, bias=False),
                    nn.BatchNorm2d(channels))

        def forward(self, x):
            shortcut = x if self.downsample is None else self.downsample(x)
            return (self.body(x) + shortcut).relu()

    return BasicBlock()


def resnet18(classes=1000):
    """ResNet-18 v1 (stem 7x7/2 conv + 3x3/2 max pool, 4 stages of 2 basic blocks, average pool)."""
    from torch import nn
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    in_channels = 64
    for i, channels in enumerate((64, 128, 256, 512)):
        for j in range(2):
            stride = 2 if i > 0 and j == 0 else 1
            layers.append(_basic_block(nn, channels, stride, in_channels))
            in_channels = channels
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def resnet_torch_step(batch=8, size=64):
    """One forward + backward of :func:`resnet18` on ``batch`` x 3 x ``size`` x ``size``."""
    import torch
    torch.manual_seed(0)
    net = resnet18()
    x = torch.randn(batch, 3, size, size)

    def step():
        net.zero_grad()
        net(x).sum().backward()
    return step
