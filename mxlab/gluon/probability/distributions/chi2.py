# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/chi2.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
# pylint: disable=wildcard-import
"""Chi-sqaure distribution"""
__all__ = ['Chi2']

from .gamma import Gamma
from ..constraint import Positive


class Chi2(Gamma):
    r"""Create a Chi2 distribution object.
    Chi2(df) is equivalent to Gamma(shape=df / 2, scale=2)

    Parameters
    ----------
    df : Tensor or scalar, default 0
        Shape parameter of the distribution.
    """
    # pylint: disable=abstract-method

    arg_constraints = {'df': Positive()}

    def __init__(self, df, validate_args=None):
        super(Chi2, self).__init__(df / 2, 2, validate_args)

    @property
    def df(self):
        return self.shape * 2
