"""``gluon.data.vision``: vision datasets read from local files and image transforms."""
from . import transforms  # noqa: F401
from .datasets import *  # noqa: F401,F403
