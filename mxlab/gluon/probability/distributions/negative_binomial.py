# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/negative_binomial.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Negative binomial distribution class."""
__all__ = ['NegativeBinomial']

from ._prob_logit import ProbLogit
from .distribution import Distribution
from .poisson import Poisson
from .gamma import Gamma
from ..utils import gammaln
from ..constraint import GreaterThanEq, Interval, Real, NonNegativeInteger
from .... import numpy as np


class NegativeBinomial(ProbLogit, Distribution):
    r"""Create a negative binomial distribution object.

    Parameters
    ----------
    n : Tensor or scalar
        Non-negative number of negative Bernoulli trials to stop.
    prob : Tensor or scalar, default None
        Probability of sampling `1`.
    logit : Tensor or scalar, default None
        The log-odds of sampling `1`.
    """
    # pylint: disable=abstract-method

    support = NonNegativeInteger()
    arg_constraints = {'n': GreaterThanEq(0),
                       'prob': Interval(0, 1),
                       'logit': Real()}

    def __init__(self, n, prob=None, logit=None, validate_args=None):
        self._set_prob_or_logit(prob, logit)
        self.n = n
        super(NegativeBinomial, self).__init__(
            event_dim=0, validate_args=validate_args)

    @property
    def mean(self):
        return self.n * np.exp(self.logit)

    @property
    def variance(self):
        prob = self.prob
        return self.n * prob / (1 - prob) ** 2

    def broadcast_to(self, batch_shape):
        new_instance = self.__new__(type(self))
        if 'prob' in self.__dict__:
            new_instance.prob = np.broadcast_to(self.prob, batch_shape)
        else:
            new_instance.logit = np.broadcast_to(self.logit, batch_shape)
        new_instance.n = np.broadcast_to(self.n, batch_shape)
        super(NegativeBinomial, new_instance).__init__(event_dim=self.event_dim,
                                                       validate_args=False)
        new_instance._validate_args = self._validate_args
        return new_instance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_samples(value)
        lgamma = gammaln()
        binomal_coef = lgamma(value + self.n) - \
            lgamma(1 + value) - lgamma(self.n)
        # log(prob) may have numerical issue.
        unnormalized_log_prob = self.n * \
            np.log(self.prob) + value * np.log1p(-self.prob)
        return binomal_coef + unnormalized_log_prob

    def sample(self, size=None):
        # Sample via Poisson-Gamma mixture
        rate = Gamma(shape=self.n, scale=np.exp(
            self.logit)).sample(size)
        return Poisson(rate).sample()

    def sample_n(self, size=None):
        # Sample via Poisson-Gamma mixture
        rate = Gamma(shape=self.n, scale=np.exp(
            self.logit)).sample_n(size)
        return Poisson(rate).sample()
