"""More of MXNet's ``mx.test_utils``, re-exported there: statistical checks of random generators
(:mod:`.stats`), consistency checks across execution paths and optimizers (:mod:`.consistency`)
and small array and environment helpers (:mod:`.helpers`)."""
from . import consistency, helpers, stats
from .consistency import *
from .helpers import *
from .stats import *

__all__ = [*consistency.__all__, *helpers.__all__, *stats.__all__]  # noqa: PLE0604
