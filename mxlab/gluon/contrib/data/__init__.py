"""``mx.gluon.contrib.data``: MXNet 2.0's contrib data package (``vision.transforms.bbox``).

The bounding-box transforms and MXNet 1.x's ``IntervalSampler`` are built;
``vision.ImageDataLoader`` / ``ImageBboxDataLoader`` and the text datasets (downloads) are not, and
raise ``NotImplementedError`` naming themselves.
"""
from . import sampler, vision  # noqa: F401
from .sampler import IntervalSampler  # noqa: F401

_NOT_BUILT = {
    "text": "gluon.contrib.data.text (WikiText2, WikiText103)",
}


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"{_NOT_BUILT[name]} is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib.data' has no attribute {name!r}")
