"""``mx.gluon.contrib.data.sampler``: MXNet 1.x's path of ``IntervalSampler`` (MXNet 2.0 moved it
to ``gluon.data``; the same class)."""
from ...data.sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]
