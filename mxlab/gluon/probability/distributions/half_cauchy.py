# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/half_cauchy.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""Half-cauchy Distribution"""
__all__ = ["HalfCauchy"]

import math
from .half import HalfDistribution
from .cauchy import Cauchy


class HalfCauchy(HalfDistribution):
    r"""Create a half cauchy object, where
        X ~ Cauchy(0, scale)
        Y = |X| ~ HalfCauchy(scale)

    Parameters
    ----------
    scale : Tensor or scalar, default 1
        Scale of the full Cauchy distribution.
    """
    # pylint: disable=abstract-method

    base = Cauchy

    def entropy(self):
        return self._base_dist.entropy() - math.log(2)
