# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/bernoulli.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Bernoulli class."""
__all__ = ['Bernoulli']

from ._prob_logit import ProbLogit
from .exp_family import ExponentialFamily
from ..utils import sample_n_shape_converter
from ..constraint import Boolean, Interval, Real
from .... import numpy as np
from .... import numpy_extension as npx


class Bernoulli(ProbLogit, ExponentialFamily):
    r"""Create a bernoulli distribution object.

    Parameters
    ----------
    prob : Tensor or scalar, default None
        Probability of sampling `1`.
    logit : Tensor or scalar, default None
        The log-odds of sampling `1`.
    """
    # pylint: disable=abstract-method

    support = Boolean()
    arg_constraints = {'prob': Interval(0, 1),
                       'logit': Real()}

    def __init__(self, prob=None, logit=None, validate_args=None):
        self._set_prob_or_logit(prob, logit)

        super(Bernoulli, self).__init__(
            event_dim=0, validate_args=validate_args)

    @property
    def mean(self):
        return self.prob

    @property
    def variance(self):
        return self.prob * (1 - self.prob)

    def broadcast_to(self, batch_shape):
        new_instance = self.__new__(type(self))
        F = self.F
        if 'prob' in self.__dict__:
            new_instance.prob = np.broadcast_to(self.prob, batch_shape)
        else:
            new_instance.logit = np.broadcast_to(self.logit, batch_shape)
        super(Bernoulli, new_instance).__init__(F=F,
                                                event_dim=self.event_dim,
                                                validate_args=False)
        new_instance._validate_args = self._validate_args
        return new_instance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_samples(value)
        if self.prob is None:
            logit = self.logit
            return logit * (value - 1) - np.log(np.exp(-logit) + 1)
        else:
            # Parameterized by probability
            eps = 1e-12
            return (np.log(self.prob + eps) * value
                    + np.log1p(-self.prob + eps) * (1 - value))

    def sample(self, size=None):
        return npx.random.bernoulli(self.prob, self.logit, size)

    def sample_n(self, size=None):
        return npx.random.bernoulli(self.prob, self.logit, sample_n_shape_converter(size))

    @property
    def _natural_params(self):
        return (self.logit,)

    def _log_normalizer(self, x):
        # pylint: disable=arguments-differ
        return np.log(1 + np.exp(x))

    def entropy(self):
        logit = self.logit
        prob = self.prob
        return -(logit * (prob - 1) - np.log(np.exp(-logit) + 1))
