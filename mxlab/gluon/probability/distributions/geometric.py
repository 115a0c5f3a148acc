# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/geometric.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Geometric distribution class."""
__all__ = ['Geometric']

from numbers import Number
from ._prob_logit import ProbLogit
from .distribution import Distribution
from ..utils import sample_n_shape_converter
from ..constraint import NonNegativeInteger, Interval, Real
from .... import numpy as np


class Geometric(ProbLogit, Distribution):
    r"""Create a geometric distribution object.

    Parameters
    ----------
    prob : Tensor or scalar, default None
        Probability of sampling `1`.
    logit : Tensor or scalar, default None
        The log-odds of sampling `1`.
    """
    # pylint: disable=abstract-method

    support = NonNegativeInteger()
    arg_constraints = {'prob': Interval(0, 1),
                       'logit': Real()}

    def __init__(self, prob=None, logit=None, validate_args=None):
        self._set_prob_or_logit(prob, logit)
        super(Geometric, self).__init__(
            event_dim=0, validate_args=validate_args)

    @property
    def mean(self):
        return 1 / self.prob - 1

    @property
    def variance(self):
        return (1 / self.prob - 1) / self.prob

    def broadcast_to(self, batch_shape):
        new_instance = self.__new__(type(self))
        if 'prob' in self.__dict__:
            new_instance.prob = np.broadcast_to(self.prob, batch_shape)
        else:
            new_instance.logit = np.broadcast_to(self.logit, batch_shape)
        super(Geometric, new_instance).__init__(event_dim=self.event_dim,
                                                validate_args=False)
        new_instance._validate_args = self._validate_args
        return new_instance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_samples(value)
        prob = self.prob
        return value * np.log1p(-prob) + np.log(prob)

    def sample(self, size=None):
        if isinstance(self.prob, Number):
            shape_tensor = np.zeros(())
        else:
            shape_tensor = np.zeros_like(self.prob)  # pylint: disable=too-many-function-args
        u = np.random.uniform(shape_tensor, size=size)
        samples = np.floor(
            np.log(u) / np.log1p(-self.prob)
        )
        return samples

    def sample_n(self, size=None):
        return self.sample(sample_n_shape_converter(size))

    def entropy(self):
        logit = self.logit
        prob = self.prob
        return -(logit * (prob - 1) - np.log1p(np.exp(-logit))) / prob
