"""``mx.optimizer``: SGD, NAG, Adam, AdamW, RMSProp, AdaGrad, ``create`` and ``get_updater``."""
from .optimizer import *
from .optimizer import Optimizer, create, register  # noqa: F401
from .updater import Updater, get_updater  # noqa: F401
