"""``mx.gluon.contrib.cnn``: MXNet 1.x's home of the deformable convolution blocks (MXNet 2.0 moved
them to ``gluon.nn``; both names are the same classes here)."""
from ..nn.deformable import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
