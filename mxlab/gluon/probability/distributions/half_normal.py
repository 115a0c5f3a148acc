# Ported from Apache MXNet python/mxnet/gluon/probability/distributions/half_normal.py
# (Apache License 2.0, Copyright The Apache Software Foundation).
"""Half-normal Distribution"""
__all__ = ["HalfNormal"]

from .half import HalfDistribution
from .normal import Normal


class HalfNormal(HalfDistribution):
    r"""Create a half normal object, where
        X ~ Normal(0, scale)
        Y = |X| ~ HalfNormal(scale)

    Parameters
    ----------
    scale : Tensor or scalar, default 1
        Scale of the full Normal distribution.
    """
    # pylint: disable=abstract-method

    base = Normal

    @property
    def loc(self):
        return self._base_dist.loc
