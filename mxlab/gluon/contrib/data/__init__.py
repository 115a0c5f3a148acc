"""``mx.gluon.contrib.data``: MXNet 2.0's contrib data package (``vision.transforms.bbox``).

The bounding-box transforms, MXNet 1.x's ``IntervalSampler`` and its ``text`` datasets (WikiText-2
and -103, from local files) are built; ``vision.ImageDataLoader`` / ``ImageBboxDataLoader`` are
not, and raise ``NotImplementedError`` naming themselves.
"""
from . import sampler, text, vision  # noqa: F401
from .sampler import IntervalSampler  # noqa: F401
