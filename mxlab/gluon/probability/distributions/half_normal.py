# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/half_normal.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Half-normal Distribution"""
__all__ = ["HalfNormal"]

import math
from numpy import inf
from .transformed_distribution import TransformedDistribution
from ..transformation import AbsTransform
from .normal import Normal
from ..constraint import Positive
from .... import numpy as np


class HalfNormal(TransformedDistribution):
    r"""Create a half normal object, where
        X ~ Normal(0, scale)
        Y = |X| ~ HalfNormal(scale)

    Parameters
    ----------
    scale : Tensor or scalar, default 1
        Scale of the full Normal distribution.
    """
    # pylint: disable=abstract-method

    has_grad = True
    support = Positive()
    arg_constraints = {'scale': Positive()}

    def __init__(self, scale=1.0, validate_args=None):
        base_dist = Normal(0, scale)
        self.scale = scale
        super(HalfNormal, self).__init__(
            base_dist, AbsTransform(), validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_samples(value)
        log_prob = self._base_dist.log_prob(value) + math.log(2)
        log_prob = np.where(value < 0, -inf, log_prob)
        return log_prob

    def cdf(self, value):
        if self._validate_args:
            self._validate_samples(value)
        return 2 * self._base_dist.cdf(value) - 1

    def icdf(self, value):
        return self._base_dist.icdf((value + 1) / 2)

    @property
    def loc(self):
        return self._base_dist.loc

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return np.power(self.scale, 2) * (1 - 2 / math.pi)
