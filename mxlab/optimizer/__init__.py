"""``mx.optimizer``: MXNet 1.9's optimizers, ``create`` and ``get_updater``."""
from .optimizer import *  # noqa: F401,F403
from .more import *  # noqa: F401,F403
from .optimizer import Optimizer, create, register  # noqa: F401
from .updater import Updater, get_updater  # noqa: F401
from .extra import *  # noqa: F401,F403,E402
from . import contrib  # noqa: F401,E402  (mx.optimizer.contrib.GroupAdaGrad)
