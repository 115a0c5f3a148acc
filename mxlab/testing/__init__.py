"""More of MXNet's ``mx.test_utils``, re-exported there: statistical checks of random generators
(:mod:`.stats`), consistency checks across execution paths and optimizers (:mod:`.consistency`),
gradient checks (:mod:`.gradients`) and small array and environment helpers (:mod:`.helpers`)."""
from .consistency import *  # noqa: F401,F403
from .consistency import __all__ as _consistency
from .gradients import *  # noqa: F401,F403
from .gradients import __all__ as _gradients
from .helpers import *  # noqa: F401,F403
from .helpers import __all__ as _helpers
from .stats import *  # noqa: F401,F403
from .stats import __all__ as _stats

__all__ = _consistency + _gradients + _helpers + _stats
