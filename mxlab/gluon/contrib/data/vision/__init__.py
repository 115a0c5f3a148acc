"""``mx.gluon.contrib.data.vision``: bounding-box transforms (the image data loaders of MXNet
2.0's ``vision/dataloader.py`` are not built)."""
from . import transforms  # noqa: F401
from .transforms import *  # noqa: F401,F403

_NOT_BUILT = ("create_image_augment", "ImageDataLoader", "create_bbox_augment",
              "ImageBboxDataLoader")


def __getattr__(name):
    if name in _NOT_BUILT:
        raise NotImplementedError(f"gluon.contrib.data.vision.{name} (MXNet 2.0's image data "
                                  "loaders) is not built in mxlab")
    raise AttributeError(f"module 'mxlab.gluon.contrib.data.vision' has no attribute {name!r}")
