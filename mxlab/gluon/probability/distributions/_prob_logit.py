# Ported from Apache MXNet python/mxnet/gluon/probability (Apache License 2.0,
# Copyright The Apache Software Foundation).
"""The ``prob``/``logit`` parameterisation Bernoulli, Binomial, Geometric and NegativeBinomial
share: exactly one is given, the other is derived on first use."""
from ..utils import cached_property, logit2prob, prob2logit

__all__ = ["ProbLogit"]


class ProbLogit:
    """Mixin of a distribution over a success probability ``prob`` (or its log-odds ``logit``)."""

    def _set_prob_or_logit(self, prob, logit):
        if (prob is None) == (logit is None):
            raise ValueError(
                "Either `prob` or `logit` must be specified, but not both. " +
                "Received prob={}, logit={}".format(prob, logit))
        if prob is not None:
            self.prob = prob
        else:
            self.logit = logit

    @cached_property
    def prob(self):
        """The probability of a success (derived from ``logit`` when that was given)."""
        # pylint: disable=method-hidden
        return logit2prob(self.logit, True)

    @cached_property
    def logit(self):
        """The log-odds of a success (derived from ``prob`` when that was given)."""
        # pylint: disable=method-hidden
        return prob2logit(self.prob, True)
