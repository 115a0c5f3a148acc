"""``mx.optimizer``: SGD, NAG, Adam, AdamW, RMSProp, AdaGrad and ``create``."""
from .optimizer import *  # noqa: F401,F403
from .optimizer import Optimizer, create, register  # noqa: F401
