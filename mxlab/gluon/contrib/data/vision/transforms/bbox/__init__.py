"""Bounding-box transforms (:mod:`.bbox`) and their NumPy helpers (:mod:`.utils`)."""
from . import utils  # noqa: F401
from .bbox import *  # noqa: F401,F403
from .bbox import __all__  # noqa: F401
