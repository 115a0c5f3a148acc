# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/pareto.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Pareto Distribution."""
__all__ = ['Pareto']

from .transformed_distribution import TransformedDistribution
from .exponential import Exponential
from ..constraint import Positive, dependent_property, GreaterThan
from ..transformation import ExpTransform, AffineTransform
from ..utils import sample_n_shape_converter
from .... import numpy as np


class Pareto(TransformedDistribution):
    r"""Create a Pareto Type I distribution object.

    Parameters
    ----------
    alpha : Tensor or scalar
        shape parameter of the distribution.
    scale : Tensor or scalar, default 1
        scale parameter of the distribution.
    """
    # pylint: disable=abstract-method

    has_grad = True
    arg_constraints = {'scale': Positive(),
                       'alpha': Positive()}

    def __init__(self, alpha, scale=1.0, validate_args=None):
        self.alpha = alpha
        self.scale = scale
        base_dist = Exponential(1 / self.alpha)
        super(Pareto, self).__init__(base_dist, [
            ExpTransform(), AffineTransform(0, self.scale)])

    def sample(self, size=None):
        return self.scale * (np.random.pareto(self.alpha, size) + 1)

    def sample_n(self, size=None):
        return self.scale * (np.random.pareto(self.alpha, sample_n_shape_converter(size)) + 1)

    @dependent_property
    def support(self):
        return GreaterThan(self.scale)

    @property
    def mean(self):
        a = np.clip(self.alpha, 1, None)
        return a * self.scale / (a - 1)

    @property
    def variance(self):
        a = np.clip(self.alpha, 2, None)
        return (self.scale ** 2) * a / ((a - 1) ** 2 * (a - 2))

    def entropy(self):
        return np.log(self.scale / self.alpha) + 1 / self.alpha + 1
