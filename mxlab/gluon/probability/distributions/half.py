# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/half_normal.py and
# half_cauchy.py (Apache License 2.0, Copyright The Apache Software Foundation).
"""Half distributions: ``Y = |X|`` for ``X`` from a distribution symmetric about 0 (the shared part
of HalfNormal and HalfCauchy)."""
__all__ = ["HalfDistribution"]

import math
from numpy import inf
from .transformed_distribution import TransformedDistribution
from ..transformation import AbsTransform
from ..constraint import Positive
from .... import numpy as np


class HalfDistribution(TransformedDistribution):
    """``|X|`` with ``X ~ base(0, scale)``; subclasses name ``base``. ``mean`` and ``variance``
    are the half-normal's, for HalfCauchy too, as in MXNet."""
    # pylint: disable=abstract-method

    base = None
    has_grad = True
    support = Positive()
    arg_constraints = {'scale': Positive()}

    def __init__(self, scale=1.0, validate_args=None):
        self.scale = scale
        super().__init__(type(self).base(0, scale), AbsTransform(),
                         validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_samples(value)
        log_prob = self._base_dist.log_prob(value) + math.log(2)
        return np.where(value < 0, -inf, log_prob)

    def cdf(self, value):
        if self._validate_args:
            self._validate_samples(value)
        return 2 * self._base_dist.cdf(value) - 1

    def icdf(self, value):
        return self._base_dist.icdf((value + 1) / 2)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return np.power(self.scale, 2) * (1 - 2 / math.pi)
