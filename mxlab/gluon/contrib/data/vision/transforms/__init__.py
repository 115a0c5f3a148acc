"""``mx.gluon.contrib.data.vision.transforms``: the bounding-box transforms."""
from . import bbox  # noqa: F401
from .bbox import *  # noqa: F401,F403
