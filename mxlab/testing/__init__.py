"""More of MXNet's ``mx.test_utils``, re-exported there: statistical checks of random generators
(:mod:`.stats`), consistency checks across execution paths and optimizers (:mod:`.consistency`),
gradient checks (:mod:`.gradients`) and small array and environment helpers (:mod:`.helpers`)."""
from . import consistency, gradients, helpers, legacy_data, sparse_data, stats
from .consistency import *  # noqa: F403
from .gradients import *  # noqa: F403
from .helpers import *  # noqa: F403
from .legacy_data import *  # noqa: F403
from .sparse_data import *  # noqa: F403
from .stats import *  # noqa: F403

__all__ = [*consistency.__all__, *gradients.__all__, *helpers.__all__,  # noqa: PLE0604
           *legacy_data.__all__,
           *sparse_data.__all__, *stats.__all__]
