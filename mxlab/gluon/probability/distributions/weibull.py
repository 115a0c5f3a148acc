# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/weibull.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Weibull Distribution."""
__all__ = ['Weibull']

# Euler-Mascheroni constant
from numpy import euler_gamma
from .transformed_distribution import TransformedDistribution
from .exponential import Exponential
from ..constraint import Positive
from ..transformation import PowerTransform, AffineTransform
from ..utils import sample_n_shape_converter, gammaln
from .... import numpy as np
from .... import numpy_extension as npx


class Weibull(TransformedDistribution):
    r"""Create a two parameter Weibull distribution object.

    Parameters
    ----------
    concentration : Tensor or scalar
        Concentration/shape parameter of the distribution.
    scale : Tensor or scalar, default 1
        scale parameter of the distribution.
    """
    # pylint: disable=abstract-method
    has_grad = True
    support = Positive()
    arg_constraints = {'scale': Positive(),
                       'concentration': Positive()}

    def __init__(self, concentration, scale=1.0, validate_args=None):
        self.concentration = concentration
        self.scale = scale
        base_dist = Exponential()
        super(Weibull, self).__init__(base_dist, [PowerTransform(1 / self.concentration),
                                                  AffineTransform(0, self.scale)])

    def sample(self, size=None):
        return self.scale * np.random.weibull(self.concentration, size)

    def sample_n(self, size=None):
        return self.scale * np.random.weibull(self.concentration,
                                              sample_n_shape_converter(size))

    @property
    def mean(self):
        return self.scale * np.exp(npx.gammaln(1 + 1 / self.concentration))

    @property
    def variance(self):
        exp = np.exp
        lgamma = gammaln()
        term1 = exp(lgamma(1 + 2 / self.concentration))
        term2 = exp(2 * lgamma(1 + 1 / self.concentration))
        return (self.scale ** 2) * (term1 - term2)

    def entropy(self):
        return (euler_gamma * (1 - 1 / self.concentration) +
                np.log(self.scale / self.concentration) + 1)
