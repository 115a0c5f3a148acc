# Ported from Apache MXNet python/mxnet/gluon/probability/__init__.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""``mx.gluon.probability``: distributions, KL divergences, transformations and stochastic blocks
(MXNet 2.0's package, pure Python over ``mx.np``/``mx.npx``)."""
from . import block, distributions, transformation
from .block import *  # noqa: F401,F403
from .distributions import *  # noqa: F401,F403
from .transformation import *  # noqa: F401,F403

__all__ = block.__all__ + distributions.__all__ + transformation.__all__
