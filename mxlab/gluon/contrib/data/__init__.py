"""``mx.gluon.contrib.data``: MXNet 2.0's contrib data package (``vision.transforms.bbox``).

The bounding-box transforms are built; ``vision.ImageDataLoader`` / ``ImageBboxDataLoader`` and
MXNet 1.x's ``IntervalSampler`` and text datasets are not, and raise ``NotImplementedError``
naming themselves.
"""
from . import vision  # noqa: F401

_NOT_BUILT = {
    "sampler": "gluon.contrib.data.sampler (IntervalSampler)",
    "IntervalSampler": "gluon.contrib.data.IntervalSampler",
    "text": "gluon.contrib.data.text (WikiText2, WikiText103)",
}


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"{_NOT_BUILT[name]} is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib.data' has no attribute {name!r}")
